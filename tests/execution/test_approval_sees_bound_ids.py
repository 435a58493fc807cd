"""The approval tells an id the request wrote from one a list step gave (trial X2).

An ``approve(route, arguments)`` callback saw ``{"ticket_id": "T-1"}`` for "Close ticket
T-1" and for "Close the first ticket" alike: a careful caller who approves an id the user
typed, and asks a person about one the agent took from a list, could not. The arguments are
now an :class:`~schemarouter.ApprovalArguments` whose ``bound`` names each argument an
earlier step gave (:class:`~schemarouter.BoundArgument`: the step, its route, the path)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import ApprovalArguments, BoundArgument, SchemaRouter
from tests.helpdesk_api import (
    SORTING,
    SortedDesk,
    executed,
    helpdesk_document,
    sent,
)
from tests.helpers import WRITES, served_router
from tests.servers.loopback import LoopbackServer

DOCUMENT = helpdesk_document(SORTING, ("id", "created_at"), kind="support")


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(SortedDesk()) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(DOCUMENT, server, "hd")


def test_the_approval_sees_which_id_a_list_step_gave(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _, seen = executed(router, "Close the first ticket")
    assert sent(server) == ["POST /tickets/T-9/close"]
    (arguments,) = seen
    assert isinstance(arguments, ApprovalArguments)
    assert arguments == {"ticket_id": "T-9"}
    assert dict(arguments.bound) == {
        "ticket_id": BoundArgument(step=0, route_id="hd/rest/list_tickets", path="items.*.id")
    }
    assert json.dumps(arguments) == '{"ticket_id": "T-9"}'


def test_an_id_the_request_wrote_is_not_bound(router: SchemaRouter, server: LoopbackServer) -> None:
    _, seen = executed(router, "Close ticket T-8")
    assert sent(server) == ["POST /tickets/T-8/close"]
    assert seen == [{"ticket_id": "T-8"}]
    assert dict(seen[0].bound) == {}
    called: list[Any] = []
    router.call(
        "hd/rest/close_ticket",
        {"ticket_id": "T-1"},
        allow_effects=WRITES,
        approve=lambda _, arguments: called.append(arguments) or True,
    )
    assert dict(called[0].bound) == {}


def test_an_id_a_sorted_list_gave_is_bound(router: SchemaRouter, server: LoopbackServer) -> None:
    _, seen = executed(router, "Close the oldest ticket")
    assert sent(server) == ["POST /tickets/T-9/close"]
    assert seen[0].bound["ticket_id"].route_id == "hd/rest/list_tickets"
