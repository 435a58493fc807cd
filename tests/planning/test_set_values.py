"""A change takes the value the request sets a text property to (trial Z3: "change the phone
of patient P-100 to 010-1234-5678" left the update's body missing)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, openapi_document, path_id

_S = {"type": "string"}


_PROPS = {"phone": _S, "notes": _S, "email": {"type": "string", "format": "email"}}
_BODY = {"application/json": {"schema": {"type": "object", "properties": _PROPS}}}
CLINIC = openapi_document(
    "Clinic",
    {
        "/patients/{patient_id}": {
            "parameters": path_id("patient_id"),
            "patch": {
                "operationId": "update_patient",
                "summary": "Update a patient's details",
                "requestBody": {"required": True, "content": _BODY},
                "responses": ok({"type": "object"}),
            },
        }
    },
)


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("change the phone of patient P-100 to 010-1234-5678", {"phone": "010-1234-5678"}),
        ("change patient P-100's phone to 010-9999-0000.", {"phone": "010-9999-0000"}),
        (
            "set patient P-100's notes to 'allergic to penicillin'",
            {"notes": "allergic to penicillin"},
        ),
        (
            "change the phone of patient P-100 to 010-1 and the notes to 'vip'",
            {"phone": "010-1", "notes": "vip"},
        ),
        # no verb of setting, or one said not to do: nothing is taken
        ("send the phone of patient P-100 to Bob", None),
        ("don't change the phone of patient P-100 to 010-1", None),
        # two values named: none is guessed
        ("change the phone of patient P-100 to 010-1, not 010-2", None),
    ],
)
def test_a_change_takes_the_value_a_property_is_set_to(
    query: str, body: dict[str, Any] | None
) -> None:
    plan = hashing_router(CLINIC, "clinic").plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect))
    )
    (step,) = plan.steps
    assert step.arguments.get("body") == body
    if body is not None:
        assert step.arguments["patient_id"] == "P-100"


_NAMED = {"name": _S, "title": _S, "phone": _S}
STAFF = openapi_document(
    "Staff",
    {
        "/employees/{employee_id}": {
            "parameters": path_id("employee_id"),
            "patch": {
                "operationId": "update_employee",
                "summary": "Update an employee's details",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"type": "object", "properties": _NAMED}}
                    },
                },
                "responses": ok({"type": "object"}),
            },
        }
    },
)


@pytest.mark.parametrize(
    ("query", "body"),
    [
        # a title or a name is set as any other text property is (trial 10: only "rename" /
        # "retitle" put a value in them, so this update went without its body)
        ("Set the title of employee E-1004 to Controller", {"title": "Controller"}),
        ("change employee E-1004's name to 'Ada King'", {"name": "Ada King"}),
        # "rename" puts the name alone where the body takes both (trial 10: the title too)
        ("rename employee E-1004 to Ada", {"name": "Ada"}),
        ("retitle employee E-1004 to Lead", {"title": "Lead"}),
        ("don't set the title of employee E-1004 to Lead", None),
        ("set the title of employee E-1004 to Lead, not Manager", None),
    ],
)
def test_a_title_or_a_name_takes_the_value_it_is_set_to(
    query: str, body: dict[str, Any] | None
) -> None:
    plan = hashing_router(STAFF, "staff").plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect))
    )
    (step,) = plan.steps
    assert step.arguments.get("body") == body
    if body is not None:
        assert step.arguments["employee_id"] == "E-1004"


@pytest.mark.parametrize(
    ("query", "body"),
    [
        # a new name of several words, each starting with a capital or a digit (trial 11:
        # "Rename device D-302 to Desk Lamp" sent name="Desk")
        ("Rename employee E-1004 to Ada King", {"name": "Ada King"}),
        ("rename employee E-1004 to Ada King, thanks", {"name": "Ada King"}),
        ("rename employee E-1004 to Ada King and say when it is done", {"name": "Ada King"}),
        ("직원 E-1004 이름을 Ada King으로 바꿔줘", {"name": "Ada King"}),
        # a lower-case word ends it
        ("rename employee E-1004 to Ada in the directory", {"name": "Ada"}),
    ],
)
def test_a_new_name_of_several_words_is_taken_whole(
    query: str, body: dict[str, Any] | None
) -> None:
    plan = hashing_router(STAFF, "staff").plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect))
    )
    (step,) = plan.steps
    assert step.arguments.get("body") == body
    assert step.arguments["employee_id"] == "E-1004"
