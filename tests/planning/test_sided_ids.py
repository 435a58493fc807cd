"""The two sides of a move written as bare ids fill ``from_*_id`` and ``to_*_id`` (user
trial 14).

"Move €1,200.50 from ACC-1002 to ACC-1003" planned ``create_transfer`` with the amount and
currency filled and both accounts missing: only "from account ACC-1 to account ACC-2" was
read, and nothing could be sent. What the server receives is checked; a side written twice,
or said not, fills nothing, and then nothing is sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_TRANSFER = {
    "type": "object",
    "required": ["from_account_id", "to_account_id", "amount", "currency"],
    "properties": {
        "from_account_id": {"type": "string", "description": "Account the money leaves"},
        "to_account_id": {"type": "string", "description": "Account the money goes to"},
        "amount": {"type": "number"},
        "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
    },
}


def _document(base_url: str) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": _TRANSFER}}}
    body = {"required": True, "content": {"application/json": {"schema": _TRANSFER}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bank", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/transfers": {
                "post": {
                    "operationId": "createTransfer",
                    "summary": "Transfer money between accounts",
                    "requestBody": body,
                    "responses": {"200": ok},
                }
            }
        },
    }


def _app(request: Request) -> Response:
    return json_response(json.loads(request.body))


def _sent(query: str) -> list[Any]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="bank")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        if all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [json.loads(r.body) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "body"),
    [
        (
            "Move €1,200.50 from ACC-1002 to ACC-1003",
            {"from_account_id": "ACC-1002", "to_account_id": "ACC-1003", "amount": 1200.5,
             "currency": "EUR"},
        ),
        (
            "Transfer 75.25 GBP from ACC-1003 to ACC-1004",
            {"from_account_id": "ACC-1003", "to_account_id": "ACC-1004", "amount": 75.25,
             "currency": "GBP"},
        ),
    ],
)  # fmt: skip
def test_bare_ids_fill_both_sides(query: str, body: dict[str, Any]) -> None:
    assert _sent(query) == [body]


@pytest.mark.parametrize(
    "query",
    [
        "Transfer 20 EUR to ACC-1003",  # no side the money leaves
        "Transfer 20 EUR from ACC-1002 to ACC-1003, not to ACC-1004",  # which one?
        "Transfer 20 EUR from 10 to 20",  # no ids
    ],
)
def test_an_unsaid_side_sends_nothing(query: str) -> None:
    assert _sent(query) == []
