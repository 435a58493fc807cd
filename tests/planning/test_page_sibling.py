"""A lookup that needs an id the request does not give gives way to the list of the same
entries in a page envelope (trial X3).

"Show me the open support tickets" planned ``get_ticket`` with ``ticket_id`` missing, though
``list_tickets`` (``{"items": [Ticket], "next_page": ...}``, ``status`` filled with "open")
needs nothing: a list route gave way only where its fields were the lookup's by name, and an
envelope's are ``items.id``, ``items.subject`` ... Now the list's entries under one prefix
count as the lookup's fields."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

TICKET = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "subject": {"type": "string"},
        "status": {"type": "string", "enum": ["open", "pending", "closed"]},
    },
}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _document(items: dict[str, Any]) -> dict[str, Any]:
    page = {"type": "object", "properties": {"items": items, "next_page": {"type": "integer"}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "support", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "paths": {
            "/tickets/{ticket_id}": {
                "get": {
                    "operationId": "getTicket",
                    "summary": "Get one support ticket by its id.",
                    "parameters": [
                        {
                            "name": "ticket_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": _json(TICKET),
                }
            },
            "/tickets": {
                "get": {
                    "operationId": "listTickets",
                    "summary": "List tickets by status and customer.",
                    "parameters": [
                        {"name": "status", "in": "query", "schema": TICKET["properties"]["status"]},
                        {"name": "customer_id", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": _json(page),
                }
            },
        },
    }


def _plan(items: dict[str, Any], request: str) -> tuple[str, dict[str, Any]]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(items), provider="support")
    assert router.retrieve(request, k=2).route_ids[0] == "support/rest/get_ticket"
    (step,) = router.plan(request).steps
    return step.route_id, dict(step.arguments)


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("Show me the open support tickets by id", {"status": "open"}),
        ("support tickets by id of customer C-43", {"customer_id": "C-43"}),
    ],
)
def test_the_page_of_entries_stands_in_for_a_lookup_of_one(
    request_text: str, arguments: dict[str, Any]
) -> None:
    route, given = _plan({"type": "array", "items": TICKET}, request_text)
    assert (route, given) == ("support/rest/list_tickets", arguments)


def test_a_page_of_other_entries_does_not() -> None:
    fewer = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}
    route, _ = _plan(fewer, "Show me the open support tickets by id")
    assert route == "support/rest/get_ticket"
