"""Tool definitions from documents as users write them (issue #25): transport headers are
never model inputs, identifier hints never name a tool that needs the same identifier,
descriptions read as plain text, and ``owner/repo`` in a request fills ``owner`` and ``repo``."""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.analysis import find_values

from helpers import openapi_document


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def _param(name: str, where: str, required: bool = False, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": where, "required": required, "schema": {"type": kind}}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


GITHUB_LIKE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "GitHub v3 REST API", "version": "1.1.4"},
    "servers": [{"url": "https://api.github.com"}],
    "paths": {
        "/repos/{owner}/{repo}/issues": {
            "get": {
                "operationId": "issues/list-for-repo",
                "summary": "List  repository   issues",
                "description": "List issues in a repository. See [the guide](https://docs.github.com/x).",
                "parameters": [
                    _param("owner", "path", True),
                    _param("repo", "path", True),
                    _param("state", "query"),
                    _param("Accept", "header"),
                    _param("X-RateLimit-Remaining", "header", kind="integer"),
                    _param("X-GitHub-Request-Id", "header"),
                    _param("If-None-Match", "header"),
                ],
                "responses": _ok(
                    {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
                        },
                    }
                ),
            }
        }
    },
}


def test_transport_headers_are_never_model_inputs() -> None:
    router = _router()
    change = router.add_openapi(GITHUB_LIKE)
    (route_id,) = change.added
    assert route_id == "github/rest/issues_list-for-repo"
    route = router.snapshot().route(route_id)
    names = [p.name for p in route.endpoint.parameters]
    assert names == ["owner", "repo", "state", "If-None-Match"]  # a conditional request stays
    assert [w for w in change.warnings if "header parameters the client sets" in w] == [
        "paths: header parameters the client sets left out of the routes: Accept (1 operation), "
        "X-RateLimit-Remaining (1 operation), X-GitHub-Request-Id (1 operation)"
    ]
    found = router.retrieve("list issues of a repository", k=1)
    for fmt in ("anthropic", "openai", "mcp"):
        definition = found.tools(fmt)[0]  # type: ignore[arg-type]
        schema = definition.get("input_schema") or definition.get("parameters")
        schema = schema or definition["inputSchema"]
        assert set(schema["properties"]) == {"owner", "repo", "state", "If-None-Match"}


def test_descriptions_read_as_plain_text() -> None:
    router = _router()
    router.add_openapi(GITHUB_LIKE)
    found = router.retrieve("list issues of a repository", k=1)
    (definition,) = found.tools("mcp")
    assert definition["title"] == "List repository issues"
    assert definition["description"].startswith("List repository issues.")
    assert "](" not in definition["description"] and "  " not in definition["description"]


def test_owner_and_repo_in_a_request_fill_the_parameters() -> None:
    router = _router()
    router.add_openapi(GITHUB_LIKE)
    found = router.retrieve("open issues in kubernetes/kubernetes", k=1)
    assert found.candidates[0].bound_parameters == {"owner": "kubernetes", "repo": "kubernetes"}
    assert [(v.kind, v.value) for v in find_values("read/write and/or km/h input/output")] == []
    assert [(v.kind, v.value) for v in find_values("see https://github.com/a/bcd")] == []


def _spotify_like() -> dict[str, Any]:
    album = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    albums = {"type": "object", "properties": {"albums": {"type": "array", "items": album}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Spotify Web API", "version": "1"},
        "servers": [{"url": "https://api.spotify.com/v1"}],
        "paths": {
            "/albums/{id}": {
                "get": {
                    "description": "[Get an Album](https://developer.spotify.com/x)  for an id.",
                    "parameters": [_param("id", "path", True)],
                    "responses": _ok(album),
                }
            },
            "/albums": {
                "get": {
                    "description": "Get several albums by their ids.",
                    "parameters": [_param("ids", "query", True)],
                    "responses": _ok(albums),
                }
            },
            "/albums/new": {
                "get": {
                    "description": "New album releases, newest first.",
                    "parameters": [_param("country", "query")],
                    "responses": _ok(
                        {
                            "type": "object",
                            "properties": {"items": {"type": "array", "items": album}},
                        }
                    ),
                }
            },
        },
    }


def test_an_identifier_hint_never_names_a_tool_that_needs_one_itself() -> None:
    """``GET /albums?ids=`` needs album ids too: it is no producer of one (it was the hint
    before); the listing that needs nothing is."""
    from schemarouter.integrations.definitions import tool_definitions
    from schemarouter.retrieval.prerequisites import identifier_sources
    from schemarouter.retrieval.results import candidate_from_route

    router = _router()
    router.add_openapi(_spotify_like())
    snapshot = router.snapshot()
    offered = set(snapshot.routes)
    candidates = [
        candidate_from_route(
            route,
            rank=0,
            score=0.0,
            identifier_sources=identifier_sources(snapshot, route, offered),
        )
        for route in (snapshot.route(r) for r in sorted(offered))
    ]
    tools = {t["name"]: t for t in tool_definitions(candidates, "anthropic")}
    definition = tools["spotify__rest__get_albums_id"]
    hint = definition["input_schema"]["properties"]["id"]["description"]
    assert "take it from spotify__rest__get_albums_new (items[].id of its output)" in hint
    assert definition["description"].startswith("Get an Album for an id.")
    several = tools["spotify__rest__get_albums"]["input_schema"]["properties"]["ids"]
    assert "spotify__rest__get_albums_new" in several["description"]  # a need, with its producer


PAGEVIEWS = openapi_document(
    "Wikimedia",
    {
        "/metrics/pageviews/top/{project}": {
            "get": {
                "operationId": "get_top_pageviews",
                "summary": "Most viewed articles of a project",
                "parameters": [
                    {
                        "name": "project",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "If you want to filter by project, use the domain of "
                        "any Wikimedia project, for example 'en.wikipedia.org', "
                        "'www.mediawiki.org' or 'commons.wikimedia.org'. If you are "
                        "interested in all pageviews regardless of project, use all-projects.",
                    },
                    {
                        "name": "access",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "The access method. Desktop, mobile app or mobile web.",
                    },
                ],
                "responses": _ok({"type": "object", "properties": {"items": {"type": "array"}}}),
            }
        }
    },
)


def test_parameter_descriptions_are_cut_to_their_first_sentence_cleanly() -> None:
    """A first sentence that fits is kept whole; a longer one ends at its last clause break
    with "…" (as docs/integrations.md says), not on a dangling word ("…, for…")."""
    router = _router()
    router.add_openapi(PAGEVIEWS)
    found = router.retrieve("most viewed wikipedia articles", k=1)
    (definition,) = found.tools("anthropic")
    properties = definition["input_schema"]["properties"]
    assert properties["access"]["description"] == "The access method."
    assert properties["project"]["description"] == (
        "If you want to filter by project, use the domain of any Wikimedia project…"
    )
