"""예약 is an appointment too, 환자 a patient, 의사 a doctor (trial Z3).

On a clinic's API, "예약 A-1001 취소해줘" (cancel appointment A-1001) and "환자 P-102 삭제해줘"
(delete patient P-102) planned their change with ``appointment_id`` / ``patient_id`` open, and
"환자 P-100의 예약 목록 보여줘" (patient P-100's appointments) listed every patient: the glossary
read 예약 as a booking or reservation only and knew no 환자, so no id was bound."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import hashing_router

_S = {"type": "string"}


def _op(op: str, summary: str, *parameters: tuple[str, str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, op: _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    params = [
        {"name": n, "in": where, "required": where == "path", "schema": _S}
        for n, where in parameters
    ]
    return {"operationId": op, "summary": summary, "parameters": params, "responses": {"200": ok}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Clinic", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/appointments": {
            "get": _op(
                "list_appointments",
                "List appointments",
                ("patient_id", "query"),
                ("doctor_id", "query"),
            )
        },
        "/appointments/{appointment_id}": {
            "get": _op("get_appointment", "Get an appointment", ("appointment_id", "path"))
        },
        "/appointments/{appointment_id}/cancel": {
            "post": _op("cancel_appointment", "Cancel an appointment", ("appointment_id", "path"))
        },
        "/patients": {"get": _op("list_patients", "List patients")},
        "/patients/{patient_id}": {
            "get": _op("get_patient", "Get a patient", ("patient_id", "path")),
            "delete": _op("delete_patient", "Delete a patient", ("patient_id", "path")),
        },
        "/doctors/{doctor_id}": {"get": _op("get_doctor", "Get a doctor", ("doctor_id", "path"))},
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="clinic")


@pytest.mark.parametrize(
    ("request_text", "route", "arguments"),
    [
        ("예약 A-1001 취소해줘", "cancel_appointment", {"appointment_id": "A-1001"}),
        ("환자 P-102 삭제해줘", "delete_patient", {"patient_id": "P-102"}),
        ("의사 D-7 정보 알려줘", "get_doctor", {"doctor_id": "D-7"}),
    ],
)
def test_korean_thing_word_binds_its_id(
    router: SchemaRouter, request_text: str, route: str, arguments: dict[str, str]
) -> None:
    request = PlanRequest(query=request_text, allowed_effects=frozenset(Effect))
    step = router.plan(request, max_calls=3).steps[0]
    assert (step.route_id, step.arguments) == (f"clinic/rest/{route}", arguments)


def test_a_list_of_a_patients_appointments_takes_the_patient(router: SchemaRouter) -> None:
    # the binding, whichever route the hashing encoder ranks first
    found = {
        c.route_id: dict(c.bound_parameters)
        for c in router.retrieve("환자 P-100의 예약 목록 보여줘", k=6)
    }
    assert found["clinic/rest/list_appointments"] == {"patient_id": "P-100"}
