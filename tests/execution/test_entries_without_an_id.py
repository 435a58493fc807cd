"""A list entry without its id still counts as an entry a change could have meant (trial X1).

"Close my only ticket" runs only where the list returns one entry; execution counted the ids
it found, so a list of two tickets, one of them without an ``id``, read as one, and the other
ticket was closed. "Close the first ticket" of a list whose first entry has no id closed the
second. Now both are refused, naming the entries and the values; a list of one entry is
still changed, and a read still takes the first value."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
from schemarouter.index import HashingEncoder
from tests.helpers import WRITES, ok, page, path_id
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "title": _S}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1"},
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List helpdesk tickets",
                "parameters": [{"name": "title", "in": "query", "schema": _S}],
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
LISTED: list[dict[str, Any]] = []


def _app(request: Request) -> Response:
    if request.method == "GET":
        return json_response({"items": LISTED})
    return json_response({"id": request.path.split("/")[2]})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    server.requests.clear()
    document = copy.deepcopy(DOCUMENT)
    document["servers"] = [{"url": server.base_url}]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="helpdesk")
    return router


def _execute(router: SchemaRouter, text: str, listed: list[dict[str, Any]]) -> Any:
    LISTED[:] = listed
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=2)
    assert plan.route_ids == ("helpdesk/rest/list_tickets", "helpdesk/rest/close_ticket")
    return router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)


def _changed(server: LoopbackServer) -> list[str]:
    return [r.path for r in server.requests if r.method == "POST"]


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
    assert _changed(server) == []


def test_a_change_of_the_one_entry_listed_is_sent(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _execute(router, "Close my only ticket", [{"id": "T-1"}])
    assert _changed(server) == ["/tickets/T-1/close"]
