"""A required JSON body whose schema requires no property is sent as ``{}`` by an action on
an entry (trial X2, W2/V2's open item).

``POST /orders/{order_id}/refund`` takes ``requestBody: {required: true}`` with an optional
``amount``: "Refund order O-1" planned with ``body`` missing, so the change never ran, where
the server's default (a refund in full) is what the request asks. An update's body (PATCH)
is the change itself, a create's (``POST /orders``, ``POST /orders/{order_id}/notes``) the
new entry: an empty one of those stays missing, as does a body with a required property."""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError, ParameterValidationError
from schemarouter.index import HashingEncoder
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ORDER = {"type": "object", "properties": {"id": _S, "status": _S}}
_WRITES = ("read", "write", "destructive")


def _operation(op: str, summary: str, body: dict[str, Any], *, path_id: bool = True) -> Any:
    return {
        "operationId": op,
        "summary": summary,
        "parameters": (
            [{"name": "order_id", "in": "path", "required": True, "schema": _S}] if path_id else []
        ),
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object", **body}}},
        },
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": _ORDER}}}
        },
    }


_AMOUNT = {"properties": {"amount": {"type": "number"}}}
OPERATIONS: dict[str, tuple[str, str, Any]] = {
    "refund": ("/orders/{order_id}/refund", "post", _operation("refund_order", "Refund an order", _AMOUNT)),
    "update": ("/orders/{order_id}", "patch", _operation("update_order", "Update an order", {"properties": {"note": _S}})),
    "create": ("/orders", "post", _operation("create_order", "Create an order", {"properties": {"note": _S}}, path_id=False)),
    "note": ("/orders/{order_id}/notes", "post", _operation("add_order_note", "Add a note to an order", {"properties": {"text": _S}})),
    "cancel": ("/orders/{order_id}/cancel", "post", _operation("cancel_order", "Cancel an order", {"properties": {"reason": _S}})),
    "ship": ("/orders/{order_id}/ship", "post", _operation("ship_order", "Ship an order", {"properties": {"carrier": _S}, "required": ["carrier"]})),
}  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({"id": request.path.split("/")[2], "status": "refunded"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _router(server: LoopbackServer, which: str) -> SchemaRouter:
    path, method, operation = OPERATIONS[which]
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0"},
        "servers": [{"url": server.base_url}],
        "paths": {path: {method: copy.deepcopy(operation)}},
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    return router


def _step(router: SchemaRouter, text: str) -> Any:
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    assert len(plan.steps) == 1, plan.reason
    return plan.steps[0]


def test_an_action_whose_body_requires_nothing_is_sent_with_an_empty_body(
    server: LoopbackServer,
) -> None:
    server.requests.clear()
    router = _router(server, "refund")
    plan = router.plan(PlanRequest(query="Refund order O-1", allowed_effects=_WRITES))
    assert plan.steps[0].arguments == {"order_id": "O-1", "body": {}}
    assert plan.missing_arguments == {}
    seen: list[dict[str, Any]] = []
    result = router.execute(
        plan, allow_effects=_WRITES, approve=lambda _, a: seen.append(dict(a)) or True
    )
    assert result.steps[0].error is None
    assert seen == [{"order_id": "O-1", "body": {}}]
    assert [(r.method, r.path, json.loads(r.body)) for r in server.requests] == [
        ("POST", "/orders/O-1/refund", {})
    ]


def test_a_body_property_the_request_gives_is_sent(server: LoopbackServer) -> None:
    step = _step(_router(server, "refund"), "Refund amount 20 on order O-1")
    assert step.arguments == {"order_id": "O-1", "body": {"amount": 20}}


@pytest.mark.parametrize(
    ("which", "text", "missing"),
    [
        ("update", "Update order O-1", ("body",)),
        ("create", "Create an order", ("body",)),
        ("note", "Add a note to order O-1", ("body",)),
        ("ship", "Ship order O-1", ("body.carrier",)),
    ],
)
def test_an_update_a_create_or_a_body_with_a_required_property_stays_missing(
    server: LoopbackServer, which: str, text: str, missing: tuple[str, ...]
) -> None:
    step = _step(_router(server, which), text)
    assert "body" not in step.arguments
    assert step.missing_parameters == missing


@pytest.mark.parametrize(
    "text",
    [
        "Refund €20 on order O-1",
        "Refund 20 on order O-1",
        "Refund order O-1 by 20",
        "Partially refund order O-1",
        "Refund half of order O-1",
        "주문 O-1 20유로 환불해줘",
        # an amount or a part in words (trial V3: each of these refunded in full)
        "Refund twenty euros on order O-1",
        "Refund order O-1 by ten dollars",
        "Refund EUR twenty on order O-1",
        "Refund a third of order O-1",
        "Refund only the shipping on order O-1",
        "주문 O-1 이만원 환불해줘",
        # a part, or another way than the default, in words (trial Y1: each refunded in full)
        "Refund order O-1's shipping fee",
        "Refund order O-1 without the shipping",
        "Refund order O-1 but keep the restocking fee",
        "Refund order O-1 to store credit",
        "주문 O-1 배송비 빼고 환불해줘",
        "주문 O-1 만 원 환불해줘",
        "주문 O-1 삼만원만 환불해줘",
        "주문 O-1 금액의 3분의 1만 환불해줘",
    ],
)
def test_an_action_asked_for_more_than_its_default_is_not_sent_empty(
    server: LoopbackServer, text: str
) -> None:
    """A value no body property took ("€20") or a word that qualifies the action
    ("partially") may be meant for the body: sent as ``{}``, the server's default would
    refund in full, so the body stays missing (trial X2's probes, after the first fix)."""
    step = _step(_router(server, "refund"), text)
    assert "body" not in step.arguments
    assert step.missing_parameters == ("body",)


@pytest.mark.parametrize(
    "text",
    [
        "Don't refund order O-1",
        "Refund order O-1? No.",
        "Refund order O-1, just kidding",
        "주문 O-1 환불하지 마세요",
        "주문 O-1 환불해줘. 아니, 취소.",
        # taken back in words the clause reading did not know (trial Y1: each refunded O-1)
        "Refund order O-1. Actually, hold off.",
        "Refund order O-1... no wait",
        "Refund order O-1 (not really)",
        "Refund order O-1. Cancel that.",
        "Refund order O-1. Ignore that.",
    ],
)
def test_an_id_the_request_says_not_to_use_is_not_offered_to_fill(
    server: LoopbackServer, text: str
) -> None:
    """The plan of "Don't refund order O-1" leaves ``order_id`` open, and its warnings said
    "the request names order id 'O-1', which no step takes as an argument ... pass it with
    Plan.with_arguments": a caller (an agent) that did so sent ``POST
    /orders/O-1/refund {}``, a refund in full, the change the request refused (trial V3,
    trials X1 and X2 together). Now the warning says the request said not to use it."""
    router = _router(server, "refund")
    listed = {"type": "array", "items": _ORDER}
    router.add_openapi(
        {
            "openapi": "3.0.3",
            "info": {"title": "Shop", "version": "1.0"},
            "servers": [{"url": server.base_url}],
            "paths": {
                "/orders": {
                    "get": {
                        "operationId": "list_orders",
                        "summary": "List orders",
                        "responses": {
                            "200": {
                                "description": "ok",
                                "content": {"application/json": {"schema": listed}},
                            }
                        },
                    }
                }
            },
        },
        provider="shop",
        replace=False,
    )
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    step = plan.steps[0]
    assert step.route_id == "shop/rest/refund_order" and "order_id" not in step.arguments
    # nor is the refused action's empty body filled in: with the id added, it would refund
    assert "body" not in step.arguments and "body" in step.missing_parameters
    named = [w for w in plan.warnings if "'O-1'" in w]
    assert named, plan.warnings
    assert not any("Plan.with_arguments" in w for w in named), named
    assert any("says not to use or takes back" in w for w in named), named
    change = [w for w in plan.warnings if w.startswith("shop/rest/refund_order is a")]
    assert change and not any("supply it" in w or "ids of its own" in w for w in change), change


@pytest.mark.parametrize(
    "text",
    [
        "Refund order O-1 in full",
        "Refund my order O-1",
        "주문 O-1 환불해줘",
        "회원 주문 O-1 환불해줘",
        "Refund order O-1, not order O-2",  # "not order" refuses no refund_order (trial Y1)
    ],
)
def test_an_action_asked_for_its_default_is_still_sent_empty(
    server: LoopbackServer, text: str
) -> None:
    step = _step(_router(server, "refund"), text)
    assert step.arguments == {"order_id": "O-1", "body": {}}


@pytest.mark.parametrize(
    "text",
    [
        "refund status of order O-1",
        "Can I refund order O-1?",
        "Should I refund order O-1?",
        "주문 O-1 환불됐어?",
        # a question whose verb reads as a change's: asked, not asked for
        "주문 O-1 환불할까?",
        "주문 O-1 환불해도 돼?",
        "Why refund order O-1?",
        "Would refunding order O-1 be possible?",
    ],
)
def test_a_request_that_asks_about_the_action_does_not_send_it_empty(
    server: LoopbackServer, text: str
) -> None:
    """Trial Y1: each of these, whose best route was the refund, sent a refund in full."""
    server.requests.clear()
    router = _router(server, "refund")
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    assert all("body" not in step.arguments for step in plan.steps), plan.steps
    if plan.steps:
        with pytest.raises(ParameterValidationError, match="'body' is a required property"):
            router.execute(plan, allow_effects=_WRITES, approve=lambda _, a: True)
    else:  # a question whether or why to refund, no read near: no change planned (trial 14)
        assert "asks whether or why" in plan.reason
    assert [r for r in server.requests if r.method == "POST"] == []


@pytest.mark.parametrize("operation", ["PostOrdersOrderRefund", "order_refund", "issueRefund"])
@pytest.mark.parametrize("text", ["Stop refunding the first order", "Don't refund the first order"])
def test_a_refused_action_named_after_its_method_or_entry_takes_no_order(
    server: LoopbackServer, operation: str, text: str
) -> None:
    """The action's verb read from its name's first word only: Stripe's style
    (``PostChargesChargeRefund``) starts with the method, ``order_refund`` with the entry, so
    "Stop refunding the first order" refunded the first order listed (trial Y1)."""
    listed = {"type": "array", "items": _ORDER}
    path, method, refund = OPERATIONS["refund"]
    list_orders = {
        "operationId": "list_orders",
        "summary": "List orders",
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": listed}}}
        },
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1.0"},
        "servers": [{"url": server.base_url}],
        "paths": {
            "/orders": {"get": list_orders},
            path: {method: {**copy.deepcopy(refund), "operationId": operation}},
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES), max_calls=3)
    for step in plan.steps:
        assert not step.bindings and "body" not in step.arguments, (text, plan.steps)
    with contextlib.suppress(ExecutionError):
        router.execute(plan, allow_effects=_WRITES, approve=lambda _, a: True)
    assert [r for r in server.requests if r.method == "POST"] == []


@pytest.mark.parametrize(
    "text",
    [
        "Cancel the refund of order O-1",
        "주문 O-1 환불 취소해줘",
        "Stop the refund of order O-1",
        "Block refunds on order O-1",
    ],
)
def test_a_request_to_undo_or_stop_the_action_does_not_send_it_empty(
    server: LoopbackServer, text: str
) -> None:
    """Trial Y1: each of these, asking to cancel, stop or block a refund, sent a refund in
    full (the refund ranks first, the request's verb is a change's)."""
    server.requests.clear()
    router = _router(server, "refund")
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    assert all("body" not in step.arguments for step in plan.steps), plan.steps
    if plan.steps:
        with pytest.raises(ParameterValidationError, match="'body' is a required property"):
            router.execute(plan, allow_effects=_WRITES, approve=lambda _, a: True)
    else:  # a question whether or why to refund, no read near: no change planned (trial 14)
        assert "asks whether or why" in plan.reason
    assert [r for r in server.requests if r.method == "POST"] == []


@pytest.mark.parametrize("text", ["Cancel order O-1", "주문 O-1 취소해줘"])
def test_an_action_that_is_itself_the_cancelling_is_still_sent_empty(
    server: LoopbackServer, text: str
) -> None:
    step = _step(_router(server, "cancel"), text)
    assert step.arguments == {"order_id": "O-1", "body": {}}
