"""An id the request refuses a change of, then reads by "its", is the read's (user trial 14).

"Don't freeze account ACC-1001, just show me its balance" planned ``list_accounts`` and
``get_account`` bound to the list's first entry: the refused clause held ACC-1001 back and
only "it" gave it back, so the account read was whichever the server listed first (here
ACC-7). "its" after a verb that asks no change now gives the refused id back to a read; a
change never takes it ("freeze its card" names the card of the account, not the account)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ACCOUNT = {"type": "object", "properties": {"id": _S, "balance": {"type": "number"}}}
_ID = [{"name": "account_id", "in": "path", "required": True, "schema": _S}]


def _op(op: str, summary: str, schema: dict[str, Any]) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


def _document(base_url: str) -> dict[str, Any]:
    listed = {"type": "object", "properties": {"items": {"type": "array", "items": _ACCOUNT}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bank", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/accounts": {"get": _op("listAccounts", "List bank accounts", listed)},
            "/accounts/{account_id}": {
                "parameters": _ID,
                "get": _op("getAccount", "Get an account: its balance and status", _ACCOUNT),
            },
            "/accounts/{account_id}/freeze": {
                "parameters": _ID,
                "post": _op("freezeAccount", "Freeze an account", _ACCOUNT),
            },
            "/accounts/{account_id}/close": {
                "parameters": _ID,
                "post": _op("closeAccount", "Close an account", _ACCOUNT),
            },
        },
    }


def _app(request: Request) -> Response:
    if request.path == "/accounts":
        return json_response({"items": [{"id": "ACC-7", "balance": 1.0}]})
    return json_response({"id": request.path.split("/")[2], "balance": 5.0})


def _sent(query: str) -> list[tuple[str, str]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="bank")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
        if all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.method, r.path) for r in server.requests]


@pytest.mark.parametrize(
    "query",
    [
        "Don't freeze account ACC-1001, just show me its balance",
        "Don't freeze account ACC-1001, show its balance instead",
    ],
)
def test_its_gives_the_refused_id_to_a_read(query: str) -> None:
    assert _sent(query) == [("GET", "/accounts/ACC-1001")]


@pytest.mark.parametrize(
    "query",
    [
        "Don't close account ACC-1001, freeze its card",
        "Don't freeze account ACC-1001, freeze its twin later",
    ],
)
def test_its_gives_the_refused_id_to_no_change(query: str) -> None:
    assert [s for s in _sent(query) if s[0] != "GET"] == []
