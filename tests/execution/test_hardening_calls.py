"""Calls under the second adversarial review (issue #24): redirects to hosts that are no valid
IDNA, arguments keyed by something other than text, and parameters that alias the
credential's own header or query name. Each test is a row of docs/faults.md."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import ParameterLocation, Route
from schemarouter.errors import (
    DocumentError,
    InvocationError,
    ParameterValidationError,
    PolicyError,
)
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.registry.catalog import load_catalog

from servers import catalogs
from servers.hostile import IDNA_REDIRECTS, HostileApp, hostile_provider
from servers.loopback import LoopbackServer, Request, Response, json_response

ONCE = ExecutionPolicy(max_attempts=1, timeout=5.0)
MODES = pytest.mark.parametrize("mode", ["sync", "async"])
KEY = "the-real-key"
FORGED = "the-plan-s-value"


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


@pytest.fixture(scope="module")
def hostile() -> Iterator[LoopbackServer]:
    with LoopbackServer(HostileApp()) as server:
        yield server


# -- 4: a redirect to a host that is no valid IDNA --------------------------------------------


@MODES
@pytest.mark.parametrize("path", sorted(IDNA_REDIRECTS))
def test_a_redirect_to_an_invalid_idna_host_is_a_typed_refusal(
    mode: str, path: str, hostile: LoopbackServer, tmp_path: Path
) -> None:
    """``Location: http://xn--/`` (and ``xn--a``, ``xn--ls8h.la``): httpx builds the next
    request while it reads the response and idna raised its own ``IDNAError`` out of
    ``execute()`` and ``router.call()``."""
    router = _router()
    catalogs.register(router, tmp_path / "hostile.json", [hostile_provider(hostile.base_url)])
    route_id = "hostile/rest/" + path.removeprefix("/api/").replace("-", "_")
    snapshot = router.snapshot()
    step = catalogs.step(snapshot, route_id, ["material_id"], {}, fallbacks=False)
    with pytest.raises(InvocationError, match="refused a redirect to an invalid URL"):
        catalogs.run(mode, router, catalogs.plan(snapshot, step), policy=ONCE)
    with pytest.raises(InvocationError, match="invalid URL"):
        if mode == "sync":
            router.call(route_id, {}, policy=ONCE)
        else:
            import asyncio

            asyncio.run(router.acall(route_id, {}, policy=ONCE))


# -- 8: arguments whose keys are not text ------------------------------------------------------


def _echo(request: Request) -> Response:
    return json_response(
        {"query": {k: v[0] for k, v in request.query.items()}, "headers": request.headers}
    )


@pytest.fixture(scope="module")
def echo() -> Iterator[LoopbackServer]:
    with LoopbackServer(_echo) as server:
        yield server


def _oas(
    base_url: str, params: list[dict[str, Any]], security: dict[str, Any] | None = None
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "keyed", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/echo": {
                "get": {
                    "operationId": "echo",
                    "summary": "Echo what the server saw",
                    "parameters": params,
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            }
        },
    }
    if security:
        document["components"] = {"securitySchemes": {"key": security}}
        document["security"] = [{"key": []}]
    return document


def _param(name: str, where: str) -> dict[str, Any]:
    return {"name": name, "in": where, "schema": {"type": "string"}}


@MODES
@pytest.mark.parametrize("arguments", [{"m": "1", 5: 1}, {3.5: "x"}, {None: 1}, {("a",): 1}])
def test_arguments_keyed_by_something_other_than_text_are_a_typed_refusal(
    mode: str, arguments: dict[Any, Any], echo: LoopbackServer
) -> None:
    """``router.call(route, {"m": "1", 5: 1})`` raised pydantic's own ValidationError."""
    router = _router()
    router.add_openapi(_oas(echo.base_url, [_param("m", "query")]), provider="keyed")
    echo.reset()
    route_id = "keyed/rest/echo"
    with pytest.raises(ParameterValidationError, match="argument names must be text") as caught:
        if mode == "sync":
            router.call(route_id, arguments)
        else:
            import asyncio

            asyncio.run(router.acall(route_id, arguments))
    assert getattr(caught.value, "json_path", None) == "$"
    assert echo.paths() == []


# -- 10: a parameter that aliases the credential's own name ------------------------------------

HEADER_AUTH = {"type": "apiKey", "in": "header", "name": "X-API-KEY"}
QUERY_AUTH = {"type": "apiKey", "in": "query", "name": "api_key"}
ALIASES = [
    (HEADER_AUTH, "x_api_key", "header"),
    (HEADER_AUTH, "x-api-key", "header"),
    (HEADER_AUTH, "X.Api.Key", "header"),
    (QUERY_AUTH, "API_KEY", "query"),
    (QUERY_AUTH, "api_key[]", "query"),
    (QUERY_AUTH, "api%5Fkey", "query"),
    (QUERY_AUTH, "Api-Key", "query"),
    (QUERY_AUTH, "api_key", "cookie"),
]


def _sent(server: LoopbackServer) -> list[tuple[str, str]]:
    """Every header line and query pair the server received (names as sent)."""
    request = server.requests[-1]
    query = [(k, v) for k, values in request.query.items() for v in values]
    return [*request.header_lines, *query]


