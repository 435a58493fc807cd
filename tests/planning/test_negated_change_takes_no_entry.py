"""A change the request says not to do takes no listed entry (trial X1).

"Don't close the first ticket" planned ``list_tickets`` and ``close_ticket`` bound to its first
entry, and execution closed it: "first" picked the entry, and nothing read the "don't" (nor
"don’t" as phones write it, "avoid closing", "don't you dare close"). The
Korean "첫 번째 티켓을 닫지 말아줘" ("please don't close the first ticket") reopened it. Such
a change now leaves its id open, and the plan's warning says why."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import hashing_router, ok, page, path_id, planned_change

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "title": _S, "created_at": _S}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1"},
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List helpdesk tickets",
                "parameters": [
                    {"name": "title", "in": "query", "schema": _S},
                    {"name": "sort", "in": "query", "schema": {"enum": ["created_at"]}},
                    {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"]}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": page(_TICKET),
            }
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "close_ticket",
                "summary": "Close a helpdesk ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            }
        },
        "/tickets/{ticket_id}/reopen": {
            "post": {
                "operationId": "reopen_ticket",
                "summary": "Reopen a closed helpdesk ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> Any:
    return hashing_router(DOCUMENT, "helpdesk")


def _changes(router: Any, text: str) -> tuple[list[Any], Any]:
    from schemarouter import PlanRequest

    plan = router.plan(PlanRequest(query=text, allowed_effects=("read", "write")), max_calls=2)
    return [s for s in plan.steps if not s.route_id.endswith("list_tickets")], plan


@pytest.mark.parametrize(
    "text",
    [
        "Don't close the first ticket",
        "Do not close the ticket titled 'printer on fire'",
        "Never close my only ticket",
        "Don't close the oldest ticket",
        "Don’t close the first ticket",
        "Don't you dare close the first ticket",
        "Avoid closing the first ticket",
        "Under no circumstances close the first ticket",
        "Stop closing the first ticket",  # planned reopen_ticket, asked by no one
        "Close the first ticket? No.",  # taken back after it
        "Close the first ticket - just kidding, don't",
        "Close the first ticket. Wait, no! Keep it.",
        "Close the first ticket. Cancel that.",  # trial Y1: "cancel" read as a change asked
        "Close the first ticket... no wait",
        "Close the first ticket (not really)",
        "첫 번째 티켓을 닫지 말아줘",
        "첫 번째 티켓 닫지 마세요",
    ],
)
def test_a_change_the_request_refuses_takes_no_listed_entry(router: Any, text: str) -> None:
    changes, plan = _changes(router, text)
    for step in changes:
        assert not step.bindings, (text, step)
        assert "ticket_id" not in dict(step.arguments)
    if changes and text.startswith(("Don", "Do ", "Never")):
        assert any("says not to close" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    "text", ["Close the first ticket", "Close the first ticket, don't reopen it"]
)
def test_a_change_the_request_asks_for_still_takes_the_entry_it_picks(
    router: Any, text: str
) -> None:
    _, step = planned_change(router, text, "helpdesk/rest/close_ticket")
    assert "ticket_id" in step.bindings
