"""A sorted pick changes the first of the sorted answer or nothing (trial X2).

"Close the oldest ticket" lists the tickets sorted, one entry a page; a server that ignores
the page size answers with all of them, and then nothing is changed, the error saying the
server kept to neither its page size nor (so far as is known) its order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
from tests.helpdesk_api import (
    SORTING,
    SortedDesk,
    executed,
    helpdesk_document,
    sent,
)
from tests.helpers import served_router
from tests.servers.loopback import LoopbackServer

DOCUMENT = helpdesk_document(SORTING, ("id", "created_at"), kind="support", get=True)
DESK = SortedDesk()


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(DESK) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> Iterator[SchemaRouter]:
    yield served_router(DOCUMENT, server, "hd")
    DESK.ignores_limit = False


def test_a_sorted_pick_changes_the_first_of_the_sorted_answer(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _, seen = executed(router, "Close the oldest ticket")
    assert [r.raw_path for r in server.requests if r.method == "GET"] == [
        "/tickets?sort=created_at&order=asc&limit=1"
    ]
    assert sent(server) == ["POST /tickets/T-9/close"]
    assert seen == [{"ticket_id": "T-9"}]


def test_a_server_that_ignores_the_page_size_gets_no_change(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    DESK.ignores_limit = True
    with pytest.raises(ExecutionError, match=r"was asked for one entry .* returned 3 values"):
        executed(router, "Close the oldest ticket")
    assert sent(server) == []


def test_a_sorted_read_from_a_server_that_ignores_the_page_size_says_so(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    DESK.ignores_limit = True
    plan = router.plan(PlanRequest(query="Show the oldest ticket"), max_calls=2)
    assert plan.route_ids == ("hd/rest/list_tickets", "hd/rest/get_ticket")
    result = router.execute(plan)
    assert any(
        "where it was asked for one" in w and "may not be the one" in w for w in result.warnings
    ), result.warnings
