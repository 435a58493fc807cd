"""A delete does not stand for a change the request asks that destroys nothing (trial Z3).

"Close a ticket" planned ``delete_ticket``, ranked first (no route's verb is "close"), where
``update_ticket`` closes it. Where the best route is destructive and the request asks for no
deletion, the next best write that changes the same thing is planned first; its id is then
taken from no list the request does not pick from."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, hashing_router, ok, page, path_id

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "status": _S}}
_BOOKING = {"type": "object", "properties": {"id": _S, "room_id": _S}}
_STATUS = {"type": "string", "enum": ["open", "closed"]}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List support tickets, filtered by status",
                "responses": page(_TICKET),
            },
            "post": {
                "operationId": "create_ticket",
                "summary": "Open (create) a new support ticket",
                "requestBody": _body({"type": "object", "properties": {"subject": _S}}),
                "responses": ok(_TICKET),
            },
        },
        "/tickets/{ticket_id}": {
            "patch": {
                "operationId": "update_ticket",
                "summary": "Update a ticket: its status or priority",
                "parameters": path_id("ticket_id"),
                "requestBody": _body({"type": "object", "properties": {"status": _STATUS}}),
                "responses": ok(_TICKET),
            },
            "delete": {
                "operationId": "delete_ticket",
                "summary": "Delete a support ticket permanently",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            },
        },
        "/bookings": {
            "post": {
                "operationId": "create_booking",
                "summary": "Book a meeting room for a date",
                "requestBody": _body(_BOOKING),
                "responses": ok(_BOOKING),
            }
        },
        "/bookings/{booking_id}": {
            "delete": {
                "operationId": "delete_booking",
                "summary": "Delete (cancel) a room booking",
                "parameters": path_id("booking_id"),
                "responses": ok(_BOOKING),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="hd")


def test_a_close_is_planned_as_the_update_not_the_delete_ranked_above_it(
    router: SchemaRouter,
) -> None:
    ranked = router.retrieve("Close a ticket").route_ids
    assert ranked.index("hd/rest/delete_ticket") < ranked.index("hd/rest/update_ticket")
    plan = router.plan(PlanRequest(query="Close a ticket", allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("hd/rest/update_ticket",)
    assert plan.steps[0].arguments == {"body": {"status": "closed"}}
    assert plan.steps[0].missing_parameters == ("ticket_id",)
    assert any(
        "so hd/rest/update_ticket, which destroys nothing, is planned before "
        "hd/rest/delete_ticket" in w
        for w in plan.warnings
    )


@pytest.mark.parametrize(
    ("request_text", "route_id"),
    [
        ("Delete ticket T-4", "hd/rest/delete_ticket"),
        ("Remove ticket T-4", "hd/rest/delete_ticket"),
        ("Cancel booking B-2", "hd/rest/delete_booking"),
    ],
)
def test_a_delete_the_request_asks_for_stays_first(
    router: SchemaRouter, request_text: str, route_id: str
) -> None:
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES))
    assert plan.route_ids == (route_id,)
    assert not any("destroys nothing" in w for w in plan.warnings)
