"""A change asked for an amount or a part is never sent whole (trial 13).

``POST /payments/{payment_id}/refund`` takes an OPTIONAL JSON body (``amount``,
``currency``, ``reason``); the server refunds in full when there is none. "결제 P-301에서
2000원만 부분 환불해줘" (refund only 2000 won of payment P-301) was planned and sent with no
body, a refund in full (5000), and only a warning said that no step took the amount 2000.
Now the amount asked fills ``amount``, and its currency ``currency`` where the request writes
it with certainty (원 is KRW, € EUR) and the schema takes it; where the amount cannot be
filled so ("refund only part of P-301", a currency the enum does not take, a body with no
currency to say which), ``body.amount`` stays missing and ``execute`` sends nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from payments_api import CURRENCY, payments_router, refund_posts, serving_payments

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES
from servers.loopback import LoopbackServer

_S = {"type": "string"}
_CURRENCY = CURRENCY


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with serving_payments() as running:
        yield running


def _router(server: LoopbackServer, body: dict[str, Any]) -> SchemaRouter:
    refund = {
        "summary": "Refund a payment",
        "description": "결제를 환불합니다. Omit amount for a full refund.",
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": {"type": "object", "properties": body}}},
        },
    }
    return payments_router(server, refund, encoder=HashingEncoder())


_MONEY = {"amount": {"type": "number"}, "currency": _CURRENCY, "reason": _S}


def _sent(server: LoopbackServer, router: SchemaRouter, text: str) -> list[tuple[str, Any]]:
    """What the plan of ``text`` sends (POSTs: path and JSON body) when executed."""
    return refund_posts(server, router, text)[1]


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("결제 P-301에서 2000원만 부분 환불해줘", {"amount": 2000, "currency": "KRW"}),
        ("Refund 20 EUR of payment P-301", {"amount": 20, "currency": "EUR"}),
        ("Partially refund payment P-301: 2000 KRW", {"amount": 2000, "currency": "KRW"}),
        ("Refund €20 of payment P-301", {"amount": 20, "currency": "EUR"}),
        ("결제 P-301 3만원 환불해줘", {"amount": 30000, "currency": "KRW"}),
        ("Refund 15 USD of payment P-301", {"amount": 15, "currency": "USD"}),
    ],
)
def test_the_amount_asked_is_sent_with_its_currency(
    server: LoopbackServer, text: str, body: dict[str, Any]
) -> None:
    assert _sent(server, _router(server, _MONEY), text) == [("/payments/P-301/refund", body)]


@pytest.mark.parametrize(
    ("text", "properties"),
    [
        ("Refund only part of payment P-301", _MONEY),
        ("Partially refund payment P-301", _MONEY),
        ("결제 P-301 일부만 환불해줘", _MONEY),
        # a currency the schema does not take: 20 CAD is no amount in KRW, USD or EUR
        ("Refund 20 CAD of payment P-301", _MONEY),
        # no currency beside the amount: 2000 won may not be the payment's currency
        ("결제 P-301에서 2000원만 부분 환불해줘", {"amount": {"type": "number"}}),
        ("Refund 20 EUR of payment P-301", {"amount": {"type": "number"}, "reason": _S}),
    ],
)
def test_an_amount_that_cannot_be_filled_holds_the_change_back(
    server: LoopbackServer, text: str, properties: dict[str, Any]
) -> None:
    router = _router(server, properties)
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.steps[0].missing_parameters == ("body.amount",)
    assert any("body.amount" in w for w in plan.warnings), plan.warnings
    assert _sent(server, router, text) == []
    # given by the caller, it goes
    given = plan.with_arguments(0, {"body": {"amount": 2000}})
    assert given.missing_arguments == {}
    router.execute(given, allow_effects=WRITES, approve=lambda *_: True)
    assert [json.loads(r.body) for r in server.requests] == [{"amount": 2000}]


@pytest.mark.parametrize(
    "text", ["Refund payment P-301", "결제 P-301 환불해줘", "Refund payment P-301 in full"]
)
def test_a_refund_asked_whole_is_sent_without_a_body(server: LoopbackServer, text: str) -> None:
    assert _sent(server, _router(server, _MONEY), text) == [("/payments/P-301/refund", None)]


def test_a_part_asked_of_an_id_written_bare_is_not_sent(server: LoopbackServer) -> None:
    """ "refund only part of P-301": the id binds to no parameter (no thing names it), and the
    amount is held back besides."""
    router = _router(server, _MONEY)
    plan = router.plan(PlanRequest(query="refund only part of P-301", allowed_effects=WRITES))
    assert "body.amount" in plan.steps[0].missing_parameters
    assert _sent(server, router, "refund only part of P-301") == []
