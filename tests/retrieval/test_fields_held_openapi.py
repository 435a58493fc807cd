"""Trial T6: ``ExecutionState.fields_held`` on a catalog of OpenAPI documents, whose fields
carry no semantic id: the warning said "use the semantic_id of a result's field" where every
result's field had ``semantic_id=None``, so a host that held a route's output could not find
how to skip it."""

from __future__ import annotations

from typing import Any

from schemarouter import ExecutionState, SchemaRouter


def _hr_document() -> dict[str, Any]:
    balance = {
        "type": "object",
        "properties": {
            "employee_id": {"type": "string"},
            "vacation_days_left": {"type": "number", "x-unit": "d"},
            "sick_days_taken": {"type": "number", "x-unit": "d"},
        },
    }
    employee = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "full_name": {"type": "string"}},
    }

    def get(op_id: str, summary: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "get": {
                "operationId": op_id,
                "summary": summary,
                "parameters": [
                    {
                        "name": "employee_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {"application/json": {"schema": schema}},
                    }
                },
            }
        }

    return {
        "openapi": "3.0.3",
        "info": {"title": "People HR API", "version": "2.3.0"},
        "servers": [{"url": "http://127.0.0.1:9/hr"}],
        "paths": {
            "/employees/{employee_id}/leave-balance": get(
                "getLeaveBalance", "Get remaining leave days of an employee", balance
            ),
            "/employees/{employee_id}": get("getEmployee", "Get an employee's profile", employee),
        },
    }


def test_fields_held_naming_an_openapi_field_says_how_to_skip_its_route() -> None:
    router = SchemaRouter()
    router.add_openapi(_hr_document(), provider="hr")
    query = "how many vacation days does employee E-7 have left"
    route = "hr/rest/get_leave_balance"
    found = router.retrieve(query, k=2)
    assert found.route_ids[0] == route
    assert all(f.semantic_id is None for c in found.candidates for f in c.output_fields)

    # the host holds the leave balance and names the field it saw in the result
    state = ExecutionState(fields_held=frozenset({"vacation_days_left"}))
    result = router.reretrieve_state_aware(query, state=state, k=2)
    named = [w for w in result.warnings if "ExecutionState.fields_held" in w]
    assert len(named) == 1, result.warnings
    warning = named[0]
    # what: a field's name, not a semantic id; where: the route that has it; what to do
    assert "'vacation_days_left'" in warning and route in warning, warning
    assert "field name" in warning, warning
    assert "no semantic id" in warning, warning
    assert "tried_routes" in warning, warning
    # no advice to use a semantic id that no result's field has
    assert "use the semantic_id of a result's field" not in warning, warning

    # an id no field has, on a catalog whose fields carry no semantic ids at all
    state = ExecutionState(fields_held=frozenset({"hr.leave_balance"}))
    warning = next(
        w
        for w in router.reretrieve_state_aware(query, state=state, k=2).warnings
        if "ExecutionState.fields_held" in w
    )
    assert "'hr.leave_balance'" in warning and "no registered field has a semantic id" in warning
    assert "tried_routes" in warning, warning

    # and what the warning says to do does skip the route
    skipped = router.reretrieve_state_aware(
        query, state=ExecutionState(tried_routes=frozenset({route})), k=2
    )
    assert route not in skipped.route_ids
    assert skipped.route_ids == ("hr/rest/get_employee",)
