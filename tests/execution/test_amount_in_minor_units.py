"""An amount in a currency's minor units takes the sum written in them, or stays missing.

``POST /payments/{payment_id}/refund`` takes an amount in minor units (``amount_cents``,
``amount_minor``, or Stripe's integer ``amount`` "in the smallest currency unit") and a
``currency``. "Refund $12.50 of payment P-1" planned the refund with the amount missing, and
said only that no step took the amount 12.50: nothing filled an amount in minor units. Now
the sum is sent in them (1250), never as 12 or 12.5, where the route takes a currency the
sum's is for certain and the minor unit is known (hundredths; KRW and JPY have none); where
it is not, the amount stays missing, ``execute`` refuses the step, and the plan says why.
The server is real (loopback) and records what it is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from payments_api import CURRENCY, payments_router, refund_posts, serving_payments

from schemarouter import SchemaRouter

from servers.loopback import LoopbackServer

_STRIPE = (
    "A positive integer representing how much to charge in the smallest currency unit (e.g., "
    "100 cents to charge $1.00 or 100 to charge ¥100, a zero-decimal currency)."
)
_CURRENCIES = {**CURRENCY, "enum": [*CURRENCY["enum"], "JPY"]}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with serving_payments() as running:
        yield running


def _router(server: LoopbackServer, amount: str, about: str = "", *, required: bool = True) -> Any:
    """The refund taking the integer ``amount`` (described by ``about``) and a currency."""
    described = {"type": "integer", **({"description": about} if about else {})}
    properties = {amount: described, "currency": _CURRENCIES}
    body = {"type": "object", "properties": properties, "required": [amount] if required else []}
    refund = {
        "summary": "Refund a payment",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
    }
    return payments_router(server, refund, reranker=None)


def _bodies(server: LoopbackServer, router: SchemaRouter, text: str) -> tuple[Any, list[Any]]:
    plan, posts = refund_posts(server, router, text)
    return plan, [body for _, body in posts]


@pytest.mark.parametrize(
    ("amount", "about", "required", "text", "body"),
    [
        ("amount", _STRIPE, True, "Refund $12.50 of payment P-1", {"amount": 1250, "currency": "USD"}),
        ("amount_cents", "", True, "Refund 12.50 usd of payment P-1",
         {"amount_cents": 1250, "currency": "USD"}),
        ("amount_minor", "", False, "Refund €0.99 of payment P-1",
         {"amount_minor": 99, "currency": "EUR"}),
        ("amount", "Amount in cents", True, "Refund 20 EUR of payment P-1",
         {"amount": 2000, "currency": "EUR"}),
        # the smallest unit of the yen and the won is the yen and the won
        ("amount", _STRIPE, True, "Refund 500 JPY of payment P-1", {"amount": 500, "currency": "JPY"}),
        ("amount_minor", "", True, "결제 P-1에서 2000원 환불해줘",
         {"amount_minor": 2000, "currency": "KRW"}),
    ],
)  # fmt: skip
def test_a_sum_is_sent_in_the_minor_units_the_route_takes(
    server: LoopbackServer,
    amount: str,
    about: str,
    required: bool,
    text: str,
    body: dict[str, Any],
) -> None:
    plan, posts = _bodies(server, _router(server, amount, about, required=required), text)
    assert posts == [body], plan.warnings
    assert not any("no step takes" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    ("amount", "about", "text", "why"),
    [
        ("amount_cents", "", "Refund 500 JPY of payment P-1", "minor units"),  # cents of yen
        ("amount_cents", "", "Refund 12.505 USD of payment P-1", "minor units"),  # half a cent
        ("amount", _STRIPE, "Refund ¥500 of payment P-1", "not take"),  # yen or yuan
        ("amount", "", "Refund $12.50 of payment P-1", "never sent as 12,"),  # no unit said
    ],
)
def test_an_amount_whose_unit_cannot_be_told_is_refused_with_the_reason(
    server: LoopbackServer, amount: str, about: str, text: str, why: str
) -> None:
    plan, posts = _bodies(server, _router(server, amount, about), text)
    assert posts == []
    assert f"body.{amount}" in plan.steps[0].missing_parameters
    said = [w for w in plan.warnings if "the amount is not filled" in w]
    assert len(said) == 1 and why in said[0], plan.warnings
