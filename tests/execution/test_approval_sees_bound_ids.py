"""The approval tells an id the request wrote from one a list step gave (trial X2).

An ``approve(route, arguments)`` callback saw ``{"ticket_id": "T-1"}`` for "Close ticket
T-1" and for "Close the first ticket" alike: a careful caller who approves an id the user
typed, and asks a person about one the agent took from a list, could not. The arguments are
now an :class:`~schemarouter.ApprovalArguments` whose ``bound`` names each argument an
earlier step gave (:class:`~schemarouter.BoundArgument`: the step, its route, the path)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import ApprovalArguments, BoundArgument, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "created_at": _S}}
_PAGE = {"type": "object", "properties": {"items": {"type": "array", "items": _TICKET}}}
_WRITES = ("read", "write", "destructive")


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List support tickets, sorted by a field",
                "parameters": [
                    _query("sort", {"type": "string", "enum": ["created_at", "priority"]}),
                    _query("order", {"type": "string", "enum": ["asc", "desc"]}),
                    _query("limit", {"type": "integer", "minimum": 1}),
                ],
                "responses": _ok(_PAGE),
            }
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "close_ticket",
                "summary": "Close a support ticket",
                "parameters": [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}],
                "responses": _ok(_TICKET),
            }
        },
    },
}
TICKETS = [
    {"id": "T-1", "created_at": "2026-11-20"},
    {"id": "T-9", "created_at": "2026-11-01"},
    {"id": "T-8", "created_at": "2026-12-02"},
]


def _desk(request: Request) -> Response:
    """The tickets, sorted as asked, the page size kept."""
    if request.method == "GET":
        items = sorted(TICKETS, key=lambda t: t["created_at"])
        if request.arg("order") == "desc":
            items.reverse()
        return json_response({"items": items[: int(request.arg("limit") or 100)]})
    return json_response(next(t for t in TICKETS if t["id"] == request.path.split("/")[2]))


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_desk) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    server.requests.clear()
    document = copy.deepcopy(DOCUMENT)
    document["servers"] = [{"url": server.base_url}]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="hd")
    return router


def _execute(router: SchemaRouter, text: str) -> tuple[Any, list[Any]]:
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES), max_calls=2)
    seen: list[Any] = []

    def approve(route: Any, arguments: Any) -> bool:
        seen.append(arguments)
        return True

    return router.execute(plan, allow_effects=_WRITES, approve=approve), seen


def _sent(server: LoopbackServer) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.requests if r.method != "GET"]


def test_the_approval_sees_which_id_a_list_step_gave(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _, seen = _execute(router, "Close the first ticket")
    assert _sent(server) == ["POST /tickets/T-9/close"]
    (arguments,) = seen
    assert isinstance(arguments, ApprovalArguments)
    assert arguments == {"ticket_id": "T-9"}
    assert dict(arguments.bound) == {
        "ticket_id": BoundArgument(step=0, route_id="hd/rest/list_tickets", path="items.*.id")
    }
    assert json.dumps(arguments) == '{"ticket_id": "T-9"}'


def test_an_id_the_request_wrote_is_not_bound(router: SchemaRouter, server: LoopbackServer) -> None:
    _, seen = _execute(router, "Close ticket T-8")
    assert _sent(server) == ["POST /tickets/T-8/close"]
    assert seen == [{"ticket_id": "T-8"}]
    assert dict(seen[0].bound) == {}
    called: list[Any] = []
    router.call(
        "hd/rest/close_ticket",
        {"ticket_id": "T-1"},
        allow_effects=_WRITES,
        approve=lambda _, arguments: called.append(arguments) or True,
    )
    assert dict(called[0].bound) == {}


def test_an_id_a_sorted_list_gave_is_bound(router: SchemaRouter, server: LoopbackServer) -> None:
    _, seen = _execute(router, "Close the oldest ticket")
    assert _sent(server) == ["POST /tickets/T-9/close"]
    assert seen[0].bound["ticket_id"].route_id == "hd/rest/list_tickets"
