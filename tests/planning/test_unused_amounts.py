"""A sum of money the request writes that no step of its plan carries is said in the plan's
warnings (trial K R1: "주문 ORD-20240001 3만원 환불해줘", a partial refund, planned
``cancel_order``, which cancels the whole order and takes no amount, and said nothing)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import unused_values
from schemarouter.retrieval.analysis import find_values

WRITES = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})


def _router(operations: dict[str, dict[str, Any]]) -> SchemaRouter:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "paths": operations,
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    return router


ORDER_ID = {"name": "order_id", "in": "path", "required": True, "schema": {"type": "string"}}
CANCEL = {
    "/orders/{order_id}/cancel": {
        "post": {
            "operationId": "cancelOrder",
            "summary": "주문 취소 (결제 금액은 자동으로 환불됩니다)",
            "parameters": [ORDER_ID],
            "responses": {"200": {"description": "ok"}},
        }
    }
}
REFUND = {
    "/orders/{order_id}/refunds": {
        "post": {
            "operationId": "createRefund",
            "summary": "부분 환불 (refund part of an order)",
            "parameters": [
                ORDER_ID,
                {
                    "name": "amount_krw",
                    "in": "query",
                    "required": True,
                    "schema": {"type": "integer"},
                },
            ],
            "responses": {"200": {"description": "ok"}},
        }
    }
}


def test_a_plan_that_carries_no_amount_of_the_request_says_so() -> None:
    router = _router(CANCEL)
    query = "주문 ORD-20240001 3만원 환불해줘"
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == ("shop/rest/cancel_order",)
    assert any("amount 30000, which no step takes" in w for w in plan.warnings), plan.warnings


def test_a_plan_whose_step_carries_the_amount_says_nothing_of_it() -> None:
    router = _router(REFUND)
    plan = router.plan(
        PlanRequest(query="refund 30000 KRW of order ORD-20240001", allowed_effects=WRITES)
    )
    assert plan.route_ids == ("shop/rest/create_refund",)
    assert plan.steps[0].arguments == {"order_id": "ORD-20240001", "amount_krw": 30000}
    assert not any("amount" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    ("query", "arguments", "expected"),
    [
        ("주문 ORD-1 3만원 환불해줘", {"order_id": "ORD-1"}, ["30000"]),
        ("refund $25.50 of order 1234", {"order_id": "1234"}, ["25.50"]),
        ("pay 1,500 dollars", {"body": {"amount": 1500}}, []),
        ("transfer 2만 5천원", {"amount": "25000"}, []),
        ("ship a 3 kg parcel", {}, []),  # a weight is no money
        ("set the price 24.50", {}, []),  # a number with no currency says nothing
    ],
)
def test_which_amounts_no_step_carries(
    query: str, arguments: dict[str, Any], expected: list[str]
) -> None:
    warnings = unused_values([arguments], [], query)
    assert [w.split("amount ", 1)[1].split(",", 1)[0] for w in warnings] == expected


def test_an_acronym_is_no_formula_where_no_parameter_takes_one() -> None:
    """A shop's "stock level of SKU ABC-1" warned "the request names formula 'SKU', which
    no step takes as an argument" (S, K and U are elements; "CPU" too): where no parameter
    of the registry takes a formula, a token in capitals only is an acronym. A formula
    written as one ("NaCl") is still said, as in a registry that takes formulas
    (tests/test_router.py)."""
    stock = {
        "/inventory/{sku}": {
            "get": {
                "operationId": "getStock",
                "summary": "Stock level of a product",
                "parameters": [
                    {"name": "sku", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    router = _router(stock)
    for query, said in (
        ("stock level of SKU ABC-1", []),
        ("how many NaCl bags for SKU Q-7", ["NaCl"]),
    ):
        plan = router.plan(query)
        assert plan.route_ids == ("shop/rest/get_stock",)
        formulas = [w.split("'")[1] for w in plan.warnings if "formula '" in w]
        assert formulas == said, plan.warnings


@pytest.mark.parametrize(
    "query",
    [
        "show payslips for March 2026 for employee E-5",
        "invoices of sept 2025 for client C-1",
        "meetings on Friday 13 with team T-2",
        "sales report May 2024 for store S-9",
    ],
)
def test_a_month_or_a_day_is_no_thing_with_an_id(query: str) -> None:
    """Trial T6 (low): "payslips for March 2026" warned "the request names march id '2026'":
    a month and a day of the week are dates, not things an identifier follows. The id the
    request does name after its thing is still read and said."""
    values = [v for v in find_values(query) if v.kind == "identifier.named"]
    assert [v.of for v in values] == [query.split()[-2].lower()]
    warnings = unused_values([{}], values, query)
    assert len(warnings) == 1 and "id '" + query.split()[-1] + "'" in warnings[0], warnings
