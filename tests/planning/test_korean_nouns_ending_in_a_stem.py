"""A Korean noun that ends in a verb's stem asks no change (review 17): 달 (attach: "댓글
달아줘", add a comment) was read inside 배달 (delivery) and 달을 (a month, the moon), so "주문
O-1의 배달을 보여줘" (show me order O-1's delivery) and "주문 O-1 배달기사 알려줘" asked a create
and SENT ``POST /orders/O-1/delivery``, and "지난 달을 기준으로 티켓 목록 보여줘" (list the
tickets as of last month) planned ``create_ticket`` in the list's place. The server is real
(loopback) and records what it is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter import Effect, PlanRequest
from schemarouter.planning.asked_changes import asked_verbs

from helpers import desk_paths, path_id

_S = {"type": "string"}


def _with_body(op: str, summary: str, field: str) -> dict[str, Any]:
    out = answering_op(op, summary)
    schema = {"type": "object", "properties": {field: _S}, "required": [field]}
    out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return out


def _paths() -> dict[str, Any]:
    """The desk, tickets with comments, and an order's delivery a POST creates (no body)."""
    return desk_paths(answering_op) | {
        "/tickets": {
            "get": answering_op("list_tickets", "List tickets"),
            "post": _with_body("create_ticket", "Create a ticket", "title"),
        },
        "/tickets/{ticket_id}/comments": {
            "parameters": path_id("ticket_id"),
            "post": _with_body("add_comment", "Add a comment to a ticket", "body"),
        },
        "/orders/{order_id}/delivery": {
            "parameters": path_id("order_id"),
            "get": answering_op("get_delivery", "Get the delivery of an order"),
            "post": answering_op("create_delivery", "Create a delivery for an order"),
        },
    }


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(_paths()) as served:
        yield served


@pytest.mark.parametrize(
    "query",
    ["주문 O-1의 배달을 보여줘", "주문 O-1 배달기사 알려줘", "지난 달을 기준으로 티켓 목록 보여줘"],
)
def test_a_read_of_a_noun_ending_in_a_stem_sends_no_change(desk: Served, query: str) -> None:
    plan, calls = sent(desk, query)
    assert calls and all(method == "GET" for method, _ in calls), (calls, plan.route_ids)


def test_the_stem_as_a_verb_still_asks_its_change(desk: Served) -> None:
    assert asked_verbs("티켓 T-1에 댓글 달아줘") == {"create"}
    assert asked_verbs("티켓 T-1에 댓글달아줘") == {"create"}
    assert asked_verbs("티켓 T-1 닫을게요") == {"close"}
    router, _ = desk
    plan = router.plan(
        PlanRequest(query="티켓 T-1에 댓글 달아줘", allowed_effects=frozenset(Effect))
    )
    assert plan.route_ids == ("desk/rest/add_comment",)
