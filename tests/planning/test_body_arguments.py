"""A write's JSON body is filled from the request by the rules path and query parameters are
filled by: an identifier the request names with its thing word, the one enum value it names,
a value of a property's format, a quoted phrase for the one required text property. The plan
names a required property still open ``body.<property>``; the gate checks the whole body
before anything is sent, and a write still needs ``allow_effects`` and ``approve``.

A user's own billing API (tests/servers/billing.py) served for real on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect, Route
from schemarouter.errors import ParameterValidationError, PolicyError

from servers.billing import BillingApp, billing_router, sent
from servers.loopback import LoopbackServer

WRITES = frozenset({Effect.READ, Effect.WRITE})
REFUND = "billing/rest/create_refund"
INVOICE = "billing/rest/create_invoice"


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(BillingApp()) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    return billing_router(server)


def test_a_write_plan_fills_its_json_body_from_the_request(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    # trial P §7: "refund charge ch_500" left body.charge_id missing, though "charge ch_500"
    # is read as a charge id: every write plan needed with_arguments
    plan = router.plan(
        PlanRequest(query="refund charge ch_500, it was a duplicate", allowed_effects=WRITES)
    )
    assert plan.route_ids == (REFUND,)
    step = plan.steps[0]
    assert step.arguments == {"body": {"charge_id": "ch_500", "reason": "duplicate"}}
    assert step.missing_parameters == () and plan.missing_arguments == {}
    assert not any("ch_500" in w for w in plan.warnings)  # the id is taken: no "unused" note

    with pytest.raises(PolicyError):  # a write still needs the effect allowed
        router.execute(plan)
    with pytest.raises(PolicyError):  # and an approver
        router.execute(plan, allow_effects=WRITES)
    assert server.requests == []

    seen: list[tuple[str, dict[str, Any]]] = []

    def approve(route: Route, arguments: Mapping[str, Any]) -> bool:
        seen.append((route.route_id, json.loads(json.dumps(arguments, default=dict))))
        return True

    result = router.execute(plan, allow_effects=WRITES, approve=approve)
    assert [s.status for s in result.steps] == ["ok"]
    body = {"charge_id": "ch_500", "reason": "duplicate"}
    assert seen == [(REFUND, {"body": body})]
    assert sent(server) == [("POST", "/refunds", body)]


def test_a_body_filled_in_part_names_what_is_missing_and_the_gate_checks_the_whole_body(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    request = PlanRequest(
        query="create an invoice for customer cus_8812 in EUR", allowed_effects=WRITES
    )
    plan = router.plan(request)
    assert plan.route_ids == (INVOICE,)
    # the identifier after its thing word, and the one enum value named; no sum is written,
    # so the amount in cents is never guessed ("49 EUR" gives 4900: test_created_links.py)
    assert plan.steps[0].arguments == {"body": {"customer_id": "cus_8812", "currency": "EUR"}}
    assert plan.missing_arguments == {INVOICE: ("body.amount_cents",)}
    with pytest.raises(ParameterValidationError, match="amount_cents"):
        router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)

    filled = plan.with_arguments(INVOICE, {"body": {"amount_cents": 4900}})
    assert filled.missing_arguments == {}
    body = {"customer_id": "cus_8812", "currency": "EUR", "amount_cents": 4900}
    assert filled.steps[0].arguments == {"body": body}  # merged into what the request gave
    with pytest.raises(ParameterValidationError, match="minimum"):
        router.execute(
            plan.with_arguments(INVOICE, {"body": {"amount_cents": 0}}),
            allow_effects=WRITES,
            approve=lambda route, arguments: True,
        )
    assert server.requests == []  # every refusal came before anything was sent

    result = router.execute(filled, allow_effects=WRITES, approve=lambda route, arguments: True)
    assert [s.status for s in result.steps] == ["ok"]
    assert sent(server) == [("POST", "/invoices", body)]
    assert result.steps[0].output["customer_id"] == "cus_8812"


@pytest.mark.parametrize(
    ("request_text", "route", "parameter"),
    [
        ("look up charge 15000원", "billing/rest/get_charge", "charge_id"),
        ("invoice 3만원짜리 보여줘", "billing/rest/get_invoice", "invoice_id"),
        # the same written in English: "charge 15000 KRW" bound charge_id='15000'
        ("look up charge 15000 KRW", "billing/rest/get_charge", "charge_id"),
        ("show the invoice 300 EUR", "billing/rest/get_invoice", "invoice_id"),
    ],
)
def test_an_amount_is_no_identifier(
    router: SchemaRouter, server: LoopbackServer, request_text: str, route: str, parameter: str
) -> None:
    # trial K: "refund 15000원 for ORD-20240001" planned GET /refunds/15000 (refund_id
    # '15000'), and executing it fetched another refund: the digits before a Hangul unit
    # (원, 만원) are an amount after an English thing word as after a Korean one ("파일 3개")
    server.requests.clear()
    plan = router.plan(request_text)
    assert plan.route_ids == (route,)
    assert plan.steps[0].arguments == {}
    assert plan.missing_arguments == {route: (parameter,)}
    with pytest.raises(ParameterValidationError):  # the id is asked for, never guessed
        router.execute(plan)
    assert server.requests == []
