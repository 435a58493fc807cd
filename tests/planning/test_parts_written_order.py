"""The steps of a request of several parts run in the order the request writes its parts
(trial Z2's desk): "Refund order O-1, then delete customer C-1" planned the deletion, ranked
best, before the refund, so an agent running the plan deleted the customer first."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, openapi_document, path_id

_S = {"type": "string"}
_AMOUNT = {"type": "object", "properties": {"amount_cents": {"type": "integer"}}}
_REFUND = {"application/json": {"schema": _AMOUNT}}


def _op(op: str, summary: str, body: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {op: _S}})
    if body:
        out["requestBody"] = {"required": True, "content": _REFUND}
    return out


DESK = openapi_document(
    "Desk",
    {
        "/tickets/{ticket_id}": {
            "parameters": path_id("ticket_id"),
            "get": _op("get_ticket", "Get a ticket"),
            "delete": _op("delete_ticket", "Delete a support ticket"),
        },
        "/tickets/{ticket_id}/close": {
            "parameters": path_id("ticket_id"),
            "post": _op("close_ticket", "Close a support ticket"),
        },
        "/orders/{order_id}": {
            "parameters": path_id("order_id"),
            "get": _op("get_order", "Get an order"),
        },
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
    },
)


def _planned(query: str) -> tuple[list[str], tuple[str, ...]]:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = hashing_router(DESK, "desk").plan(request, max_calls=3)
    return [s.route_id.rsplit("/", 1)[-1] for s in plan.steps], plan.warnings


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        ("Refund order O-1, then delete customer C-1", ["refund_order", "delete_customer"]),
        ("Refund order O-1 and then close ticket T-1", ["refund_order", "close_ticket"]),
        # written in the order the ranking plans them: nothing moves
        ("Close ticket T-1 and also refund order O-1", ["close_ticket", "refund_order"]),
    ],
)
def test_each_part_is_planned_in_the_order_the_request_writes_it(
    query: str, steps: list[str]
) -> None:
    planned, warnings = _planned(query)
    assert planned == steps
    said = [w for w in warnings if w.startswith("the request has several parts")]
    assert len(said) == 1


def test_the_note_says_when_the_order_is_the_requests() -> None:
    _, warnings = _planned("Refund order O-1, then delete customer C-1")
    assert any("in the order the request writes them" in w for w in warnings), warnings


@pytest.fixture(scope="module")
def desk() -> SchemaRouter:
    """The desk on the packaged encoder: a part written "refunding order O-1" finds
    refund_order, which hashing's exact words do not."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(DESK, provider="desk")
    return router


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        # the part after "after" happens first; the deletion was planned alone, ready to send
        ("Delete customer C-1 after refunding order O-1", ["refund_order", "delete_customer"]),
        ("After refunding order O-1, delete customer C-1", ["refund_order", "delete_customer"]),
        ("Close ticket T-1 after cancelling order O-1", ["cancel_order", "close_ticket"]),
        ("Cancel order O-1 before closing ticket T-1", ["cancel_order", "close_ticket"]),
        ("Before closing ticket T-1, cancel order O-1", ["cancel_order", "close_ticket"]),
    ],
)
def test_after_and_before_order_the_parts_as_they_say(
    desk: SchemaRouter, query: str, steps: list[str]
) -> None:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = desk.plan(request, max_calls=3)
    assert [s.route_id.rsplit("/", 1)[-1] for s in plan.steps] == steps
    # each step takes its own part's id
    own = {"refund_order": ("order_id", "O-1"), "cancel_order": ("order_id", "O-1")}
    own |= {"delete_customer": ("customer_id", "C-1"), "close_ticket": ("ticket_id", "T-1")}
    for step in plan.steps:
        name, value = own[step.route_id.rsplit("/", 1)[-1]]
        assert step.arguments[name] == value


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        # "then delete it" deletes the ticket closed first (it went unplanned, named only)
        ("Close ticket T-1, then delete it", [("close_ticket", "T-1"), ("delete_ticket", "T-1")]),
        ("Refund order O-1, then cancel it", [("refund_order", "O-1"), ("cancel_order", "O-1")]),
    ],
)
def test_a_part_that_is_a_verb_and_a_pronoun_changes_the_thing_before(
    desk: SchemaRouter, query: str, steps: list[tuple[str, str]]
) -> None:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = desk.plan(request, max_calls=3)
    planned = [
        (s.route_id.rsplit("/", 1)[-1], next(iter(s.arguments.values()))) for s in plan.steps
    ]
    assert planned == steps
