"""A change's date-time takes the one the request writes (trial Z3).

"Reschedule appointment A-1001 to 2026-12-10T09:00:00Z" and "Book an appointment for patient
P-100 with doctor D-7 at 2026-12-11T10:00:00Z" left the body's ``start`` missing: named like
the lower bound of a search, it took a date-time only after "after", "since" or "from". A
change's ``start`` is when the thing it makes or moves starts; a read's ``start`` still
bounds, and a change with a start and an end takes each by its own word only."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter

from helpers import hashing_router

_S = {"type": "string"}
_T = {"type": "string", "format": "date-time"}


def _ok() -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(*required: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "required": list(required), "properties": properties}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Clinic", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/appointments": {
            "get": {
                "operationId": "list_appointments",
                "summary": "List appointments",
                "parameters": [{"name": "start", "in": "query", "schema": _T}],
                "responses": _ok(),
            },
            "post": {
                "operationId": "create_appointment",
                "summary": "Book an appointment",
                "requestBody": _body("start", patient_id=_S, start=_T),
                "responses": _ok(),
            },
        },
        "/appointments/{appointment_id}": {
            "patch": {
                "operationId": "update_appointment",
                "summary": "Reschedule an appointment",
                "parameters": [
                    {"name": "appointment_id", "in": "path", "required": True, "schema": _S}
                ],
                "requestBody": _body(start=_T, notes=_S),
                "responses": _ok(),
            }
        },
        "/events": {
            "post": {
                "operationId": "create_event",
                "summary": "Create a calendar event",
                "requestBody": _body("start", "end", title=_S, start=_T, end=_T),
                "responses": _ok(),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="clinic")


@pytest.mark.parametrize(
    ("query", "route", "start"),
    [
        (
            "Reschedule appointment A-1001 to 2026-12-10T09:00:00Z",
            "update_appointment",
            "2026-12-10T09:00:00Z",
        ),
        (
            "Book an appointment at 2026-12-11T10:00:00Z",
            "create_appointment",
            "2026-12-11T10:00:00Z",
        ),
    ],
)
def test_a_change_start_takes_the_date_time_written(
    router: SchemaRouter, query: str, route: str, start: str
) -> None:
    from schemarouter.planning.arguments import fill_arguments

    arguments = fill_arguments(router.snapshot().routes[f"clinic/rest/{route}"], query)
    assert arguments["body"]["start"] == start


def test_a_read_start_still_bounds() -> None:
    from schemarouter.planning.arguments import fill_arguments

    router = hashing_router(DOCUMENT, provider="clinic")
    route = router.snapshot().routes["clinic/rest/list_appointments"]
    assert "start" not in fill_arguments(route, "appointments until 2026-12-11T10:00:00Z")
    found = fill_arguments(route, "appointments after 2026-12-11T10:00:00Z")
    assert found["start"] == "2026-12-11T10:00:00Z"


def test_a_change_with_a_start_and_an_end_takes_neither_from_one_date_time(
    router: SchemaRouter,
) -> None:
    from schemarouter.planning.arguments import fill_arguments

    route = router.snapshot().routes["clinic/rest/create_event"]
    body = fill_arguments(route, "Create an event at 2026-12-11T10:00:00Z").get("body", {})
    assert "start" not in body and "end" not in body
