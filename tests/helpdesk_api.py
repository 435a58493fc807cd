"""A helpdesk's tickets on loopback: the document (a list of tickets, a close, a get where
asked), the router over it, and what a request's plan sent there; the execution tests of a
change whose ticket a list step picks share them (importable: pytest puts tests/ on
sys.path)."""

from __future__ import annotations

from typing import Any

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, ok, page, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}

#: The list's sorting: by creation or priority, ascending or descending, a page size.
SORTING = [
    {"name": name, "in": "query", "required": False, "schema": schema}
    for name, schema in (
        ("sort", {"type": "string", "enum": ["created_at", "priority"]}),
        ("order", {"type": "string", "enum": ["asc", "desc"]}),
        ("limit", {"type": "integer", "minimum": 1}),
    )
]

#: Three tickets by creation date: T-9 the oldest, T-8 the newest.
TICKETS = [
    {"id": "T-1", "created_at": "2026-11-20"},
    {"id": "T-9", "created_at": "2026-11-01"},
    {"id": "T-8", "created_at": "2026-12-02"},
]


def filters(*names: str) -> list[dict[str, Any]]:
    """The list's optional string query parameters ``names``."""
    return [{"name": name, "in": "query", "schema": _S} for name in names]


def helpdesk_document(
    parameters: list[dict[str, Any]],
    fields: tuple[str, ...],
    *,
    kind: str = "helpdesk",
    get: bool = False,
) -> dict[str, Any]:
    """``list_tickets`` (``GET /tickets`` with ``parameters``, a page of tickets of string
    ``fields``), ``get_ticket`` where ``get``, and ``close_ticket`` (``POST
    /tickets/{ticket_id}/close``); each summary names ``kind`` tickets ("support" lists
    "sorted by a field")."""
    ticket = {"type": "object", "properties": dict.fromkeys(fields, _S)}
    listed = f"List {kind} tickets" + (", sorted by a field" if kind == "support" else "")
    paths: dict[str, Any] = {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": listed,
                "parameters": parameters,
                "responses": page(ticket),
            }
        }
    }
    if get:
        paths["/tickets/{ticket_id}"] = {
            "get": {
                "operationId": "get_ticket",
                "summary": f"Get a {kind} ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(ticket),
            }
        }
    paths["/tickets/{ticket_id}/close"] = {
        "post": {
            "operationId": "close_ticket",
            "summary": f"Close a {kind} ticket",
            "parameters": path_id("ticket_id"),
            "responses": ok(ticket),
        }
    }
    return {"openapi": "3.0.3", "info": {"title": "Helpdesk", "version": "1"}, "paths": paths}


class SortedDesk:
    """:data:`TICKETS`, sorted by creation as asked; the page size kept unless
    ``ignores_limit``."""

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


def executed(router: SchemaRouter, text: str, max_calls: int = 2) -> tuple[Any, list[Any]]:
    """The result of planning ``text`` (writes allowed) and executing it, every change
    approved, and the arguments each approval saw."""
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=max_calls)
    seen: list[Any] = []

    def approve(route: Any, arguments: Any) -> bool:
        seen.append(arguments)
        return True

    return router.execute(plan, allow_effects=WRITES, approve=approve), seen


def sent(server: LoopbackServer) -> list[str]:
    """Every request but the reads ``server`` got, as ``"METHOD /path"``."""
    return [f"{r.method} {r.path}" for r in server.requests if r.method != "GET"]
