"""A change whose ids the request names, and leaves open, is not bound to a list's first
entry (trial Y1).

"Delete tickets T-1 and T-2" planned with ``max_calls=2`` and writes allowed: the delete
rightly takes none of the two ids (a list), and the planner then chained ``list_tickets``
before it and bound ``ticket_id`` to the first ticket the list returns, a ticket the user
never named; "Do not, under any circumstances, delete ticket T-1; close it instead" did the
same. Where the request names ids of its own, a change's id left open stays missing, for the
caller to give."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, hashing_router, ok

_TICKET = {"type": "object", "properties": {"id": {"type": "string"}}}
_PAGE = {"type": "object", "properties": {"items": {"type": "array", "items": _TICKET}}}
_ID = [{"name": "ticket_id", "in": "path", "required": True, "schema": {"type": "string"}}]


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List support tickets",
                "responses": ok(_PAGE),
            }
        },
        "/tickets/{ticket_id}": {
            "delete": {
                "operationId": "delete_ticket",
                "summary": "Delete a support ticket",
                "parameters": _ID,
                "responses": ok(_TICKET),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="hd")


@pytest.mark.parametrize(
    "request_text",
    [
        "Delete tickets T-1 and T-2",
        "Delete ticket T-1 or ticket T-2",
        "Do not, under any circumstances, delete ticket T-1",
    ],
)
def test_a_changes_named_ids_left_open_are_not_bound_to_a_list(
    router: SchemaRouter, request_text: str
) -> None:
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES), max_calls=2)
    delete = [s for s in plan.steps if s.route_id == "hd/rest/delete_ticket"]
    assert delete
    assert not delete[0].bindings
    assert delete[0].missing_parameters == ("ticket_id",)


def test_a_change_whose_id_is_given_takes_it(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="Delete ticket T-1", allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("hd/rest/delete_ticket",)
    assert plan.steps[0].arguments == {"ticket_id": "T-1"}


@pytest.mark.parametrize(
    "request_text", ["Delete a ticket", "Remove one of the tickets", "티켓 삭제해줘"]
)
def test_a_destructive_change_takes_no_id_from_a_list_the_request_does_not_pick_from(
    router: SchemaRouter, request_text: str
) -> None:
    """Trial Z3: "Delete a ticket" with ``max_calls=2`` listed the tickets and deleted the first
    one the server returned, an id nobody named (the approval saw only ``ticket_id='T-7'``)."""
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES), max_calls=2)
    delete = [s for s in plan.steps if s.route_id == "hd/rest/delete_ticket"]
    assert delete
    assert not delete[0].bindings
    assert delete[0].missing_parameters == ("ticket_id",)
    assert plan.missing_arguments == {"hd/rest/delete_ticket": ("ticket_id",)}
    assert any("no listed entry is taken" in w and "'ticket_id'" in w for w in plan.warnings)


@pytest.mark.parametrize("request_text", ["Delete the first ticket", "첫 번째 티켓 삭제해줘"])
def test_a_destructive_change_takes_the_entry_the_request_says_which_of(
    router: SchemaRouter, request_text: str
) -> None:
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("hd/rest/list_tickets", "hd/rest/delete_ticket")
    assert plan.steps[1].bindings["ticket_id"].step == 0
    assert any(
        "takes 'ticket_id' from the first entry hd/rest/list_tickets" in w for w in plan.warnings
    )
