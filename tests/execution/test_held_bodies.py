"""Swagger 2 actions on an order as a marketplace's seller API documents them (trial 22, a
music-gear shop on Reverb): the order's id is a plain ``{id}`` after a qualifier segment
(``/my/orders/selling/{id}``), and the ``ship`` body, though it requires a carrier and a
tracking number, is not itself marked required.

"did order 88120 ship?" left ``id`` open (the segment before it is ``selling``, no thing),
and, once bound, "mark order 88123 as shipped, UPS 1Z999AA10123456784" sent the ship with no
body: the order marked shipped, the carrier and tracking number dropped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

_WRITES = ("read", "write", "destructive")
_ID = {"in": "path", "name": "id", "required": True, "type": "string"}
_SHIP_BODY = {
    "in": "body",
    "name": "body",
    "schema": {
        "type": "object",
        "properties": {
            "provider": {"type": "string", "description": "Shipping provider: UPS, USPS, FedEx"},
            "tracking_number": {"type": "string"},
        },
        "required": ["provider", "tracking_number"],
    },
}
DOCUMENT: dict[str, Any] = {
    "swagger": "2.0",
    "info": {"title": "Marketplace", "version": "3.0"},
    "host": "127.0.0.1",
    "basePath": "/api",
    "paths": {
        "/my/orders/selling/{id}": {
            "get": {"summary": "Returns order details for a seller", "parameters": [_ID]}
        },
        "/my/orders/selling/{id}/ship": {
            "post": {"summary": "Marks an order as shipped", "parameters": [_ID, _SHIP_BODY]}
        },
    },
}


def _app(request: Request) -> Response:
    return json_response({"order_number": request.path.split("/")[5], "status": "shipped"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> Iterator[SchemaRouter]:
    server.requests.clear()
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="market", base_url=f"{server.base_url}/api")
    yield router
    router.close()


def _sent(server: LoopbackServer) -> list[tuple[str, str, Any]]:
    return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]


def test_an_order_named_before_a_qualifier_segment_binds_its_plain_id(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(PlanRequest(query="did order 88120 ship?", allowed_effects=_WRITES))
    assert [s.route_id for s in plan.steps] == ["market/rest/get_my_orders_selling_id"]
    router.execute(plan, allow_effects=_WRITES, approve=lambda *_: True)
    assert _sent(server) == [("GET", "/api/my/orders/selling/88120", None)]


def test_a_change_given_values_for_its_optional_body_is_not_sent_without_it(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    text = "mark order 88123 as shipped, UPS 1Z999AA10123456784"
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    ship = "market/rest/post_my_orders_selling_ship"
    assert plan.steps[0].route_id == ship
    assert plan.steps[0].arguments["id"] == "88123"
    assert set(plan.missing_arguments[ship]) == {"body.provider", "body.tracking_number"}
    with pytest.raises(ParameterValidationError):
        router.execute(plan, allow_effects=_WRITES, approve=lambda *_: True)
    assert _sent(server) == []
    given = plan.with_arguments(
        ship, {"body": {"provider": "UPS", "tracking_number": "1Z999AA10123456784"}}
    )
    router.execute(given, allow_effects=_WRITES, approve=lambda *_: True)
    assert _sent(server) == [
        (
            "POST",
            "/api/my/orders/selling/88123/ship",
            {"provider": "UPS", "tracking_number": "1Z999AA10123456784"},
        )
    ]


def test_the_action_asked_with_nothing_more_still_goes_with_the_servers_default(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    plan = router.plan(PlanRequest(query="Mark order 88123 as shipped", allowed_effects=_WRITES))
    assert plan.missing_arguments == {}
    router.execute(plan, allow_effects=_WRITES, approve=lambda *_: True)
    assert _sent(server) == [("POST", "/api/my/orders/selling/88123/ship", None)]


_MARKS: dict[str, Any] = {
    **DOCUMENT,
    "paths": {
        "/my/orders/buying/{id}/mark_received": {
            "post": {"summary": "Marks an order as received by the buyer", "parameters": [_ID]}
        },
        "/my/orders/selling/{id}/ship": {
            "post": {"summary": "Marks an order as shipped", "parameters": [_ID]}
        },
    },
}


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("mark order 88123 shipped", "/api/my/orders/selling/88123/ship"),
        # the buyer's words rank mark_received first: it was planned and sent
        ("mark the buyer's order 88123 shipped", "/api/my/orders/selling/88123/ship"),
        (
            "mark order 88123 shipped, the buyer got the tracking",
            "/api/my/orders/selling/88123/ship",
        ),
        ("mark order 88123 as received", "/api/my/orders/buying/88123/mark_received"),
    ],
)
def test_mark_as_a_state_asks_the_change_of_that_state(
    server: LoopbackServer, text: str, path: str
) -> None:
    server.requests.clear()
    with SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None) as router:
        router.add_openapi(_MARKS, provider="market", base_url=f"{server.base_url}/api")
        plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
        router.execute(plan, allow_effects=_WRITES, approve=lambda *_: True)
    assert [(r.method, r.path) for r in server.requests] == [("POST", path)]