@pytest.mark.parametrize(("security", "alias", "where"), ALIASES)
def test_an_openapi_parameter_aliasing_the_credential_is_never_sent(
    security: dict[str, Any], alias: str, where: str, echo: LoopbackServer
) -> None:
    """``x_api_key`` beside the ``X-API-KEY`` header key, ``API_KEY`` / ``api_key[]`` /
    ``api%5Fkey`` beside the ``api_key`` query key: each registered, and a plan's value for it
    went out beside the real credential (CGI/WSGI fold the names into one variable)."""
    router = _router()
    params = [_param("m", "query"), _param(alias, where)]
    router.add_openapi(_oas(echo.base_url, params, security), provider="keyed")
    route = router.snapshot().route("keyed/rest/echo")
    assert [p.name for p in route.endpoint.parameters] == ["m"]  # the alias is dropped
    echo.reset()
    credentials = MappingCredentials({route.access.auth.credentials[0]: KEY})
    with pytest.raises(ParameterValidationError, match="no parameter"):
        router.call(route.route_id, {"m": "1", alias: FORGED}, credentials=credentials)
    result = router.call(route.route_id, {"m": "1"}, credentials=credentials)
    assert result.ok
    sent = _sent(echo)
    assert (security["name"].lower(), KEY) in [(k.lower(), v) for k, v in sent]
    assert FORGED not in json.dumps(sent)


@pytest.mark.parametrize(("security", "alias", "where"), ALIASES)
def test_a_catalog_parameter_aliasing_the_credential_is_refused(
    security: dict[str, Any], alias: str, where: str, tmp_path: Path
) -> None:
    endpoint = catalogs.endpoint("echo", "/echo", params=[catalogs.param(alias, where)])
    auth = {
        "credentials": ["KEYED_API_KEY"],
        "scheme": "api_key",
        "location": security["in"],
        "parameter": security["name"],
    }
    path = catalogs.write_catalog(
        tmp_path / "keyed.json",
        [catalogs.provider("keyed", "http://127.0.0.1:9/api", [endpoint], auth=auth)],
    )
    with pytest.raises(DocumentError, match="where the credential travels") as caught:
        load_catalog(path)
    assert "parameters" in str(caught.value)


@pytest.mark.parametrize(("security", "alias", "where"), ALIASES)
def test_a_route_made_by_hand_never_sends_an_alias_beside_the_credential(
    security: dict[str, Any], alias: str, where: str, echo: LoopbackServer
) -> None:
    """A route whose parameters were not checked at registration (made in code, not read from
    a document): the executor leaves the alias out where it places the credential."""
    router = _router()
    router.add_openapi(_oas(echo.base_url, [_param("m", "query")], security), provider="keyed")
    route = router.snapshot().route("keyed/rest/echo")
    extra = route.endpoint.parameters[0].model_copy(
        update={"name": alias, "location": ParameterLocation(where)}
    )
    forged = _with_parameter(route, extra)
    from schemarouter.execution.credentials import Redactor
    from schemarouter.execution.invokers._request import build_request

    request = build_request(
        forged,
        {"m": "1", alias: FORGED},
        credentials=MappingCredentials({route.access.auth.credentials[0]: KEY}),
        redactor=Redactor(),
        timeout=5.0,
        where="test",
    )
    wire = str(request.url) + json.dumps(dict(request.headers))
    assert KEY in wire and FORGED not in wire


def _with_parameter(route: Route, extra: Any) -> Route:
    endpoint = route.endpoint.model_copy(update={"parameters": (*route.endpoint.parameters, extra)})
    return route.model_copy(update={"endpoint": endpoint})


def test_parameters_that_only_look_alike_still_register(echo: LoopbackServer) -> None:
    """``api_key_id`` and a path parameter ``api_key`` are not where the key travels."""
    router = _router()
    params = [_param("api_key_id", "query"), _param("x-api-keys", "header")]
    router.add_openapi(_oas(echo.base_url, params, QUERY_AUTH), provider="keyed")
    names = [p.name for p in router.snapshot().route("keyed/rest/echo").endpoint.parameters]
    assert names == ["api_key_id", "x-api-keys"]


@MODES
def test_an_approver_that_raises_is_named_with_its_message_redacted(
    mode: str, echo: LoopbackServer
) -> None:
    """Trial P §7: an approve callback that raised was reported as "approval callback failed
    ...: RuntimeError" without what it said. Its message is in the error now, with every
    credential value redacted like any other message, and nothing is sent."""
    router = _router()
    router.add_openapi(
        _oas(echo.base_url, [_param("m", "query")], HEADER_AUTH),
        provider="keyed",
        effect_overrides={"echo": "write"},
    )
    route = router.snapshot().route("keyed/rest/echo")
    credentials = MappingCredentials({route.access.auth.credentials[0]: KEY})
    echo.reset()

    def approve(route: Route, arguments: Any) -> bool:
        raise RuntimeError(f"the reviewer is offline (key {KEY})")

    options: dict[str, Any] = {
        "credentials": credentials,
        "allow_effects": ["read", "write"],
        "approve": approve,
    }
    with pytest.raises(PolicyError) as caught:
        if mode == "sync":
            router.call(route.route_id, {"m": "1"}, **options)
        else:
            asyncio.run(router.acall(route.route_id, {"m": "1"}, **options))
    text = str(caught.value)
    assert "RuntimeError: the reviewer is offline (key [redacted])" in text
    assert KEY not in text
    assert echo.requests == []
