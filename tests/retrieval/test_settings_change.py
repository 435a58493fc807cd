"""Turning a thing on or off ("turn the dark-mode flag on", "꺼 줘") names ``enable`` /
``disable``; a catalog with no route named by either turns things on by updating or starting
them (off: updating or stopping), so there those routes gain as the change asked. Issue #22's write-intent dev set: LaunchDarkly's
``patch_feature_flag`` ranked 8th for "turn the dark-mode flag on in production"."""

from __future__ import annotations

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.ordering import apply_actions, settings_change


def _tools(*names: str) -> list[dict[str, object]]:
    return [
        {"name": n, "description": n.replace("_", " "), "inputSchema": {"type": "object"}}
        for n in names
    ]


def _order(names: tuple[str, ...], query: str) -> list[Ranked]:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None, ranking=None
    )
    router.add_mcp_tools({"tools": _tools(*names)}, provider="flags")
    ranked = [
        Ranked(f"flags/mcp/{n}", 1.0 - i / 100, {"fused": 1.0 - i / 100})
        for i, n in enumerate(names)
    ]
    return apply_actions(query, ranked, router.snapshot())


def test_an_update_turns_on_where_no_route_enables() -> None:
    out = _order(("create_flag", "delete_flag", "update_flag"), "turn the dark-mode flag on")
    assert out[0].route_id == "flags/mcp/update_flag"
    assert settings_change(frozenset({"disable"}), ["update", None]) == {
        "disable",
        "update",
        "stop",
    }


def test_turning_a_machine_off_stops_it_where_no_route_disables() -> None:
    # "꺼 줘" (turn it off) of a workspace: the stop gains as the change asked
    out = _order(
        ("create_workspace", "start_workspace", "stop_workspace"), "워크스페이스 ws-1 꺼 줘"
    )
    assert out[0].route_id == "flags/mcp/stop_workspace"
    assert "action" not in out[1].scores and "action" not in out[2].scores


def test_a_route_that_enables_keeps_the_gain_to_itself() -> None:
    out = _order(("create_flag", "update_flag", "enable_flag"), "turn the dark-mode flag on")
    assert out[0].route_id == "flags/mcp/enable_flag"
    assert "action" not in out[1].scores and "action" not in out[2].scores
    assert settings_change(frozenset({"enable"}), ["update", "enable"]) == {"enable"}
    assert settings_change(frozenset({"create"}), ["update"]) == {"create"}
