"""A question about a change asks none (trial Z3).

With every effect allowed, "Can I cancel appointment A-1001?" planned ``cancel_appointment``
(ranked first; no body to withhold, its id the request's) and ``execute`` sent
``POST /appointments/A-1001/cancel``: the question named the change, and a change named was
planned. A question whether or why to change plans a read of the same thing; "Can you cancel
...?" asks the change politely and still plans it."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.questions import asks_whether

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ID = [{"name": "appointment_id", "in": "path", "required": True, "schema": _S}]


def _op(op: str, summary: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "status": _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Clinic", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/appointments/{appointment_id}": {
                "parameters": _ID,
                "get": _op("getAppointment", "Get an appointment"),
            },
            "/appointments/{appointment_id}/cancel": {
                "parameters": _ID,
                "post": _op("cancelAppointment", "Cancel an appointment"),
            },
            "/appointments/{appointment_id}/confirm": {
                "parameters": _ID,
                "post": _op("confirmAppointment", "Confirm an appointment"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "A-1001", "status": "scheduled"})


def _run(query: str) -> tuple[list[str], list[tuple[str, str]]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="clinic")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        sent = [(r.method, r.path) for r in server.requests]
    return [s.route_id.rsplit("/", 1)[-1] for s in plan.steps], sent


@pytest.mark.parametrize(
    "query",
    [
        "Can I cancel appointment A-1001?",
        "Should I cancel appointment A-1001?",
        "Why cancel appointment A-1001?",
        "Do we need to cancel appointment A-1001?",
        "Is it okay to cancel appointment A-1001?",
    ],
)
def test_a_question_whether_to_change_sends_no_change(query: str) -> None:
    steps, sent = _run(query)
    assert steps[:1] == ["get_appointment"]
    assert sent == [("GET", "/appointments/A-1001")]


@pytest.mark.parametrize(
    "query", ["Can you cancel appointment A-1001?", "Cancel appointment A-1001"]
)
def test_a_polite_request_still_changes(query: str) -> None:
    steps, sent = _run(query)
    assert steps == ["cancel_appointment"]
    assert sent == [("POST", "/appointments/A-1001/cancel")]


@pytest.mark.parametrize(
    ("query", "whether"),
    [
        ("주문 O-1 환불할까?", True),
        ("예약 A-1 취소해도 돼?", True),
        ("예약 A-1 취소해줘", False),
        ("Could you cancel appointment A-1?", False),
        ("Can I cancel appointment A-1? Cancel it.", False),
    ],
)
def test_asks_whether(query: str, whether: bool) -> None:
    assert asks_whether(query) is whether
