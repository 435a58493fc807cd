"""A create whose body takes an amount and a currency takes the sum the request writes
(trial 10: "Submit an expense claim of 80 EUR for employee E-1001" planned the create with
``amount`` missing, sent nothing, and warned that no step took the amount 80)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from helpers import hashing_router, openapi_document
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_CLAIM = {
    "type": "object",
    "required": ["employee_id", "amount", "currency"],
    "properties": {
        "employee_id": _S,
        "amount": {"type": "number"},
        "currency": {"type": "string", "enum": ["EUR", "USD", "KRW"]},
        "nights": {"type": "integer"},
    },
}


def _document(base_url: str) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Expenses", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/expense-claims": {
                "post": {
                    "operationId": "createExpenseClaim",
                    "summary": "Submit an expense claim",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _CLAIM}},
                    },
                    "responses": {"201": ok},
                }
            }
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "EX-900"}, status=201)


def _run(query: str) -> tuple[Any, list[Any]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="expenses")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        if not plan.missing_arguments:
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        sent = [json.loads(r.body) for r in server.requests if r.method == "POST"]
    return plan, sent


@pytest.mark.parametrize(
    ("query", "amount"),
    [
        ("Submit an expense claim of 80 EUR for employee E-1001", 80),
        ("submit an expense claim for employee E-1001: 12.50 USD", 12.5),
        ("employee E-1001의 경비 3만원 청구해줘, KRW", 30000),
    ],
)
def test_a_claim_takes_the_sum_the_request_writes(query: str, amount: float) -> None:
    plan, sent = _run(query)
    (step,) = plan.steps
    assert step.arguments["body"]["amount"] == amount
    assert sent and sent[0]["amount"] == amount and sent[0]["employee_id"] == "E-1001"


@pytest.mark.parametrize(
    "query",
    [
        # two sums: none is guessed
        "Submit an expense claim of 80 EUR or 90 EUR for employee E-1001",
        # a number that is no sum of money
        "Submit an expense claim for 3 nights for employee E-1001 in EUR",
    ],
)
def test_no_sum_or_several_fill_no_amount(query: str) -> None:
    plan, sent = _run(query)
    (step,) = plan.steps
    assert "amount" not in step.arguments.get("body", {})
    assert sent == []


def test_an_amount_in_cents_takes_no_sum() -> None:
    """ "49 EUR" is no amount in cents: nothing says to multiply it."""
    cents = {**_CLAIM["properties"], "amount_cents": {"type": "integer"}}
    schema = {
        **_CLAIM,
        "properties": cents,
        "required": ["employee_id", "amount_cents", "currency"],
    }
    document = _document("http://127.0.0.1:9")
    body = document["paths"]["/expense-claims"]["post"]["requestBody"]["content"]
    body["application/json"]["schema"] = schema
    router = hashing_router(openapi_document("Expenses", document["paths"]), "expenses")
    plan = router.plan(
        PlanRequest(
            query="Submit an expense claim of 49 EUR for E-1001", allowed_effects=set(Effect)
        )
    )
    (step,) = plan.steps
    assert "amount_cents" not in step.arguments.get("body", {})
