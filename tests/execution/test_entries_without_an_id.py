"""A list entry without its id still counts as an entry a change could have meant (trial X1).

"Close my only ticket" runs only where the list returns one entry; execution counted the ids
it found, so a list of two tickets, one of them without an ``id``, read as one, and the other
ticket was closed. "Close the first ticket" of a list whose first entry has no id closed the
second. Now both are refused, naming the entries and the values; a list of one entry is
still changed, and a read still takes the first value."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
from tests.helpdesk_api import filters, helpdesk_document, sent
from tests.helpers import WRITES, served_router
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

DOCUMENT = helpdesk_document(filters("title"), ("id", "title"))
LISTED: list[dict[str, Any]] = []


def _app(request: Request) -> Response:
    if request.method == "GET":  # the filter is not applied: whatever LISTED holds
        return json_response({"items": LISTED})
    return json_response({"id": request.path.split("/")[2]})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(DOCUMENT, server, "helpdesk")


def _execute(router: SchemaRouter, text: str, listed: list[dict[str, Any]]) -> Any:
    LISTED[:] = listed
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("helpdesk/rest/list_tickets", "helpdesk/rest/close_ticket")
    return router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ("Close my only ticket", [{"id": "T-1"}, {"title": "no id"}]),
        (
            "Close the ticket titled 'printer on fire'",
            [{"title": "printer on fire"}, {"id": "T-2", "title": "other"}],
        ),
        ("Close the first ticket", [{"title": "no id"}, {"id": "T-2"}]),
    ],
)
def test_a_change_counts_the_entries_without_an_id(
    router: SchemaRouter, server: LoopbackServer, text: str, listed: list[dict[str, Any]]
) -> None:
    with pytest.raises(ExecutionError, match=r"returned 2 entries \(1 with a value\)"):
        _execute(router, text, listed)
    assert sent(server) == []


def test_a_change_of_the_one_entry_listed_is_sent(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _execute(router, "Close my only ticket", [{"id": "T-1"}])
    assert sent(server) == ["POST /tickets/T-1/close"]
