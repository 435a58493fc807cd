"""A verb's state fills a change's value, never a read's filter (trial Y1).

Since "Close ticket T-1002" fills the body's ``status="closed"``, a read's enum filter took
the state of any verb a part of the request opens with: "List past orders and cancel order
O-17" planned ``order_history(status="cancelled")`` (the orders the user wants, less all the
others); and a word before a hyphen ("Ship-to address", "Refund-eligible") was read as the
verb."""

from __future__ import annotations

from typing import Any, Literal

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments

STATUS = {"type": "string", "enum": ["placed", "shipped", "cancelled", "refunded"]}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "shop", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/v1"}],
    "paths": {
        "/orders/{id}": {
            "patch": {
                "operationId": "updateOrder",
                "summary": "Update an order's status or note.",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"status": STATUS, "note": {"type": "string"}},
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def order_history(
    status: Literal["placed", "shipped", "cancelled", "refunded"] | None = None,
) -> list[str]:
    """List past orders, by status."""
    return []


def _router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="desk")
    router.add_callable(order_history, provider="shop")
    return router


def test_a_reads_filter_takes_no_verbs_state() -> None:
    router = _router()
    for request in (
        "List past orders and cancel order O-17",
        "Show past orders; cancel order O-17",
        "Refund-eligible past orders",
        "Ship-to addresses of past orders",
    ):
        plan = router.plan(PlanRequest(query=request, providers=("shop",)))
        assert plan.route_ids == ("shop/python/order_history",)
        assert "status" not in dict(plan.steps[0].arguments), request
    # a filter the request names outright is still filled
    plan = router.plan(PlanRequest(query="List the refunded past orders", providers=("shop",)))
    assert dict(plan.steps[0].arguments) == {"status": "refunded"}


def test_a_word_before_a_hyphen_is_no_verb_of_a_change() -> None:
    route = _router().snapshot().routes["desk/rest/update_order"]
    request = "Ship-to address of order O-17 changed: update its note"
    assert "status" not in fill_arguments(route, request).get("body", {})
    assert fill_arguments(route, "Ship order O-17")["body"] == {"status": "shipped"}
