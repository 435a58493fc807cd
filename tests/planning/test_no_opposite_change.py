"""A change is never planned as the opposite of the one asked for (trial V2).

"Reopen a ticket" planned ``close_ticket``, ranked first; "Unassign ticket T-8" planned
``assign_ticket``. Where a route of the request's verb is among the best eligible, it is
planned; where none is, a write of the same thing that undoes nothing; where none is left
either, the opposite is not planned."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.opposite_verbs import no_opposite_change

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "status": _S, "assignee": _S}}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _action(op: str, summary: str, path_id: str = "ticket_id") -> dict[str, Any]:
    parameters = [{"name": path_id, "in": "path", "required": True, "schema": _S}]
    return {
        "post": {
            "operationId": op,
            "summary": summary,
            "parameters": parameters,
            "responses": _ok(_TICKET),
        }
    }


def _document(*, reopen: bool, update: bool) -> dict[str, Any]:
    paths: dict[str, Any] = {
        "/tickets/{ticket_id}/close": _action(
            "close_ticket", "Close a support ticket; reopen it later if needed"
        ),
        "/tickets/{ticket_id}/assign": _action(
            "assign_ticket", "Assign a ticket to a person; unassign it later if needed"
        ),
        "/locks/{lock_id}/lock": _action("lock_door", "Lock a door lock", "lock_id"),
    }
    if reopen:
        paths["/tickets/{ticket_id}/reopen"] = _action(
            "reopen_ticket", "Set a closed ticket back to open"
        )
        paths["/tickets/{ticket_id}/unassign"] = _action(
            "unassign_ticket", "Take the person off a ticket"
        )
    if update:
        body = {"type": "object", "properties": {"status": _S, "assignee": _S}}
        paths["/tickets/{ticket_id}"] = {
            "patch": {
                "operationId": "update_ticket",
                "summary": "Update a support ticket's status",
                "parameters": [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}],
                "requestBody": {"content": {"application/json": {"schema": body}}},
                "responses": _ok(_TICKET),
            }
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Helpdesk", "version": "1.0"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    }


def _router(**kinds: bool) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(**kinds), provider="hd")
    return router


def _plan(router: SchemaRouter, text: str) -> Any:
    request = PlanRequest(query=text, allowed_effects=("read", "write", "destructive"))
    return router.plan(request, max_calls=2)


@pytest.mark.parametrize(
    ("request_text", "route_id", "opposite"),
    [
        ("Reopen ticket T-7", "hd/rest/reopen_ticket", "hd/rest/close_ticket"),
        ("Unassign ticket T-8", "hd/rest/unassign_ticket", "hd/rest/assign_ticket"),
    ],
)
def test_the_route_of_the_asked_verb_is_planned_not_its_opposite(
    request_text: str, route_id: str, opposite: str
) -> None:
    snapshot = _router(reopen=True, update=False).registry.snapshot()
    ranked = [opposite, "hd/rest/lock_door", route_id]  # as W2's ranking put close_ticket
    warnings: list[str] = []
    planned = no_opposite_change(request_text, snapshot, ranked, warnings)
    assert planned == [route_id, opposite, "hd/rest/lock_door"]
    assert any(f"{route_id} is planned before {opposite}" in w for w in warnings)


@pytest.mark.parametrize("request_text", ["Reopen ticket T-7", "Unassign ticket T-8"])
def test_with_no_route_of_the_verb_a_write_of_the_thing_that_undoes_nothing_is_planned(
    request_text: str,
) -> None:
    plan = _plan(_router(reopen=False, update=True), request_text)
    assert plan.route_ids == ("hd/rest/update_ticket",)
    assert plan.steps[0].arguments["ticket_id"] in {"T-7", "T-8"}


@pytest.mark.parametrize("request_text", ["Reopen ticket T-7", "Unassign ticket T-8"])
def test_with_nothing_else_the_opposite_is_not_planned(request_text: str) -> None:
    plan = _plan(_router(reopen=False, update=False), request_text)
    assert plan.route_ids == ()
    assert "nothing is planned, as none of the" in plan.reason


@pytest.mark.parametrize(
    ("request_text", "route_id"),
    [
        ("Close ticket T-7", "hd/rest/close_ticket"),
        ("Assign ticket T-8", "hd/rest/assign_ticket"),
        ("Close ticket T-7 and then reopen it", "hd/rest/close_ticket"),
    ],
)
def test_the_asked_verb_keeps_its_route(request_text: str, route_id: str) -> None:
    plan = _plan(_router(reopen=True, update=True), request_text)
    assert plan.route_ids[0] == route_id


def test_a_verb_the_request_refuses_is_not_the_one_asked() -> None:
    plan = _plan(_router(reopen=False, update=True), "Don't close ticket T-7, reopen it")
    assert plan.route_ids == ("hd/rest/update_ticket",)
