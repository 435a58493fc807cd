"""A change's noun asks to read, not to change (trial Z2).

Every effect allowed, "refunds of order O-1", "refund of order O-1" and "refunds for order
O-1" planned ``POST /orders/O-1/refund`` with ``{}``, a refund in full, "deletions of customer
C-1" ``DELETE /customers/C-1``, "cancellations of order O-1" the cancellation, and "close date
of ticket T-1", "ticket T-1 close reason" and "order O-1 cancel date" the close or the
cancellation, each ready to send: a change followed by "of" or by a noun it heads, or a noun
made of it, is a noun phrase. The commands still plan their changes."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import hashing_router, openapi_document, path_id

_S = {"type": "string"}


def _op(op: str, summary: str, *, body: bool = False) -> dict[str, Any]:
    schema = {"type": "object", "properties": {op: _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    out: dict[str, Any] = {"operationId": op, "summary": summary, "responses": {"200": ok}}
    if body:
        schema = {"type": "object", "properties": {"amount_cents": {"type": "integer"}}}
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return out


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    paths = {
        "/tickets": {"get": _op("list_tickets", "List support tickets")},
        "/tickets/{ticket_id}": {
            "parameters": path_id("ticket_id"),
            "get": _op("get_ticket", "Get a support ticket"),
            "delete": _op("delete_ticket", "Delete a support ticket"),
        },
        "/tickets/{ticket_id}/close": {
            "parameters": path_id("ticket_id"),
            "post": _op("close_ticket", "Close a support ticket"),
        },
        "/orders": {"get": _op("list_orders", "List orders")},
        "/orders/{order_id}": {"parameters": path_id("order_id"), "get": _op("get_order", "Get")},
        "/orders/{order_id}/refund": {
            "parameters": path_id("order_id"),
            "post": _op("refund_order", "Refund an order", body=True),
        },
        "/orders/{order_id}/cancel": {
            "parameters": path_id("order_id"),
            "post": _op("cancel_order", "Cancel an order"),
        },
        "/customers/{customer_id}": {
            "parameters": path_id("customer_id"),
            "get": _op("get_customer", "Get a customer"),
            "delete": _op("delete_customer", "Delete a customer"),
        },
    }
    return hashing_router(openapi_document("Desk", paths), "desk")


def _first(router: SchemaRouter, query: str) -> tuple[str, Effect, dict[str, Any], tuple[str, ...]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    step = plan.steps[0]
    effect = router.snapshot().routes[step.route_id].endpoint.effect
    return step.route_id.rsplit("/", 1)[-1], effect, dict(step.arguments), step.missing_parameters


@pytest.mark.parametrize(
    "query",
    [
        "refunds of order O-1",
        "refund of order O-1",
        "refunds for order O-1",
        "cancellations of order O-1",
        "deletions of customer C-1",
        "close date of ticket T-1",
        "ticket T-1 close reason",
        "order O-1 cancel date",
    ],
)
def test_a_change_s_noun_plans_no_change(router: SchemaRouter, query: str) -> None:
    route, effect, _, _ = _first(router, query)
    assert effect is Effect.READ, route


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        ("Refund order O-1", "refund_order", {"order_id": "O-1", "body": {}}),
        ("Cancel order O-1", "cancel_order", {"order_id": "O-1"}),
        ("Close ticket T-1", "close_ticket", {"ticket_id": "T-1"}),
        ("Delete customer C-1", "delete_customer", {"customer_id": "C-1"}),
    ],
)
def test_the_commands_still_plan_their_changes(
    router: SchemaRouter, query: str, route: str, arguments: dict[str, Any]
) -> None:
    assert _first(router, query)[:3:2] == (route, arguments)
