"""A request that asks no change plans a read, whatever change ranks first (trial Y2).

With every effect allowed, "주문 O-1 환불됐어?" ("was order O-1 refunded?") and "주문 O-1 환불
내역" (its refund history) planned ``POST /orders/O-1/refund`` with ``{}``, a refund in full,
and "고객 C-1 삭제됐어?" ("was customer C-1 deleted?") ``DELETE /customers/C-1``, each ready to
send: no clause asks a change, and the change ranked first was planned. Ranking is left as it
is: these run the planner on a given retrieval order."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.asked_changes import parts_by_change, undone_notes
from schemarouter.planning.planner import plan_routes

_S = {"type": "string"}


def _op(op: str, method: str = "get") -> dict[str, Any]:
    # each its own output, so that no read stands in for another (planning.named_lookup)
    schema = {"type": "object", "properties": {op: _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    out: dict[str, Any] = {"operationId": op, "responses": {"200": ok}}
    if op.startswith("refund"):
        schema = {"type": "object", "properties": {"amount_cents": {"type": "integer"}}}
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return {method: out}


def _path(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": _S}]


def _router() -> SchemaRouter:
    paths = {
        "/tickets": _op("list_tickets"),
        "/tickets/{ticket_id}": {
            "parameters": _path("ticket_id"),
            **_op("get_ticket"),
            **_op("update_ticket", "patch"),
            **_op("delete_ticket", "delete"),
        },
        "/orders/{order_id}": {"parameters": _path("order_id"), **_op("get_order")},
        "/orders/{order_id}/refund": {
            "parameters": _path("order_id"),
            **_op("refund_order", "post"),
        },
        "/orders/{order_id}/cancel": {
            "parameters": _path("order_id"),
            **_op("cancel_order", "post"),
        },
        "/customers/{customer_id}": {
            "parameters": _path("customer_id"),
            **_op("get_customer"),
            **_op("delete_customer", "delete"),
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


def _planned(query: str, ranked: list[str]) -> tuple[str, tuple[str, ...]]:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    order = [f"desk/rest/{r}" for r in ranked]
    plan = plan_routes(request, _router().snapshot(), ranked=order)
    return plan.steps[0].route_id.rsplit("/", 1)[-1], plan.warnings


_REFUND = ["refund_order", "get_order", "get_ticket"]
_DELETE = ["delete_customer", "delete_ticket", "list_tickets", "get_customer"]


@pytest.mark.parametrize(
    ("query", "ranked", "planned"),
    [
        ("주문 O-1 환불됐어?", _REFUND, "get_order"),
        ("주문 O-1 환불 내역", _REFUND, "get_order"),
        # the read of the thing the delete would delete, not the first read (list_tickets)
        ("고객 C-1 삭제됐어?", _DELETE, "get_customer"),
        ("고객 C-1 삭제 여부", _DELETE, "get_customer"),
        ("티켓 T-1 정보", ["update_ticket", "get_ticket"], "get_ticket"),
        ("Was order O-1 refunded?", _REFUND, "get_order"),
        # the refund route's own verb, then a read word: a noun (not "End my listing")
        ("refund status of order O-1", _REFUND, "get_order"),
        # a verb ranking knows, then a read word: the cancel was planned, ready to send
        ("cancel status of order O-1", ["cancel_order", "get_order", "get_ticket"], "get_order"),
    ],
)
def test_a_request_that_asks_no_change_plans_a_read(
    query: str, ranked: list[str], planned: str
) -> None:
    route, warnings = _planned(query, ranked)
    assert route == planned
    assert any(
        f"desk/rest/{planned} is planned before desk/rest/{ranked[0]}" in w for w in warnings
    )


@pytest.mark.parametrize(
    ("query", "ranked", "planned"),
    [
        ("주문 O-1 환불해줘", _REFUND, "refund_order"),
        ("주문 O-1 환불", _REFUND, "refund_order"),  # a noun ending its clause: a terse command
        ("고객 C-1 삭제해 주세요", _DELETE, "delete_customer"),
        # a command no table knows keeps the change ranked first
        ("티켓 T-1 에스컬레이션해줘", ["update_ticket", "get_ticket"], "update_ticket"),
    ],
)
def test_a_request_that_asks_a_change_keeps_it(query: str, ranked: list[str], planned: str) -> None:
    assert _planned(query, ranked)[0] == planned


def test_a_request_that_forbids_a_change_reads_nothing_in_its_place() -> None:
    """ "티켓 T-1 닫지 마" asks no read either: the change ranked first stays planned, taking no
    entry (planning.chained_needs), and no read of a listed ticket is sent for it."""
    route, _ = _planned("티켓 T-1 닫지 마", ["delete_ticket", "get_ticket", "list_tickets"])
    assert route == "delete_ticket"


@pytest.mark.parametrize(
    ("query", "ranked", "planned"),
    [
        # "order" is read as no verb where an order's id follows it: a refund was planned
        ("order O-1 refund history", _REFUND, "get_order"),
        ("customer C-1 deletion", _DELETE, "get_customer"),
        # a verb after the thing and its id still asks
        ("ticket T-1 delete", ["delete_ticket", "get_ticket"], "delete_ticket"),
        ("refund order O-1", _REFUND, "refund_order"),
    ],
)
def test_a_request_opening_with_a_thing_and_its_id_reads_no_verb_in_it(
    query: str, ranked: list[str], planned: str
) -> None:
    router = _router()
    values = router.ranker.rank(query, 5).analysis.values
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    order = [f"desk/rest/{r}" for r in ranked]
    plan = plan_routes(request, router.snapshot(), ranked=order, values=values)
    assert plan.steps[0].route_id == f"desk/rest/{planned}"


def test_a_change_no_part_asks_is_not_planned_for_a_request_asking_another() -> None:
    """Trial Y2: "주문 O-1 환불 내역 보여주고 티켓 T-1 닫아줘" (show O-1's refund history and
    close T-1) planned the refund of O-1, ranked first, ready to send."""
    route, warnings = _planned("주문 O-1 환불 내역 보여주고 티켓 T-1 닫아줘", _REFUND)
    assert route == "get_order"
    assert any("desk/rest/refund_order, ranked first, does another change" in w for w in warnings)
    # an update may make the change asked: it stays ("Close ticket T-2" by update_ticket)
    assert _planned("티켓 T-2 닫아줘", ["update_ticket", "get_ticket"])[0] == "update_ticket"


def test_a_part_that_asks_no_change_is_planned_by_a_read() -> None:
    """ "티켓 T-1 닫고 주문 O-1 환불 내역 보여줘": the part "주문 O-1 환불 내역 보여줘" had
    refund_order as its best route, and the plan refunded O-1."""
    snapshot = _router().snapshot()
    part = "주문 O-1 환불 내역 보여줘"
    order = ["refund_order", "get_order", "get_ticket"]
    scores = {f"desk/rest/{r}": {part: 1.0 - i / 10} for i, r in enumerate(order)}
    assert parts_by_change([(part, "desk/rest/refund_order")], scores, snapshot) == [
        (part, "desk/rest/get_order")
    ]
    (note,) = undone_notes(
        ["desk/rest/get_ticket", "desk/rest/get_order"], snapshot, "티켓 T-1 닫고 " + part
    )
    assert "asks to close; no planned step does close" in note
