"""A route that needs an identifier the request does not give gives way to one it can call
(trial O), but never to one that does more to the world: "status of my order", with writes
allowed, planned a shop's ``cancel_all_orders`` (a write with the lookup's fields and no
parameter) in place of ``get_order_status``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.planning.named_lookup import first_fillable

from servers.loopback import LoopbackServer, Request, Response, json_response

_OUT = {
    "200": {
        "description": "ok",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "status": {"type": "string", "description": "Order status."},
                    },
                }
            }
        },
    }
}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        "/orders/{order_id}": {
            "get": {
                "operationId": "get_order_status",
                "summary": "Get the status of an order",
                "parameters": [
                    {
                        "name": "order_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": _OUT,
            }
        },
        "/orders/cancel_all": {
            "post": {
                "operationId": "cancel_all_orders",
                "summary": "Cancel all open orders and return their status",
                "responses": _OUT,
            }
        },
    },
}


def _app(request: Request) -> Response:
    return json_response({"id": "o-1", "status": "cancelled"})


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def test_a_read_that_needs_an_unnamed_id_does_not_give_way_to_a_write(
    server: LoopbackServer,
) -> None:
    router = SchemaRouter(abstention=None, embedding_cache=None)
    router.add_openapi(DOCUMENT, provider="shop", base_url=server.base_url)
    request = PlanRequest(query="status of my order", allowed_effects=frozenset({"read", "write"}))
    plan = router.plan(request)
    assert plan.route_ids == ("shop/rest/get_order_status",)
    assert plan.missing_arguments == {"shop/rest/get_order_status": ("order_id",)}
    assert not any("in place of" in w for w in plan.warnings)
    # set cover's tie: the write is not taken for the read either
    routes = router.snapshot().routes
    tied = [routes["shop/rest/get_order_status"], routes["shop/rest/cancel_all_orders"]]
    assert first_fillable(tied, request.query, ()) == 0
    assert server.requests == []
