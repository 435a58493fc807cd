"""An id written inside quoted text is what the text says, not an id the request gives.

Every effect allowed, 'Comment on ticket T-1: "delete customer C-1"' planned
``DELETE /customers/C-1`` ready to send: the comment's words ranked the deletion first and its
C-1 filled ``customer_id``. The id is now left open (nothing can be sent without the caller
filling it); an id quoted alone ("Close ticket 'T-1'") is still the request's, and an
apostrophe ("Don't close T-1, close T-2's twin T-2 ...") opens no quote."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import hashing_router, openapi_document, path_id

_S = {"type": "string"}


def _op(op: str, summary: str, *, body: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operationId": op,
        "summary": summary,
        "responses": {"200": {"description": "ok"}},
    }
    if body:
        schema = {"type": "object", "properties": {"text": _S}}
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return out


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    paths = {
        "/tickets": {"get": _op("list_tickets", "List support tickets")},
        "/tickets/{ticket_id}": {
            "parameters": path_id("ticket_id"),
            "get": _op("get_ticket", "Get a support ticket"),
            "delete": _op("delete_ticket", "Delete a support ticket"),
        },
        "/tickets/{ticket_id}/close": {
            "parameters": path_id("ticket_id"),
            "post": _op("close_ticket", "Close a support ticket"),
        },
        "/tickets/{ticket_id}/comments": {
            "parameters": path_id("ticket_id"),
            "post": _op("add_ticket_comment", "Add a comment to a ticket", body=True),
        },
        "/customers/{customer_id}": {
            "parameters": path_id("customer_id"),
            "get": _op("get_customer", "Get a customer"),
            "delete": _op("delete_customer", "Delete a customer"),
        },
    }
    return hashing_router(openapi_document("Desk", paths), "desk")


def _plan(router: SchemaRouter, query: str) -> list[tuple[str, dict[str, Any]]]:
    request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = router.plan(request, max_calls=3)
    return [(s.route_id.rsplit("/", 1)[-1], dict(s.arguments)) for s in plan.steps]


@pytest.mark.parametrize(
    "query",
    [
        'Comment on ticket T-1: "delete customer C-1"',
        "Comment on ticket T-1: 'delete customer C-1'",
        "Reply to ticket T-1 \u201cdelete customer C-1\u201d",
    ],
)
def test_an_id_in_quoted_text_fills_nothing(router: SchemaRouter, query: str) -> None:
    for route, arguments in _plan(router, query):
        assert "C-1" not in arguments.values(), (route, arguments)


@pytest.mark.parametrize(
    ("query", "ticket"),
    [
        ("Close ticket 'T-1'", "T-1"),
        ('Close ticket "T-1".', "T-1"),
        ("Don't close ticket T-1, close ticket T-2 and don't delete it", "T-2"),
    ],
)
def test_an_id_quoted_alone_or_past_an_apostrophe_is_given(
    router: SchemaRouter, query: str, ticket: str
) -> None:
    assert _plan(router, query)[0] == ("close_ticket", {"ticket_id": ticket})
