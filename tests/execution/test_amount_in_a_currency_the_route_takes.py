"""A required amount is sent only in a currency the route takes, and never in another scale.

``POST /payments/{payment_id}/refund`` takes a REQUIRED ``amount`` and a ``currency`` whose
enum is ``[KRW, USD, EUR]``. "Refund 20 CAD of payment P-301" filled ``amount=20`` (the
currency "the enum value's to fill"): where the currency was optional it sent ``{"amount":
20}``, 20 of whatever the server defaults to, and where it was required the amount stayed
filled for the caller to send as 20 USD, with no word of why. Now a sum written in a currency
the route cannot take leaves the amount missing, ``execute`` refuses the step, and a warning
names the sum and the currencies the route takes. An amount in minor units ("amount_cents",
"amount in cents") is never filled from "20.50 USD" (neither 20.5 nor 20), nor one of a route
that takes no currency ("Amounts are in USD") from "20 CAD"; both were so before, and are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError

from helpers import WRITES, ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_PAYMENT = {"type": "object", "properties": {"id": _S, "status": _S}}
_CURRENCY = {"type": "string", "enum": ["KRW", "USD", "EUR"]}
_AMOUNT = {"type": "number"}


def _app(request: Request) -> Response:
    return json_response({"id": request.path.split("/")[2], "status": "refunded"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _router(
    server: LoopbackServer, properties: dict[str, Any], required: list[str], about: str = ""
) -> SchemaRouter:
    body = {"type": "object", "properties": properties, "required": required}
    refund = {
        "operationId": "refund_payment",
        "summary": "Refund a payment",
        "description": f"Refund a payment. {about}",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": ok(_PAYMENT),
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Payments", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": {
            "/payments/{payment_id}": {
                "parameters": path_id("payment_id"),
                "get": {"operationId": "get_payment", "summary": "Get a payment",
                        "responses": ok(_PAYMENT)},
            },
            "/payments/{payment_id}/refund": {"parameters": path_id("payment_id"), "post": refund},
        },
    }  # fmt: skip
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(document, provider="pay")
    return router


def _sent(server: LoopbackServer, router: SchemaRouter, text: str) -> tuple[Any, list[Any]]:
    """The plan of ``text`` and the JSON bodies it POSTs when executed (a plan with missing
    arguments is refused)."""
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.route_ids == ("pay/rest/refund_payment",), (plan.route_ids, plan.warnings)
    if plan.missing_arguments:
        with pytest.raises(ParameterValidationError):
            router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    else:
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    posts = [json.loads(r.body) if r.body else None for r in server.requests if r.method == "POST"]
    return plan, posts


@pytest.mark.parametrize(
    "required", [["amount", "currency"], ["amount"]], ids=["currency required", "optional"]
)
def test_a_sum_in_a_currency_the_route_does_not_take_is_not_sent(
    server: LoopbackServer, required: list[str]
) -> None:
    router = _router(server, {"amount": _AMOUNT, "currency": _CURRENCY}, required)
    plan, posts = _sent(server, router, "Refund 20 CAD of payment P-301")
    assert posts == []
    assert "body.amount" in plan.steps[0].missing_parameters
    said = [w for w in plan.warnings if "20 CAD" in w]
    assert len(said) == 1 and "KRW, USD, EUR" in said[0], plan.warnings


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("Refund 20 EUR of payment P-301", {"amount": 20, "currency": "EUR"}),
        ("Refund 20.50 USD of payment P-301", {"amount": 20.5, "currency": "USD"}),
        ("결제 P-301에서 2000원 환불해줘", {"amount": 2000, "currency": "KRW"}),
    ],
)
def test_a_sum_in_a_currency_the_route_takes_is_sent(
    server: LoopbackServer, text: str, body: dict[str, Any]
) -> None:
    router = _router(server, {"amount": _AMOUNT, "currency": _CURRENCY}, ["amount"])
    assert _sent(server, router, text)[1] == [body]


@pytest.mark.parametrize(
    ("properties", "required"),
    [
        ({"amount_cents": {"type": "integer"}, "currency": _CURRENCY}, ["amount_cents"]),
        ({"amount_cents": {"type": "integer"}}, ["amount_cents"]),
        (
            {
                "amount": {"type": "integer", "description": "Amount in cents"},
                "currency": _CURRENCY,
            },
            ["amount", "currency"],
        ),
    ],
)
def test_an_amount_in_minor_units_is_not_filled_from_a_sum_in_major_ones(
    server: LoopbackServer, properties: dict[str, Any], required: list[str]
) -> None:
    """Never 20.5 nor 20 for 2050 cents: the amount stays missing."""
    router = _router(server, properties, required)
    plan, posts = _sent(server, router, "Refund 20.50 USD of payment P-301")
    assert posts == []
    assert any(name.startswith("body.amount") for name in plan.steps[0].missing_parameters)


@pytest.mark.parametrize(
    "text", ["Refund 20 CAD of payment P-301", "Refund 20 USD of payment P-301"]
)
def test_an_amount_of_a_route_with_no_currency_is_not_filled(
    server: LoopbackServer, text: str
) -> None:
    """The route documents its currency as USD, in words only: no sum fills its amount."""
    router = _router(server, {"amount": _AMOUNT}, ["amount"], about="Amounts are in USD.")
    plan, posts = _sent(server, router, text)
    assert posts == [] and plan.steps[0].missing_parameters == ("body.amount",)
