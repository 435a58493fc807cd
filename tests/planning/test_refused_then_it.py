"""An id the request refuses one change of, then names by "it" for another, is that change's
(:mod:`schemarouter.planning.referred`).

"Don't cancel appointment A-1001, confirm it instead" planned ``confirm_appointment`` with its
id missing (trial Z3 #19; trial 15's "..., reroute it to warehouse WH-7 instead" too, its verb
none that a change reads as), and "Don't delete department D-30, rename it to Treasury instead"
the update with neither the id nor the name (the HR trial): every id of a clause that says
not was held back, and the name's match, starting right after that clause's comma, read as
an item of its list. Nothing was sent; the change asked could not run. What the server
receives is checked: the refused change never, the one asked once, on the id named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}


def _id(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": _S}]


def _op(op: str, summary: str, **more: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "name": _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}, **more}


_NAME = {
    "required": True,
    "content": {"application/json": {"schema": {"type": "object", "properties": {"name": _S}}}},
}


_SLOT = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {"slot_id": _S},
                "required": ["slot_id"],
            }
        }
    },
}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Office", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/departments/{department_id}": {
                "parameters": _id("department_id"),
                "get": _op("getDepartment", "Get a department"),
                "patch": _op(
                    "updateDepartment", "Rename or update a department", requestBody=_NAME
                ),
                "delete": _op("deleteDepartment", "Delete a department"),
            },
            "/appointments/{appointment_id}": {
                "parameters": _id("appointment_id"),
                "get": _op("getAppointment", "Get an appointment"),
            },
            "/appointments/{appointment_id}/cancel": {
                "parameters": _id("appointment_id"),
                "post": _op("cancelAppointment", "Cancel an appointment"),
            },
            "/appointments/{appointment_id}/confirm": {
                "parameters": _id("appointment_id"),
                "post": _op("confirmAppointment", "Confirm an appointment"),
            },
            "/appointments/{appointment_id}/rebook": {
                "parameters": _id("appointment_id"),
                "post": _op(
                    "rebookAppointment",
                    "Rebook an appointment into another slot",
                    requestBody=_SLOT,
                ),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "x", "name": "y"})


def _sent(query: str) -> list[tuple[str, str, Any]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="office")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        if all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        (
            "Don't cancel appointment A-1001, confirm it instead",
            [("POST", "/appointments/A-1001/confirm", None)],
        ),
        (
            "Don't delete department D-30, rename it to Treasury instead",
            [("PATCH", "/departments/D-30", {"name": "Treasury"})],
        ),
        ("Don't delete department D-30, just show it", [("GET", "/departments/D-30", None)]),
        (  # trial 15: a verb no change reads as ("reroute it") took the id only where a
            # read was asked; the route whose name leads with it takes it now
            "Don't cancel appointment A-1001, rebook it into slot SL-4 instead",
            [("POST", "/appointments/A-1001/rebook", {"slot_id": "SL-4"})],
        ),
        (  # the "don't" after D-30's "but" refused D-30 too: nothing was deleted
            "Delete department D-30 but don't delete department D-31",
            [("DELETE", "/departments/D-30", None)],
        ),
        (  # Korean drops the object it named: the change asked after -지 말고 takes it
            "부서 D-30 삭제하지 말고 이름을 Treasury로 바꿔줘",
            [("PATCH", "/departments/D-30", {"name": "Treasury"})],
        ),
        ("예약 A-1001 취소하지 말고 확정해줘", [("POST", "/appointments/A-1001/confirm", None)]),
        (  # the cancel of A-1002 was planned, ready to send: 확정 (confirm) no table knew
            "예약 A-1001 취소하지 말고 A-1002 확정해줘",
            [("POST", "/appointments/A-1002/confirm", None)],
        ),
    ],
)
def test_the_id_refused_one_change_is_the_next_changes_when_it_names_it(
    query: str, sent: list[tuple[str, str, Any]]
) -> None:
    assert _sent(query) == sent


@pytest.mark.parametrize(
    "query",
    [
        "Don't delete department D-30, delete it later",  # the refused change again
        "Don't cancel appointment A-1001, don't confirm it either",  # refused too
        "Delete every department except D-30, then rename it to Treasury",  # set aside
        "Don't cancel appointment A-1001 or appointment A-1002, confirm it",  # which one?
        "Don't rename department D-30 to Treasury",
        "Don't rebook appointment A-1001, rebook it into slot SL-4",  # the refused change
        "Never, ever, rename department D-30 to Treasury",
        "부서 D-30 삭제하지 말고 나중에 삭제해줘",
        "부서 D-30 삭제하지 말고 보여줘",  # no read is planned here, nor the deletion sent
        "예약 A-1001 취소하지 말고 A-1002 취소하지 마",
    ],
)
def test_no_change_is_sent_to_an_id_the_request_keeps_from_it(query: str) -> None:
    assert [s for s in _sent(query) if s[0] != "GET"] == []


@pytest.mark.parametrize(
    "query",
    [  # twelfth security review: the gerund was counted as the cancel asked again
        "Don't cancel appointment A-1001 but confirm appointment A-1002, cancelling is bad",
        "Don't cancel appointment A-1001, confirm appointment A-1002; no cancellation",
    ],
)
def test_a_noun_of_the_refused_verb_asks_it_of_no_other_id(query: str) -> None:
    assert _sent(query) == [("POST", "/appointments/A-1002/confirm", None)]
