"""A change whose request sets a condition no step checks is not planned, and the plan says so.

"Refund order O-1 unless it shipped" planned ``POST /orders/O-1/refund`` with ``{}`` (a refund
in full, trial X2's empty body) and "Close ticket T-1 if it is still open" the close, with no
word that the condition is checked by nothing: the approval saw a plain refund (trial V3).
A warning said so after that; since the tenth security review the change is withheld and a
read of what the condition is about planned in its place, where a route serves it
(tests/planning/test_conditional_changes_not_sent.py sends the plans)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

_S = {"type": "string"}
_OK = {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
}
_WRITES = ("read", "write", "destructive")


def _change(operation: str, summary: str, thing: str) -> dict[str, Any]:
    return {
        "post": {
            "operationId": operation,
            "summary": summary,
            "parameters": [{"name": f"{thing}_id", "in": "path", "required": True, "schema": _S}],
            "responses": _OK,
        }
    }


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/orders/{order_id}/refund": _change("refund_order", "Refund an order", "order"),
            "/tickets/{ticket_id}/close": _change("close_ticket", "Close a ticket", "ticket"),
            "/tickets/{ticket_id}": {
                "get": {
                    "operationId": "get_ticket",
                    "summary": "Get a ticket",
                    "parameters": [
                        {"name": "ticket_id", "in": "path", "required": True, "schema": _S}
                    ],
                    "responses": _OK,
                }
            },
        },
    }
    router.add_openapi(document, provider="shop")
    return router


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Refund order O-1 unless it shipped", "unless it shipped"),
        ("Close ticket T-1 if it is still open", "if it is still open"),
        ("Only if it is unpaid, refund order O-1", "Only if it is unpaid"),
        ("Close ticket T-1 when the customer replies", "when the customer replies"),
        ("티켓 T-1이 열려 있으면 닫아줘", "티켓 T-1이 열려 있으면"),
        ("주문 O-1이 배송되지 않은 경우에만 환불해줘", "주문 O-1이 배송되지 않은 경우에만"),
    ],
)
def test_a_condition_no_step_checks_is_said(
    router: SchemaRouter, text: str, condition: str
) -> None:
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    # the change is withheld; a ticket's condition is read by get_ticket, an order's by none
    reads = ["shop/rest/get_ticket"] if "T-1" in text else []
    assert list(plan.route_ids) == reads, plan.warnings
    said = [w for w in plan.warnings if "condition" in w]
    assert len(said) == 1, plan.warnings
    assert repr(condition) in said[0], said
    assert "the change is not planned" in said[0]
    if not reads:
        assert plan.reason == said[0]


@pytest.mark.parametrize(
    "text",
    [
        "Refund order O-1",
        "Close ticket T-1",
        "Get ticket T-1 if it exists",  # a read changes nothing
        "Close the ticket titled 'what if it breaks'",
        "티켓 T-1 닫으면 안 돼",  # forbids, sets no condition
        "Close ticket T-1 if possible",  # a courtesy
        "Please refund order O-1 if you can",
        "가능하면 티켓 T-1 닫아줘",
    ],
)
def test_a_change_without_a_condition_or_a_read_says_nothing_of_one(
    router: SchemaRouter, text: str
) -> None:
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    assert plan.steps, plan.reason
    assert not [w for w in plan.warnings if "condition" in w], plan.warnings
