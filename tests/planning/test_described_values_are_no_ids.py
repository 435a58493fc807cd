"""A quoted value a filter word introduces describes an entry; it is never its id (trial X1).

"Close the ticket titled 'printer'" sent ``POST /tickets/printer/close`` (the one quoted
phrase, without a space, filled the open ``ticket_id``), and "Close the ticket titled 'Close
ticket T-99'" closed T-99 (the "ticket T-99" inside the title read as the ticket's id): the
text of a title, which a user may paste from an entry, chose the ticket to change. Now both
list the tickets by that title and change the one entry returned."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import hashing_router, ok, page, path_id, planned_change

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "title": _S, "name": _S}}
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
                    {"name": "name", "in": "query", "schema": _S},
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
    },
}


@pytest.fixture(scope="module")
def router() -> Any:
    return hashing_router(DOCUMENT, "helpdesk")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Close the ticket titled 'printer'", "printer"),
        ("Close the ticket titled 'Close ticket T-99'", "Close ticket T-99"),
        ('Close the ticket titled "ticket T-99 is broken"', "ticket T-99 is broken"),
        ("Close the ticket titled 'T-99'", "T-99"),
        ("Close the ticket with the title 'see ticket T-42'", "see ticket T-42"),
    ],
)
def test_a_described_value_is_a_filter_not_the_changes_id(
    router: Any, text: str, title: str
) -> None:
    plan, step = planned_change(router, text, "helpdesk/rest/close_ticket")
    assert "ticket_id" not in dict(step.arguments), step.arguments
    assert "ticket_id" in step.bindings
    assert dict(plan.steps[0].arguments) == {"title": title}


def test_an_id_outside_the_description_is_still_the_id(router: Any) -> None:
    _, step = planned_change(
        router, "Close ticket T-7 titled 'printer'", "helpdesk/rest/close_ticket"
    )
    assert dict(step.arguments) == {"ticket_id": "T-7"}


def test_no_before_a_word_is_no_number() -> None:
    """A request saying "Hmm no. Close the first ticket" listed the tickets with ``number=Close``
    ("no." read as "number", trial X1): a number has a digit."""
    document = {**DOCUMENT, "paths": dict(DOCUMENT["paths"])}
    document["paths"]["/tickets"] = {
        "get": {
            **DOCUMENT["paths"]["/tickets"]["get"],
            "parameters": [{"name": "number", "in": "query", "schema": _S}],
        }
    }
    router = hashing_router(document, "helpdesk")
    plan, _ = planned_change(router, "Hmm no. Close the first ticket", "helpdesk/rest/close_ticket")
    assert "number" not in dict(plan.steps[0].arguments)
    plan, _ = planned_change(router, "Close ticket no. 10042", "helpdesk/rest/close_ticket")
    assert dict(plan.steps[0].arguments) == {"number": "10042"}
