"""A question about a change plans no change, even where no read of its thing is near
(user trial 14).

"Can I close account ACC-1005?" over a bank server whose five best routes for it were all
changes (``close_account``, ``create_transfer``, ``add_payee`` ...) and whose read of an
account ranked lower: no read was found to plan in the change's place, so the change itself
was planned, and ``execute`` (every effect allowed, auto-approval) closed the account. A
question whether or why to change now plans nothing where no read of the same thing is near,
and says why; "Can you close ...?" still asks the change."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ID = [{"name": "account_id", "in": "path", "required": True, "schema": _S}]


def _op(op: str, summary: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "status": _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bank", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/accounts/{account_id}/close": {
                "parameters": _ID,
                "post": _op("closeAccount", "Close an account for good"),
            },
            "/accounts/{account_id}/freeze": {
                "parameters": _ID,
                "post": _op("freezeAccount", "Freeze an account"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "ACC-1005", "status": "closed"})


def _run(query: str) -> tuple[list[str], list[tuple[str, str]], str]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="bank")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        sent = [(r.method, r.path) for r in server.requests]
    return [s.route_id.rsplit("/", 1)[-1] for s in plan.steps], sent, plan.reason


@pytest.mark.parametrize(
    "query",
    [
        "Can I close account ACC-1005?",
        "Should we close account ACC-1005?",
        "Why close account ACC-1005?",
    ],
)
def test_a_question_with_no_read_near_changes_nothing(query: str) -> None:
    steps, sent, reason = _run(query)
    assert (steps, sent) == ([], [])
    assert "asks whether or why" in reason and "close_account" in reason


@pytest.mark.parametrize("query", ["Can you close account ACC-1005?", "Close account ACC-1005"])
def test_a_request_for_the_change_still_sends_it(query: str) -> None:
    steps, sent, _ = _run(query)
    assert steps == ["close_account"]
    assert sent == [("POST", "/accounts/ACC-1005/close")]
