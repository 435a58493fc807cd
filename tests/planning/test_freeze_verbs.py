""" "Freeze" and "unfreeze" are changes, each the other's undoing (user trial 14).

No verb table knew them: "Unfreeze ACC-1003 please" read as asking no change, so a read of
the account was planned in place of ``unfreeze_account`` (ranked first) and nothing was
unfrozen; "Don't freeze account ACC-1001" refused no change, so its id was never held back
from a later "it". "Block" and "unblock" undo each other too. What the server receives is
checked."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.opposite_verbs import OPPOSITES
from schemarouter.planning.refused_verbs import refused_verbs

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ACCOUNT = {"type": "object", "properties": {"id": _S, "status": _S}}
_ACC = {"type": "string", "pattern": "^ACC-[0-9]+$"}
_ID = [{"name": "account_id", "in": "path", "required": True, "schema": _ACC}]


def _op(op: str, summary: str) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": _ACCOUNT}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bank", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/accounts/{account_id}": {
                "parameters": _ID,
                "get": _op("getAccount", "Get an account"),
            },
            "/accounts/{account_id}/freeze": {
                "parameters": _ID,
                "post": _op("freezeAccount", "Freeze an account"),
            },
            "/accounts/{account_id}/unfreeze": {
                "parameters": _ID,
                "post": _op("unfreezeAccount", "Unfreeze a frozen account"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "ACC-1003", "status": "active"})


def _sent(query: str) -> list[tuple[str, str]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="bank")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
        if all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.method, r.path) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("Unfreeze ACC-1003 please", [("POST", "/accounts/ACC-1003/unfreeze")]),
        ("Unfreeze account ACC-1003", [("POST", "/accounts/ACC-1003/unfreeze")]),
        ("Freeze account ACC-1003", [("POST", "/accounts/ACC-1003/freeze")]),
        ("Don't freeze account ACC-1003, just show it", [("GET", "/accounts/ACC-1003")]),
    ],
)
def test_freezing_is_a_change(query: str, sent: list[tuple[str, str]]) -> None:
    assert _sent(query) == sent


def test_the_verbs_are_read() -> None:
    assert asked_verbs("Unfreeze ACC-1003 please") == {"unfreeze"}
    assert refused_verbs("Don't freeze account ACC-1001") == {"freeze"}
    assert (OPPOSITES["unfreeze"], OPPOSITES["block"]) == ("freeze", "unblock")
