"""An id written bare right after a refused one, in its place, is of the refused one's thing
(trial Y2: "주문 O-1 환불하지 말고 O-2 환불해줘" planned the refund with ``order_id`` missing,
O-1 refused and the bare O-2 read as no id: nothing could be sent)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.contrasted_ids import contrasted_ids

_S = {"type": "string"}


def _router() -> SchemaRouter:
    order_id = [{"name": "order_id", "in": "path", "required": True, "schema": _S}]
    ticket_id = [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}]
    ok = {"200": {"description": "ok"}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/orders/{order_id}/refund": {
                "parameters": order_id,
                "post": {"operationId": "refund_order", "summary": "Refund an order",
                         "responses": ok},
            },
            "/tickets/{ticket_id}/close": {
                "parameters": ticket_id,
                "post": {"operationId": "close_ticket", "summary": "Close a support ticket",
                         "responses": ok},
            },
        },
    }  # fmt: skip
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="desk")
    return router


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        ("주문 O-1 환불하지 말고 O-2 환불해줘", "refund_order", {"order_id": "O-2"}),
        ("주문 O-1 말고 O-2를 환불해줘", "refund_order", {"order_id": "O-2"}),
        ("티켓 T-1 말고 T-2 닫아줘", "close_ticket", {"ticket_id": "T-2"}),
        ("티켓 T-1 대신 T-2 닫아줘", "close_ticket", {"ticket_id": "T-2"}),
    ],
)
def test_the_id_in_place_of_a_refused_one_is_planned(
    query: str, route: str, arguments: dict[str, str]
) -> None:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = _router().plan(request)
    assert plan.route_ids == (f"desk/rest/{route}",)
    assert plan.steps[0].arguments == arguments and not plan.missing_arguments


@pytest.mark.parametrize(
    "query",
    [
        "주문 O-1 말고 T-2 환불해줘",  # another thing's shape: not an order's id
        "주문 O-1 말고 10042 환불해줘",
        "주문 O-1 환불하지 마",  # nothing in its place
        "주문 O-1 말고 주문 O-2도 말고 환불해줘",  # refused too
    ],
)
def test_no_id_of_another_shape_nor_a_refused_one_is_taken(query: str) -> None:
    router = _router()
    values = router.ranker.rank(query, 5).analysis.values
    added = contrasted_ids(values, query)[len(values) :]
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert not any(step.arguments.get("order_id") for step in plan.steps)
    assert [v.value for v in added] in ([], ["O-2"])  # a refused O-2 is read, then refused


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        ("T-2 티켓 닫아줘", "close_ticket", {"ticket_id": "T-2"}),
        ("O-1 주문을 환불해줘", "refund_order", {"order_id": "O-1"}),
        ("O-1 환불해줘", "refund_order", {}),  # a verb after it: no thing named
    ],
)
def test_an_id_written_before_its_korean_thing_word_is_that_things(
    query: str, route: str, arguments: dict[str, str]
) -> None:
    """Trial Y2: "T-1 티켓 보여줘" read the first ticket listed, and "T-2 티켓 닫아줘" left
    ``ticket_id`` open: the analysis reads a Korean thing word before its id only."""
    plan = _router().plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert plan.route_ids == (f"desk/rest/{route}",)
    assert plan.steps[0].arguments == arguments
