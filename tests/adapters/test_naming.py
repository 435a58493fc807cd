"""Readable names (issue #25): a provider named after its document, endpoint ids from the
operation, tool names within 64 characters that are never hashed or cut silently."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters._naming import endpoint_slug, fit_endpoint_id, provider_slug
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.errors import DuplicateRouteError, RegistrationError
from schemarouter.index import HashingEncoder
from schemarouter.integrations.names import TOOL_NAME_PATTERN, tool_name


@pytest.mark.parametrize(
    ("title", "base_url", "expected"),
    [
        ("GitHub v3 REST API", None, "github"),
        ("Spotify Web API", "https://api.spotify.com/v1", "spotify"),
        ("Twilio - Api", None, "twilio"),
        ("NetworkManagementClient", None, "network_management"),
        ("Amazon ElastiCache", None, "amazon_elasticache"),
        ("Amazon Route 53", None, "amazon_route_53"),
        ("Box 2.0", None, "box"),
        ("Amazon Simple Notification Service", None, "amazon_simple_notification"),
        ("The Open Movie Database API v1.0", None, "open_movie_database"),
        (None, "https://api.spotify.com/v1", "spotify"),
        ("API", "https://www.bbc.co.uk/api", "bbc"),
        (None, "http://127.0.0.1:8000", "spotify_com"),  # an address names nothing: the file
    ],
)
def test_provider_named_after_the_document(
    title: str | None, base_url: str | None, expected: str
) -> None:
    assert provider_slug(title, base_url, "spotify.com") == expected


@pytest.mark.parametrize(
    ("operation_id", "method", "path", "expected"),
    [
        ("", "get", "/albums/{id}", "get_albums_id"),
        ("", "get", "/me/tracks/contains", "get_me_tracks_contains"),
        ("", "get", "/movie/{movie_id}/credits", "get_movie_credits"),
        ("", "get", "/movie/{movie_id}", "get_movie_id"),
        (
            "",
            "get",
            "/2010-04-01/Accounts/{AccountSid}/SMS/ShortCodes/{Sid}.json",
            "get_accounts_sms_short_codes_sid",
        ),
        ("", "post", "/v3/repos/{owner}/{repo}/issues", "post_repos_issues"),
        ("repos/get-content", "get", "/x", "repos_get-content"),
        ("Destiny2.GetCharacter", "get", "/x", "destiny2_get_character"),
        ("getMovieCredits", "get", "/x", "get_movie_credits"),
    ],
)
def test_endpoint_ids_from_the_operation(
    operation_id: str, method: str, path: str, expected: str
) -> None:
    assert endpoint_slug(operation_id, method, path) == expected


def test_a_long_id_is_shortened_readably() -> None:
    """Repeated and filler words go first, then the longest middle words are cut to five
    letters: every word of the operation still shows."""
    long = "community_content_get_community_live_statuses_for_clanmates"
    assert fit_endpoint_id(long, 48) == "community_content_get_live_statuses_clanmates"
    assert fit_endpoint_id(long, 40) == "community_conte_get_live_statu_clanmates"
    assert fit_endpoint_id("describe_maintenance_window_execution_task_invocations", 50) == (
        "describe_maint_window_execution_task_invocations"
    )
    assert fit_endpoint_id("get_albums_id", 40) == "get_albums_id"


def _spotify_like() -> dict[str, Any]:
    """Spotify's and Twilio's habits: no operationIds, version segments, file extensions,
    paths long enough that a slug of the whole path passed 96 characters."""
    ok = {"200": {"description": "ok"}}
    paths = {
        "/albums/{id}": {"get": {"summary": "Get an album", "responses": ok}},
        "/me/tracks/contains": {"get": {"summary": "Check saved tracks", "responses": ok}},
        "/2010-04-01/Accounts/{AccountSid}/SMS/ShortCodes/{Sid}.json": {
            "get": {"summary": "Fetch a short code", "responses": ok}
        },
        "/2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}/Media/{Sid}.{MediaTypeExtension}": {
            "get": {"summary": "Fetch a media item", "responses": ok}
        },
        "/users/{user_id}/playlists/{playlist_id}/followers/contains": {
            "get": {
                "operationId": "checkIfUsersFollowPlaylistAndReturnTheirFollowStatusForEachUser",
                "responses": ok,
            }
        },
    }
    for spec in paths.values():
        for op in spec.values():
            op["parameters"] = []
    for path, spec in paths.items():
        names = [p.strip("{}") for p in path.replace(".", "/").split("/") if p.startswith("{")]
        spec["get"]["parameters"] = [
            {"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names
        ]
    return {
        "openapi": "3.0.0",
        "info": {"title": "Spotify Web API", "version": "1"},
        "servers": [{"url": "https://api.spotify.com/v1"}],
        "paths": paths,
    }


def test_a_document_without_a_provider_gets_readable_tool_names() -> None:
    registration = openapi_registration(_spotify_like(), source="specs/spotify.com.json")
    ids = {r.route_id for r in registration.routes}
    assert ids == {
        "spotify/rest/get_albums_id",
        "spotify/rest/get_me_tracks_contains",
        "spotify/rest/get_accounts_sms_short_codes_sid",
        "spotify/rest/get_accounts_messages_media_sid_type_extension",
        "spotify/rest/check_if_users_follo_playl_their_statu_each_user",
    }
    for route in registration.routes:
        name = tool_name(route.route_id)
        assert name == "__".join(route.route_id.split("/"))  # plain: never hashed
        assert TOOL_NAME_PATTERN.match(name) and len(name) <= 64
    shortened = [w for w in registration.warnings if "shortened to" in w]
    assert len(shortened) == 2  # said, with the full id: never cut silently
    assert "'check_if_users_follow_playlist_and_return_their_follow_status" in shortened[1]
    assert registration.providers[0].display_name == "Spotify Web API"


def test_tool_names_are_readable_in_every_format() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_spotify_like(), base_url="https://api.spotify.com/v1")
    found = router.retrieve("check whether a user follows a playlist", k=5)
    for fmt in ("anthropic", "openai", "openai-chat", "mcp"):
        tools = found.tools(fmt)  # type: ignore[arg-type]
        for definition in tools:
            name = definition.get("name") or definition["function"]["name"]
            assert name.startswith("spotify__rest__") and len(name) <= 64
            assert not any(ch in name for ch in ".")


def test_two_documents_never_share_a_derived_provider(tmp_path: Any) -> None:
    """Two documents titled alike register side by side (``spotify``, ``spotify_2``); the same
    file registered again with ``replace=True`` keeps its id."""
    import json

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    first = tmp_path / "spotify.json"
    first.write_text(json.dumps(_spotify_like()), encoding="utf-8")
    other = _spotify_like()
    other["paths"] = {"/browse/categories": {"get": {"responses": {"200": {"description": "ok"}}}}}
    router.add_openapi(first)
    change = router.add_openapi(other)
    assert change.added == ("spotify_2/rest/get_browse_categories",)
    again = router.add_openapi(first, replace=True)
    assert again.empty  # the same document under the same id: nothing changes
    assert {p for p in router.snapshot().providers} == {"spotify", "spotify_2"}

    # the second file, registered again (a user trial: it compiled under ``spotify`` and its
    # replace removed the first document's routes and registered it twice)
    second = tmp_path / "spotify-browse.json"
    second.write_text(json.dumps(other), encoding="utf-8")
    router.remove_provider("spotify_2")
    router.add_openapi(second)  # a file now: spotify_2 again
    before = set(router.snapshot().routes)
    other["paths"]["/browse/releases"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    second.write_text(json.dumps(other), encoding="utf-8")
    change = router.add_openapi(second, replace=True)  # changed on disk
    assert change.added == ("spotify_2/rest/get_browse_releases",) and not change.removed
    assert set(router.snapshot().routes) == before | set(change.added)
    # a dict: a changed one replaces the one dict of its title; of two, which is ambiguous
    # (the second file's content as a dict is that file's document: refused, see below)
    with pytest.raises(DuplicateRouteError, match="Pass replace=True"):
        router.add_openapi(other)
    ok = {"200": {"description": "ok"}}
    other = {**other, "paths": {**other["paths"], "/browse/dict": {"get": {"responses": ok}}}}
    assert router.add_openapi(other).added[0].startswith("spotify_3/")
    changed = {**other, "info": {**other["info"], "description": "v2"}}
    assert not router.add_openapi(changed, replace=True).removed  # spotify_3, in place
    # the first file's content again, as a dict: the same document, refused as registered
    with pytest.raises(DuplicateRouteError, match="Pass replace=True"):
        router.add_openapi(_spotify_like())
    third = _spotify_like()
    third["paths"] = {"/browse/new": {"get": {"responses": ok}}}
    assert router.add_openapi(third).added[0].startswith("spotify_4/")
    v3 = {**changed, "info": {**other["info"], "description": "v3"}}
    v3["paths"] = {**changed["paths"], "/browse/v3": {"get": {"responses": ok}}}
    with pytest.raises(RegistrationError, match="Pass provider="):
        router.add_openapi(v3, replace=True)


def test_a_dict_titled_in_korean_is_named_after_its_title() -> None:
    """Trial K: a document passed as a dict whose title has no ASCII words ("한빛 쇼핑몰 API")
    and that names no server host registered as provider ``dict`` (two such: ``dict``,
    ``dict_2``, by order). It is named after its title, hashed as ``provider="마켓온"`` is,
    the title kept as the display name."""

    def document(title: str) -> dict[str, Any]:
        operation = {"operationId": "listOrders", "responses": {"200": {"description": "ok"}}}
        return {
            "openapi": "3.0.3",
            "info": {"title": title, "version": "1"},
            "paths": {"/orders": {"get": operation}},
        }

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    (first,) = router.add_openapi(document("한빛 쇼핑몰 API")).added
    (second,) = router.add_openapi(document("마켓온 API")).added
    provider = first.split("/")[0]
    assert provider != "dict" and first != second
    assert router.snapshot().providers[provider].display_name == "한빛 쇼핑몰 API"
    again = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    assert again.add_openapi(document("한빛 쇼핑몰 API")).added == (first,)  # stable
