"""A security requirement that names several schemes needs them all at once (OpenAPI's AND):
each scheme's credential travels where that scheme says (trial J, finding 6). A real
loopback server records what it got; the documents are real OpenAPI dicts."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import AuthRequirement, CredentialPlacement, ParameterLocation
from schemarouter.errors import PolicyError
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.index import HashingEncoder

from servers.loopback import OK_RESPONSES, LoopbackServer

MODES = pytest.mark.parametrize("mode", ["sync", "async"])
CREDENTIALS = {
    "BOTH_APPID_API_KEY": "id-1111111111",
    "BOTH_APPKEY_API_KEY": "key-2222222222",
    "BOTH_SESSION_API_KEY": "sid-4444444444",
    "BOTH_TOKEN": "tok-3333333333",
    "BOTH_USERNAME": "ada",
    "BOTH_PASSWORD": "pass:word",
}


def _document(base_url: str) -> dict[str, Any]:
    def operation(name: str, security: list[dict[str, list[str]]]) -> dict[str, Any]:
        return {
            "operationId": name,
            "security": security,
            "parameters": [{"name": "app_key", "in": "query", "schema": {"type": "string"}}],
            "responses": OK_RESPONSES,
        }

    return {
        "openapi": "3.0.3",
        "info": {"title": "Both", "version": "1"},
        "servers": [{"url": base_url}],
        "components": {
            "securitySchemes": {
                "appId": {"type": "apiKey", "in": "header", "name": "X-App-Id"},
                "appKey": {"type": "apiKey", "in": "query", "name": "app_key"},
                "session": {"type": "apiKey", "in": "cookie", "name": "sid"},
                "bearer": {"type": "http", "scheme": "bearer"},
                "basic": {"type": "http", "scheme": "basic"},
                "tls": {"type": "mutualTLS"},
            }
        },
        "paths": {
            "/a": {"get": operation("a", [{"appId": [], "appKey": []}])},
            "/b": {"get": operation("b", [{"bearer": [], "session": []}])},
            "/c": {"get": operation("c", [{"session": [], "basic": []}])},
            "/d": {"get": operation("d", [{"appId": []}])},
            "/e": {"get": operation("e", [{"tls": [], "appKey": []}])},
        },
    }


def _router(base_url: str) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(base_url), provider="both")
    return router


@MODES
def test_every_scheme_of_a_combined_requirement_is_sent(mode: str, server: LoopbackServer) -> None:
    """``security: [{appId: [], appKey: []}]`` sent only ``X-App-Id``: ``app_key`` was
    demanded (a PolicyError without it) but never sent; a bearer + cookie requirement sent
    the bearer token and no cookie."""
    router = _router(server.base_url)
    credentials = MappingCredentials(CREDENTIALS)
    basic = base64.b64encode(b"ada:pass:word").decode()
    expected = {
        "a": ({"X-App-Id": "id-1111111111"}, {"app_key": ["key-2222222222"]}),
        "b": ({"Authorization": "Bearer tok-3333333333", "Cookie": "sid=sid-4444444444"}, {}),
        "c": ({"Authorization": f"Basic {basic}", "Cookie": "sid=sid-4444444444"}, {}),
    }
    for name, (headers, query) in expected.items():
        server.reset()
        route_id = f"both/rest/{name}"
        if mode == "sync":
            router.call(route_id, {}, credentials=credentials)
        else:
            asyncio.run(router.acall(route_id, {}, credentials=credentials))
        seen = server.requests[-1]
        assert {k: seen.headers.get(k) for k in headers} == headers, name
        assert seen.query == query, name


def test_the_contract_places_each_scheme(server: LoopbackServer) -> None:
    """The first scheme stays the requirement's own placement (as before), the others are
    ``combined``; a parameter named where a combined credential travels is no route
    parameter; a requirement of one scheme keeps its contract (no ``combined`` key)."""
    snapshot = _router(server.base_url).snapshot()
    auth = snapshot.route("both/rest/a").access.auth
    assert (auth.scheme, auth.location, auth.parameter) == (
        "api_key",
        ParameterLocation.HEADER,
        "X-App-Id",
    )
    assert [(c.credentials, c.location, c.parameter) for c in auth.combined] == [
        (("BOTH_APPKEY_API_KEY",), ParameterLocation.QUERY, "app_key")
    ]
    assert [p.credentials for p in auth.placements()] == [
        ("BOTH_APPID_API_KEY",),
        ("BOTH_APPKEY_API_KEY",),
    ]
    assert snapshot.route("both/rest/a").endpoint.parameters == ()
    single = snapshot.route("both/rest/d")
    assert [p.name for p in single.endpoint.parameters] == ["app_key"]
    assert "combined" not in single.access.auth.canonical()
    with pytest.raises(ValueError, match="combined scheme"):
        AuthRequirement(credentials=("A",), combined=(CredentialPlacement(credentials=("B",)),))


def test_a_combined_requirement_still_needs_every_credential(server: LoopbackServer) -> None:
    router = _router(server.base_url)
    server.reset()
    credentials = MappingCredentials({"BOTH_APPID_API_KEY": "id-1111111111"})
    with pytest.raises(PolicyError, match="BOTH_APPKEY_API_KEY"):
        router.call("both/rest/a", {}, credentials=credentials)
    assert server.requests == []


def test_a_credential_parameter_of_a_later_scheme_is_no_route_parameter(
    server: LoopbackServer,
) -> None:
    """Where the first scheme travels in no named parameter (mutual TLS) and a later one does
    (``app_key`` in the query), the operation's own ``app_key`` is the credential's place,
    not a parameter an agent fills (a review found it kept: only the first scheme's
    parameter was looked at)."""
    snapshot = _router(server.base_url).snapshot()
    names = {r.endpoint.name: {p.name for p in r.endpoint.parameters} for r in snapshot}
    assert "app_key" not in names["e"]
    assert "app_key" not in names["a"]  # the first scheme's place, as before
