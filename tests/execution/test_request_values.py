"""Header and cookie values a request cannot carry, from an argument or a credential, are
refused before anything is sent (trial J, findings 5 and 11): nothing reaches the server,
nothing is retried, the route stays healthy, and a credential's value is never shown."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError, PolicyError
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.index import HashingEncoder

from servers.loopback import OK_RESPONSES, LoopbackServer

MODES = pytest.mark.parametrize("mode", ["sync", "async"])
SCHEMES = {
    "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
    "jar": {"type": "apiKey", "in": "cookie", "name": "sid"},
    "query": {"type": "apiKey", "in": "query", "name": "key"},
    "bearer": {"type": "http", "scheme": "bearer"},
    "basic": {"type": "http", "scheme": "basic"},
}


def _router(base_url: str, scheme: str | None = None) -> SchemaRouter:
    operation: dict[str, Any] = {
        "operationId": "x",
        "parameters": [
            {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
            {"name": "pref", "in": "cookie", "schema": {"type": "string"}},
        ],
        "responses": OK_RESPONSES,
    }
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": base_url}],
        "components": {"securitySchemes": {scheme: SCHEMES[scheme]} if scheme else {}},
        "paths": {"/x": {"get": operation}},
    }
    if scheme:
        document["security"] = [{scheme: []}]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="t")
    return router


def _call(router: SchemaRouter, mode: str, arguments: dict[str, Any], **options: Any) -> Any:
    if mode == "sync":
        return router.call("t/rest/x", arguments, **options)
    return asyncio.run(router.acall("t/rest/x", arguments, **options))


@MODES
@pytest.mark.parametrize(
    ("name", "value", "place"),
    [
        ("X-Trace", "abc\n", "header"),
        ("X-Trace", "token-from-a-file\n", "header"),
        ("pref", "a\n", "cookie"),
    ],
)
def test_a_value_ending_in_a_newline_is_refused_before_sending(
    mode: str, name: str, value: str, place: str, server: LoopbackServer
) -> None:
    """``_HEADER_VALUE`` used ``$``, which matches before a trailing newline: ``"abc\\n"``
    passed, failed inside httpx as a transport error, was retried three times and marked the
    route unhealthy for 60 s, although the server never saw a request. A cookie parameter's
    refusal called it a "header parameter"."""
    router = _router(server.base_url)
    server.reset()
    with pytest.raises(ParameterValidationError, match=f"{place} parameter {name!r}"):
        _call(router, mode, {name: value})
    assert server.requests == []
    assert router.is_healthy("t/rest/x")
    assert _call(router, mode, {name: "fine"}).ok
    assert len(server.requests) == 1


@MODES
@pytest.mark.parametrize(
    ("scheme", "values", "bad"),
    [
        ("bearer", {"T_TOKEN": "token-from-file-123\n"}, "T_TOKEN"),
        ("bearer", {"T_TOKEN": "tökén-123456"}, "T_TOKEN"),
        ("basic", {"T_USERNAME": "user", "T_PASSWORD": "pass-word\n"}, "T_PASSWORD"),
        ("basic", {"T_USERNAME": "us\x00er", "T_PASSWORD": "pw"}, "T_USERNAME"),
        ("key", {"T_API_KEY": "key-123456\n"}, "T_API_KEY"),
        ("query", {"T_API_KEY": "key-123456\r\n"}, "T_API_KEY"),
        ("jar", {"T_API_KEY": "abc123456;role=admin"}, "T_API_KEY"),
        ("jar", {"T_API_KEY": "abc123456\n"}, "T_API_KEY"),
    ],
)
def test_a_credential_a_request_cannot_carry_is_refused_by_name(
    mode: str, scheme: str, values: dict[str, str], bad: str, server: LoopbackServer
) -> None:
    """A bearer token read from a file (trailing newline) got no header check: a transport
    error, retried, the route unhealthy. A cookie credential with ``;`` went out raw and added
    a cookie (``sid=abc123456;role=admin``) where a cookie parameter's ``;`` is escaped."""
    router = _router(server.base_url, scheme)
    server.reset()
    with pytest.raises(PolicyError, match=f"the credential {bad} for t/rest/x") as caught:
        _call(router, mode, {}, credentials=MappingCredentials(values))
    shown = f"{caught.value!s} {caught.value!r} {caught.value.hint}"
    assert values[bad].strip() not in shown
    assert server.requests == []
    assert router.is_healthy("t/rest/x")


def test_a_cookie_parameter_keeps_its_escaped_semicolon(server: LoopbackServer) -> None:
    router = _router(server.base_url, "jar")
    server.reset()
    credentials = MappingCredentials({"T_API_KEY": "abc123456"})
    assert router.call("t/rest/x", {"pref": "a;role=admin"}, credentials=credentials).ok
    assert server.requests[-1].headers["Cookie"] == "pref=a%3Brole=admin; sid=abc123456"
