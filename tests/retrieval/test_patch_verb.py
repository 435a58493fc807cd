""" "patch" is a verb of change (an update), on a request and in an operation's name: a
catalog whose operations are named by their method (``patch_feature_flag``,
``post_feature_flag``) has its PATCH routes read as updates, so "update the flag" finds
``patch_feature_flag`` by the verb it names. "patch" was a synonym of update that no name or
request was ever read by."""

from __future__ import annotations

from schemarouter.retrieval.actions import read_request, route_action, route_verb


def test_a_patch_route_names_an_update() -> None:
    assert route_verb("patch_feature_flag", method="PATCH") == "update"
    assert route_verb("patchFeatureFlag", method="PATCH") == "update"
    assert route_action("patch_feature_flag", method="PATCH") == "write"
    # a tool named by it, with no method
    assert route_verb("playwright_patch", namespaces=("playwright",)) == "update"


def test_a_request_to_patch_asks_an_update() -> None:
    assert read_request("patch the server config with the new timeout") == (
        "write",
        frozenset({"update"}),
    )
    assert read_request("update the dark-mode flag") == ("write", frozenset({"update"}))


def test_patch_notes_ask_no_change() -> None:
    # a noun as often: only "patch" before what it patches is a change
    text = "I want to know the latest news about a game, such as new features, patch notes"
    assert read_request(text) == (None, frozenset())
    assert route_verb("get_patch_baseline", method="GET") is None
