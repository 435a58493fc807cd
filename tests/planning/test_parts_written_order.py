"""The steps of a request of several parts run in the order the request writes its parts
(trial Z2's desk): "Refund order O-1, then delete customer C-1" planned the deletion, ranked
best, before the refund, so an agent running the plan deleted the customer first."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_S = {"type": "string"}


def _op(op: str, summary: str, body: bool = False) -> dict[str, Any]:
    schema = {"type": "object", "properties": {op: _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    out: dict[str, Any] = {"operationId": op, "summary": summary, "responses": {"200": ok}}
    if body:
        props = {"amount_cents": {"type": "integer"}}
        content = {"application/json": {"schema": {"type": "object", "properties": props}}}
        out["requestBody"] = {"required": True, "content": content}
    return out


def _path(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": _S}]


def _router() -> SchemaRouter:
    paths = {
        "/tickets/{ticket_id}": {
            "parameters": _path("ticket_id"),
            "get": _op("get_ticket", "Get a ticket"),
        },
        "/tickets/{ticket_id}/close": {
            "parameters": _path("ticket_id"),
            "post": _op("close_ticket", "Close a support ticket"),
        },
        "/orders/{order_id}": {
            "parameters": _path("order_id"),
            "get": _op("get_order", "Get an order"),
        },
        "/orders/{order_id}/refund": {
            "parameters": _path("order_id"),
            "post": _op("refund_order", "Refund an order", body=True),
        },
        "/customers/{customer_id}": {
            "parameters": _path("customer_id"),
            "get": _op("get_customer", "Get a customer"),
            "delete": _op("delete_customer", "Delete a customer"),
        },
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="desk")
    return router


def _planned(query: str) -> tuple[list[str], tuple[str, ...]]:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = _router().plan(request, max_calls=3)
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
