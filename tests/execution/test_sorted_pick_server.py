"""A sorted pick changes the first of the sorted answer or nothing (trial X2).

"Close the oldest ticket" lists the tickets sorted, one entry a page; a server that ignores
the page size answers with all of them, and then nothing is changed, the error saying the
server kept to neither its page size nor (so far as is known) its order."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ExecutionError
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
        "/tickets/{ticket_id}": {
            "get": {
                "operationId": "get_ticket",
                "summary": "Get a support ticket",
                "parameters": [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}],
                "responses": _ok(_TICKET),
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


class _Desk:
    """The tickets, sorted as asked; the page size kept unless ``ignores_limit``."""

    ignores_limit = False

    def __call__(self, request: Request) -> Response:
        if request.method == "GET":
            items = sorted(TICKETS, key=lambda t: t["created_at"])
            if request.arg("order") == "desc":
                items.reverse()
            limit = request.arg("limit")
            if limit is not None and not self.ignores_limit:
                items = items[: int(limit)]
            return json_response({"items": items})
        return json_response(next(t for t in TICKETS if t["id"] == request.path.split("/")[2]))


DESK = _Desk()


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(DESK) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> Iterator[SchemaRouter]:
    server.requests.clear()
    document = copy.deepcopy(DOCUMENT)
    document["servers"] = [{"url": server.base_url}]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="hd")
    yield router
    DESK.ignores_limit = False


def _execute(router: SchemaRouter, text: str) -> tuple[Any, list[Any]]:
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES), max_calls=2)
    seen: list[Any] = []

    def approve(route: Any, arguments: Any) -> bool:
        seen.append(arguments)
        return True

    return router.execute(plan, allow_effects=_WRITES, approve=approve), seen


def _sent(server: LoopbackServer) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.requests if r.method != "GET"]


def test_a_sorted_pick_changes_the_first_of_the_sorted_answer(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    _, seen = _execute(router, "Close the oldest ticket")
    assert [r.raw_path for r in server.requests if r.method == "GET"] == [
        "/tickets?sort=created_at&order=asc&limit=1"
    ]
    assert _sent(server) == ["POST /tickets/T-9/close"]
    assert seen == [{"ticket_id": "T-9"}]


def test_a_server_that_ignores_the_page_size_gets_no_change(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    DESK.ignores_limit = True
    with pytest.raises(ExecutionError, match=r"was asked for one entry .* returned 3 values"):
        _execute(router, "Close the oldest ticket")
    assert _sent(server) == []


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
