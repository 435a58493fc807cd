"""A thing's number is not its id (trial V2).

"Cancel order #10043" sent ``POST /orders/10043/cancel``: retrieval reads "order #10043" as
the order's id, though the order ids are text and ``list_orders`` filters by ``number``.
"Cancel order number 10042" listed the orders by that number but took nothing from the list,
the request saying no "the". Both now list the orders by number and bind the id from the one
entry returned; an id that is a number ("issue #42", ``issue_number``) keeps the digits."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, hashing_router, ok, page

_S = {"type": "string"}
_ORDER = {"type": "object", "properties": {"id": _S, "number": _S, "status": _S}}
_ISSUE = {"type": "object", "properties": {"number": {"type": "integer"}, "title": _S}}


def _query(name: str, schema: dict[str, Any] = _S) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _path(name: str, schema: dict[str, Any] = _S) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": schema}]


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/orders": {
            "get": {
                "operationId": "list_orders",
                "summary": "List shop orders, filtered by order number or status",
                "parameters": [_query("number"), _query("status")],
                "responses": page(_ORDER),
            }
        },
        "/orders/{order_id}/cancel": {
            "post": {
                "operationId": "cancel_order",
                "summary": "Cancel an order that has not shipped",
                "parameters": _path("order_id"),
                "responses": ok(_ORDER),
            }
        },
        "/issues": {
            "get": {
                "operationId": "list_issues",
                "summary": "List issues, filtered by number",
                "parameters": [_query("number", {"type": "integer"})],
                "responses": page(_ISSUE),
            }
        },
        "/issues/{issue_number}/lock": {
            "put": {
                "operationId": "lock_issue",
                "summary": "Lock an issue's conversation",
                "parameters": _path("issue_number", {"type": "integer"}),
                "responses": ok(_ISSUE),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="shop")


def _cancel(router: SchemaRouter, text: str) -> tuple[Any, Any]:
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)
    steps = [s for s in plan.steps if s.route_id == "shop/rest/cancel_order"]
    assert steps, plan.route_ids
    return plan, steps[0]


@pytest.mark.parametrize(
    ("request_text", "number"),
    [
        ("Cancel order number 10042", "10042"),
        ("Cancel order #10043", "10043"),
        ("Cancel order no. 10041", "10041"),
    ],
)
def test_an_order_named_by_its_number_is_looked_up_by_it(
    router: SchemaRouter, request_text: str, number: str
) -> None:
    plan, cancel = _cancel(router, request_text)
    assert "order_id" not in cancel.arguments
    binding = cancel.bindings["order_id"]
    lookup = plan.steps[binding.step]
    assert lookup.route_id == "shop/rest/list_orders"
    assert lookup.arguments == {"number": number}
    assert any("filtered by what the request names" in w for w in plan.warnings)


@pytest.mark.parametrize(
    "request_text", ["Cancel orders number 10041 and 10042", "Cancel an order"]
)
def test_several_numbers_or_none_leave_the_id_open(router: SchemaRouter, request_text: str) -> None:
    _, cancel = _cancel(router, request_text)
    assert not cancel.bindings
    assert cancel.missing_parameters == ("order_id",)


def test_an_id_given_as_such_is_kept(router: SchemaRouter) -> None:
    _, cancel = _cancel(router, "Cancel order O-5001")
    assert cancel.arguments == {"order_id": "O-5001"}
    assert not cancel.bindings


def test_an_id_that_is_a_number_keeps_the_digits(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="Lock issue #42", allowed_effects=WRITES), max_calls=2)
    lock = next(s for s in plan.steps if s.route_id == "shop/rest/lock_issue")
    assert lock.arguments == {"issue_number": 42}
    assert not lock.bindings
