"""A write takes no id from a list the request does not pick from (trial W2).

"Close a ticket" or "Assign a ticket to Ann" with ``max_calls=2`` and writes allowed listed
the tickets and closed (or assigned) whichever the server returned first, an id nobody
named: only deletes were kept from it. A change of any kind now binds a list's entry only
where the request says which ("the first ticket"), says there is one ("my only workspace"),
or names the entry by a value the list filters on ("the ticket of ann@example.com")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.chained_needs import says_first

from helpers import hashing_router, ok, page, path_id, planned_change

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "title": _S, "customer_email": _S}}
_SPACE = {"type": "object", "properties": {"id": _S, "name": _S}}


_EMAIL = {"type": "string", "format": "email"}
_BY_EMAIL = {"name": "customer_email", "in": "query", "required": False, "schema": _EMAIL}
_ASSIGNEE = {"type": "object", "properties": {"assignee": _S}, "required": ["assignee"]}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List support tickets, filtered by customer email",
                "parameters": [_BY_EMAIL],
                "responses": page(_TICKET),
            }
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "close_ticket",
                "summary": "Close a support ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            }
        },
        "/tickets/{ticket_id}/assign": {
            "post": {
                "operationId": "assign_ticket",
                "summary": "Assign a support ticket to a person",
                "parameters": path_id("ticket_id"),
                "requestBody": {"content": {"application/json": {"schema": _ASSIGNEE}}},
                "responses": ok(_TICKET),
            }
        },
        "/workspaces": {
            "get": {
                "operationId": "list_workspaces",
                "summary": "List my workspaces",
                "responses": page(_SPACE),
            }
        },
        "/workspaces/{workspace_id}": {
            "patch": {
                "operationId": "update_workspace",
                "summary": "Update (rename) a workspace",
                "parameters": path_id("workspace_id"),
                "responses": ok(_SPACE),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="hd")


@pytest.mark.parametrize(
    ("request_text", "why"),
    [
        ("Close a ticket", "does not say which entry"),
        ("Close the ticket", "does not say which entry"),
        ("First, close a ticket", "does not say which entry"),
        ("Close the ticket with top priority", "does not say which entry"),
        ("Close the top priority ticket", "does not say which entry"),
        ("Close the ticket, then rename the first workspace", "does not say which entry"),
        ("Close a ticket of ann@example.com", "does not say which entry"),
        ("Close the tickets of ann@example.com", "does not say which entry"),
        ("Close all tickets", "asks for several entries"),
        ("Close the second ticket", "('second') a bound id cannot give"),
        ("Close the latest ticket of ann@example.com", "('latest') a bound id cannot give"),
    ],
)
def test_a_write_takes_no_entry_of_a_list_the_request_does_not_pick_from(
    router: SchemaRouter, request_text: str, why: str
) -> None:
    plan, close = planned_change(router, request_text, "hd/rest/close_ticket")
    assert not close.bindings
    assert close.missing_parameters == ("ticket_id",)
    assert "hd/rest/list_tickets" not in plan.route_ids
    assert any("no listed entry is taken" in w and why in w for w in plan.warnings)


@pytest.mark.parametrize("count", ["max_items", "page_len", "limit"])
def test_a_list_paged_by_a_count_picks_no_entry(count: str) -> None:
    """A count "the top 5" fills (:mod:`~schemarouter.planning.page_size`'s names) is no
    filter that picks an entry (trial V1: ``max_items`` and ``page_len`` were read as one)."""
    document = copy.deepcopy(DOCUMENT)
    by_count = {"name": count, "in": "query", "schema": {"type": "integer"}}
    document["paths"]["/tickets"]["get"]["parameters"].append(by_count)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="hd")
    plan, close = planned_change(router, "Close the ticket among the top 5", "hd/rest/close_ticket")
    assert not close.bindings
    assert close.missing_parameters == ("ticket_id",)
    assert any("does not say which entry" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    ("request_text", "first"),
    [
        ("Close the ticket with top priority", False),
        ("Close the first-name field", False),
        ("Close the ticket, top rated", False),
        ("Close the first ticket", True),
        ("Close the top open ticket", True),
    ],
)
def test_first_read_without_a_thing_is_first_read_before_one(
    request_text: str, first: bool
) -> None:
    """A binding with no ``thing`` (made by hand; execution's check reads it so) takes the
    first of several only where "first" or "top" stands before an entry, as with a thing
    (trial V1: any "top" did, "top priority" too)."""
    assert says_first(request_text, "") is first
    assert says_first(request_text, "ticket") is first


def test_an_assignment_to_a_named_person_takes_no_ticket_of_a_list(router: SchemaRouter) -> None:
    plan, assign = planned_change(router, "Assign a ticket to Ann", "hd/rest/assign_ticket")
    assert not assign.bindings
    assert "ticket_id" in assign.missing_parameters
    assert "hd/rest/assign_ticket" in plan.missing_arguments


@pytest.mark.parametrize(
    ("request_text", "route_id", "producer", "filters", "how"),
    [
        (
            "Close the first ticket",
            "hd/rest/close_ticket",
            "hd/rest/list_tickets",
            {},
            "as the request says which",
        ),
        (
            "Close the ticket of ann@example.com",
            "hd/rest/close_ticket",
            "hd/rest/list_tickets",
            {"customer_email": "ann@example.com"},
            "filtered by what the request names",
        ),
        (
            "Rename my only workspace",
            "hd/rest/update_workspace",
            "hd/rest/list_workspaces",
            {},
            "as the request says there is one",
        ),
    ],
)
def test_a_write_takes_the_entry_the_request_picks(
    router: SchemaRouter,
    request_text: str,
    route_id: str,
    producer: str,
    filters: dict[str, str],
    how: str,
) -> None:
    plan, change = planned_change(router, request_text, route_id)
    binding = next(iter(change.bindings.values()))
    assert plan.steps[binding.step].route_id == producer
    assert plan.steps[binding.step].arguments == filters
    assert any(f"from the first entry {producer} returns, {how}" in w for w in plan.warnings)
