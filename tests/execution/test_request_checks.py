"""What the gate refuses in a request beyond its JSON Schema, on a real loopback server
(trial N §8): a ``readOnly`` property sent in a body (an LLM copying a previous answer into a
create), and ``date``, ``date-time``, ``uuid`` and ``email`` values that are not one. Each is
refused before any request, naming the place; what is right reaches the server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

WRITE = {"allow_effects": ["write"], "approve": lambda route, args: True}
ITEM = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string", "readOnly": True, "description": "server-assigned"},
        "created_at": {"type": "string", "format": "date-time", "readOnly": True},
        "name": {"type": "string"},
        "owner": {"type": "string", "format": "email"},
        "stock": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "updated": {"type": "string", "format": "date-time", "readOnly": True},
                "units": {"type": "integer"},
            },
        },
    },
}


def _answer(request: Request) -> Response:
    return json_response({"id": "i-1", "name": "nut"}, status=201)


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_answer) as running:
        yield running


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _query(name: str, fmt: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": "string", "format": fmt}}


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    server.reset()
    item = {"$ref": "#/components/schemas/Item"}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Stock", "version": "1"},
        "servers": [{"url": server.base_url}],
        "components": {"schemas": {"Item": ITEM}},
        "paths": {
            "/items": {
                "post": {
                    "operationId": "createItem",
                    "requestBody": {"required": True, **_json(item)},
                    "responses": {"201": {"description": "created", **_json(item)}},
                },
                "get": {
                    "operationId": "listItems",
                    "parameters": [
                        _query("since", "date-time"),
                        _query("day", "date"),
                        _query("owner", "email"),
                        _query("region", "hostname"),  # other formats stay annotations
                    ],
                    "responses": {"200": {"description": "ok", **_json({"type": "object"})}},
                },
            },
            "/transfers/{transferId}": {
                "get": {
                    "operationId": "getTransfer",
                    "parameters": [
                        {
                            "name": "transferId",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string", "format": "uuid"},
                        }
                    ],
                    "responses": {"200": {"description": "ok", **_json({"type": "object"})}},
                }
            },
        },
    }
    built = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    built.add_openapi(document, provider="stock")
    return built


def _refused(router: SchemaRouter, route: str, arguments: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(ParameterValidationError) as caught:
        router.call(f"stock/rest/{route}", arguments, **WRITE)
    return str(caught.value), str(caught.value.json_path)  # type: ignore[attr-defined]


def test_a_read_only_property_in_a_body_is_refused_before_any_request(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    body = {"name": "nut", "id": "forged-id"}
    message, path = _refused(router, "create_item", {"body": body})
    assert "'id' is readOnly: the server sets it" in message and path == "$.body.id"
    created = {"name": "nut", "created_at": "1999-01-01T00:00:00Z"}
    message, path = _refused(router, "create_item", {"body": created})
    assert "'created_at' is readOnly" in message and path == "$.body.created_at"
    # in a closed object too, said as read-only rather than as an unexpected key
    nested = {"name": "nut", "stock": {"units": 3, "updated": "2024-01-01T00:00:00Z"}}
    message, path = _refused(router, "create_item", {"body": nested})
    assert "'updated' is readOnly" in message and path == "$.body.stock.updated"
    assert server.requests == []
    sent = {"name": "nut", "owner": "ann@example.org", "stock": {"units": 3}}
    assert router.call("stock/rest/create_item", {"body": sent}, **WRITE).ok
    assert [json.loads(r.body) for r in server.requests] == [sent]


@pytest.mark.parametrize(
    ("route", "arguments", "bad"),
    [
        ("list_items", {"since": "yesterday"}, "'yesterday' is not a 'date-time'"),
        ("list_items", {"since": "2024-02-30T10:00:00Z"}, "is not a 'date-time'"),
        ("list_items", {"day": "2024-13-02"}, "'2024-13-02' is not a 'date'"),
        ("list_items", {"day": "last monday"}, "is not a 'date'"),
        ("list_items", {"owner": "ann at example.org"}, "is not a 'email'"),
        ("get_transfer", {"transferId": "not-a-uuid"}, "'not-a-uuid' is not a 'uuid'"),
        ("create_item", {"body": {"name": "n", "owner": "nobody"}}, "is not a 'email'"),
    ],
)
def test_a_value_that_is_not_its_format_is_refused_before_any_request(
    router: SchemaRouter, server: LoopbackServer, route: str, arguments: dict[str, Any], bad: str
) -> None:
    message, _ = _refused(router, route, arguments)
    assert bad in message
    assert server.requests == []


def test_values_of_their_format_reach_the_server(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    good = {
        "since": "2024-05-01T10:00:00+02:00",
        "day": "2024-02-29",
        "owner": "ann@example.org",
        "region": "not a hostname",  # an annotation only
    }
    assert router.call("stock/rest/list_items", good).ok
    assert router.call("stock/rest/list_items", {"since": "2024-05-01T10:00:00"}).ok  # no offset
    uuid = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
    assert router.call("stock/rest/get_transfer", {"transferId": uuid}).ok
    assert [r.path for r in server.requests] == ["/items", "/items", f"/transfers/{uuid}"]
