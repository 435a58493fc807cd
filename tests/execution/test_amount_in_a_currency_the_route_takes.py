"""A required amount is sent only in a currency the route takes, and never in another scale.

``POST /payments/{payment_id}/refund`` takes a REQUIRED ``amount`` and a ``currency`` whose
enum is ``[KRW, USD, EUR]``. "Refund 20 CAD of payment P-301" filled ``amount=20`` (the
currency "the enum value's to fill"): where the currency was optional it sent ``{"amount":
20}``, 20 of whatever the server defaults to, and where it was required the amount stayed
filled for the caller to send as 20 USD, with no word of why. Now a sum written in a currency
the route cannot take leaves the amount missing, ``execute`` refuses the step, and a warning
names the sum and the currencies the route takes. An amount in minor units of a route that
takes no currency is never filled from "20.50 USD" (neither 20.5 nor 20), nor one of a route
that takes no currency ("Amounts are in USD") from "20 CAD"; both were so before, and are kept
(one in minor units beside a currency: tests/execution/test_amount_in_minor_units.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from payments_api import CURRENCY, payments_router, refund_posts, serving_payments

from schemarouter import SchemaRouter

from servers.loopback import LoopbackServer

_S = {"type": "string"}
_CURRENCY = CURRENCY
_AMOUNT = {"type": "number"}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with serving_payments() as running:
        yield running


def _router(
    server: LoopbackServer, properties: dict[str, Any], required: list[str], about: str = ""
) -> SchemaRouter:
    body = {"type": "object", "properties": properties, "required": required}
    refund = {
        "summary": "Refund a payment",
        "description": f"Refund a payment. {about}",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
    }
    return payments_router(server, refund, reranker=None)


def _sent(server: LoopbackServer, router: SchemaRouter, text: str) -> tuple[Any, list[Any]]:
    """The plan of ``text`` and the JSON bodies it POSTs when executed (a plan with missing
    arguments is refused)."""
    plan, posts = refund_posts(server, router, text)
    return plan, [body for _, body in posts]


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


def test_an_amount_in_minor_units_of_no_currency_is_not_filled_from_a_sum(
    server: LoopbackServer,
) -> None:
    """Never 20.5 nor 20 for 2050 cents, nor 2050 cents of what the server holds: the amount
    stays missing."""
    router = _router(server, {"amount_cents": {"type": "integer"}}, ["amount_cents"])
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
