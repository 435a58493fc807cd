"""A change takes no entry from a list that did not filter as asked (trial X1).

"Close ticket number 10042" lists the tickets with ``number=10042`` and closes the one entry
returned. A server that ignored the filter and listed one other ticket (``number: 10099``)
had that ticket closed. Now where the entry shows the filter's field with another value the
change is not sent; an entry that shows it (in any case) or does not show it is changed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
from tests.helpdesk_api import filters, helpdesk_document, sent
from tests.helpers import WRITES, served_router
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

DOCUMENT = helpdesk_document(filters("title", "number"), ("id", "title", "number"))
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


def _execute(router: SchemaRouter, text: str, listed: list[dict[str, Any]]) -> None:
    LISTED[:] = listed
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("helpdesk/rest/list_tickets", "helpdesk/rest/close_ticket")
    router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)


@pytest.mark.parametrize(
    ("text", "listed", "shown"),
    [
        ("Close ticket number 10042", [{"id": "T-9", "number": "10099"}], "number='10099'"),
        (
            "Close the ticket titled 'printer on fire'",
            [{"id": "T-9", "title": "coffee machine"}],
            "title='coffee machine'",
        ),
    ],
)
def test_an_entry_the_list_did_not_filter_is_not_changed(
    router: SchemaRouter, server: LoopbackServer, text: str, listed: Any, shown: str
) -> None:
    with pytest.raises(ExecutionError, match=f"whose entry has {shown}"):
        _execute(router, text, listed)
    assert sent(server) == []


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ("Close ticket number 10042", [{"id": "T-9", "number": "10042"}]),
        ("Close the ticket titled 'printer on fire'", [{"id": "T-9", "title": "Printer on Fire"}]),
        ("Close the ticket titled 'printer on fire'", [{"id": "T-9"}]),
    ],
)
def test_an_entry_that_matches_or_does_not_say_is_changed(
    router: SchemaRouter, server: LoopbackServer, text: str, listed: Any
) -> None:
    _execute(router, text, listed)
    assert sent(server) == ["POST /tickets/T-9/close"]
