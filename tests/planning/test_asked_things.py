"""A read of the things of one named thing plans their list filtered by its id, not the get
of that thing (:mod:`schemarouter.planning.asked_things`): "What appointments does patient
P-100 have?" planned ``get_patient`` (trial Z3), "List the employees in department D-10"
``get_department`` (the HR trial): each id's example in its parameter's description, the id
the user tried, lifted the get of its thing above the list."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest

from helpers import hashing_router, ok, openapi_document

_S = {"type": "string"}


def _path_id(name: str) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _S,
            "description": "The id, such as P-100 or D-10",
        }
    ]


def _filter(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": _S, "description": "Filter by it"}


def _op(op: str, summary: str, parameters: list[dict[str, Any]]) -> dict[str, Any]:
    item = {"type": "object", "properties": {"id": _S, "name": _S}}
    return {"operationId": op, "summary": summary, "parameters": parameters, "responses": ok(item)}


DOCUMENT = openapi_document(
    "Office",
    {
        "/patients/{patient_id}": {
            "get": _op("getPatient", "Get a patient", _path_id("patient_id"))
        },
        "/appointments": {
            "get": _op("listAppointments", "List appointments", [_filter("patient_id")])
        },
        "/departments/{department_id}": {
            "get": _op(
                "getDepartment",
                "Get a department: its employees, manager and budget",
                _path_id("department_id"),
            )
        },
        "/employees": {"get": _op("listEmployees", "List employees", [_filter("departmentId")])},
        "/projects": {"get": _op("listProjects", "List projects", [])},
    },
)


def _plan(query: str) -> Any:
    return hashing_router(DOCUMENT, "office").plan(PlanRequest(query=query))


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        (
            "What appointments does patient P-100 have?",
            "list_appointments",
            {"patient_id": "P-100"},
        ),
        ("List the employees in department D-10", "list_employees", {"departmentId": "D-10"}),
    ],
)
def test_the_things_of_a_named_thing_are_listed_by_its_id(
    query: str, route: str, arguments: dict[str, str]
) -> None:
    plan = _plan(query)
    assert plan.route_ids[0] == f"office/rest/{route}"
    assert dict(plan.steps[0].arguments) == arguments


def test_the_plan_says_why_the_list_comes_before_the_get_ranked_first() -> None:
    plan = _plan("What appointments does patient P-100 have?")
    assert plan.route_ids[0] == "office/rest/list_appointments"
    assert any("appointments of patient 'P-100'" in w and "get_patient" in w for w in plan.warnings)


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("Show patient P-100", "get_patient"),  # the thing itself
        ("What is the name of department D-10?", "get_department"),
        ("Which projects does department D-10 have?", "get_department"),  # no list filters by it
    ],
)
def test_a_read_of_the_named_thing_itself_keeps_its_get(query: str, route: str) -> None:
    plan = _plan(query)
    assert list(plan.route_ids[:1]) == [f"office/rest/{route}"]
