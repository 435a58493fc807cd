""" "Confirm" asks a change (trial Z3).

"Confirm appointment A-1002 and also check in appointment A-1003" planned
``get_appointment`` for its first part, where ``confirm_appointment`` was its own best: no
table knew "confirm", and "check" read as a read, so the request was read as one that asks no
change and a read of the same thing was planned in the confirmation's place."""

from __future__ import annotations

from typing import Any

from schemarouter import PlanRequest
from schemarouter.contracts import Effect
from schemarouter.retrieval.actions import request_action, request_verbs

from helpers import hashing_router

_S = {"type": "string"}
_ID = [{"name": "appointment_id", "in": "path", "required": True, "schema": _S}]


def _op(op: str, summary: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "status": _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Clinic", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/appointments/{appointment_id}": {
            "parameters": _ID,
            "get": _op("getAppointment", "Get an appointment"),
        },
        "/appointments/{appointment_id}/confirm": {
            "parameters": _ID,
            "post": _op("confirmAppointment", "Confirm an appointment"),
        },
        "/appointments/{appointment_id}/check-in": {
            "parameters": _ID,
            "post": _op("checkInAppointment", "Check a patient in for an appointment"),
        },
    },
}


def test_confirm_is_read_as_a_change() -> None:
    assert request_verbs("Confirm appointment A-1002") == {"confirm"}
    assert request_action("Confirm appointment A-1002") == "write"


def test_a_confirmation_beside_a_check_in_is_planned() -> None:
    router = hashing_router(DOCUMENT, provider="clinic")
    query = "Confirm appointment A-1002 and also check in appointment A-1003"
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    steps = [(s.route_id.rsplit("/", 1)[-1], dict(s.arguments)) for s in plan.steps]
    assert steps[0] == ("confirm_appointment", {"appointment_id": "A-1002"})
    assert "get_appointment" not in [name for name, _ in steps]
