"""A change whose entry the request picked by a filter runs only where the list returns one
(trial W2).

"Cancel the order of joe@example.com" plans ``list_orders(customer_email=...)`` and binds
``cancel_order``'s id to its first entry: the request names one order. Joe has two, and the
first of them was cancelled, an order the user did not pick. Now the change is not sent,
and the error says how many matched; where the lookup matches one it is sent, and where the
request says "the first", the first of several is still taken (with a warning)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
from tests.helpdesk_api import sent
from tests.helpers import WRITES, ok, served_router
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ORDER = {"type": "object", "properties": {"id": _S, "customer_email": _S}}
_PAGE = {"type": "object", "properties": {"items": {"type": "array", "items": _ORDER}}}
_EMAIL = {"type": "string", "format": "email"}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1.0"},
    "paths": {
        "/orders": {
            "get": {
                "operationId": "list_orders",
                "summary": "List shop orders, filtered by customer email",
                "parameters": [
                    {"name": "customer_email", "in": "query", "schema": _EMAIL},
                ],
                "responses": ok(_PAGE),
            }
        },
        "/orders/{order_id}/cancel": {
            "post": {
                "operationId": "cancel_order",
                "summary": "Cancel a shop order",
                "parameters": [{"name": "order_id", "in": "path", "required": True, "schema": _S}],
                "responses": ok(_ORDER),
            }
        },
    },
}
ORDERS = [
    {"id": "O-1", "customer_email": "ann@example.com"},
    {"id": "O-2", "customer_email": "joe@example.com"},
    {"id": "O-3", "customer_email": "joe@example.com"},
]


def _app(request: Request) -> Response:
    if request.method == "GET":
        email = request.arg("customer_email")
        return json_response({"items": [o for o in ORDERS if email in (None, o["customer_email"])]})
    order = request.path.split("/")[2]
    return json_response(next(o for o in ORDERS if o["id"] == order))


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(DOCUMENT, server, "shop")


def _run(router: SchemaRouter, text: str) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("shop/rest/list_orders", "shop/rest/cancel_order")
    assert plan.steps[1].bindings
    seen: list[tuple[str, dict[str, Any]]] = []

    def approve(route: Any, arguments: dict[str, Any]) -> bool:
        seen.append((route.route_id, dict(arguments)))
        return True

    return router.execute(plan, allow_effects=WRITES, approve=approve), seen


def test_a_change_picked_by_a_filter_that_matches_several_is_not_sent(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    with pytest.raises(ExecutionError, match=r"returned 2 values .* the change is not sent"):
        _run(router, "Cancel the order of joe@example.com")
    assert sent(server) == []
    assert [r.arg("customer_email") for r in server.requests] == ["joe@example.com"]


def test_a_change_picked_by_a_filter_that_matches_one_is_sent(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    result, seen = _run(router, "Cancel the order of ann@example.com")
    assert sent(server) == ["POST /orders/O-1/cancel"]
    assert seen == [("shop/rest/cancel_order", {"order_id": "O-1"})]
    assert result.steps[1].error is None


def test_a_change_of_the_first_entry_takes_the_first_of_several(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    result, _ = _run(router, "Cancel the first order of joe@example.com")
    assert sent(server) == ["POST /orders/O-2/cancel"]
    assert any("is the first of 2 values" in w for w in result.warnings), json.dumps(
        list(result.warnings)
    )


def test_aexecute_keeps_the_rule(router: SchemaRouter, server: LoopbackServer) -> None:
    """``aexecute`` binds through the same :class:`~schemarouter.execution.loop.Run` as
    ``execute``: a change picked by a filter that matches several is not sent there either,
    and one that matches one is (trial V1: only ``execute`` was tested)."""
    import asyncio

    def planned(text: str) -> Any:
        return router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)

    with pytest.raises(ExecutionError, match=r"returned 2 values .* the change is not sent"):
        asyncio.run(
            router.aexecute(
                planned("Cancel the order of joe@example.com"),
                allow_effects=WRITES,
                approve=lambda *_: True,
            )
        )
    assert sent(server) == []
    result = asyncio.run(
        router.aexecute(
            planned("Cancel the order of ann@example.com"),
            allow_effects=WRITES,
            approve=lambda *_: True,
        )
    )
    assert sent(server) == ["POST /orders/O-1/cancel"]
    assert result.steps[1].error is None
