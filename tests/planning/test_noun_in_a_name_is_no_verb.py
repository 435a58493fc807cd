"""A change whose verb is a noun as often ("book", "order", "tag") is one a route does only
where its name leads with it (trial 13: on a library API, ``borrow_book`` (``POST
/loans``) was read as a route that books, its unknown verb "borrow" passed over for the noun
after it, so "Book room R-201 for member M-17 on 2026-12-15" planned ``borrow_book`` before
``create_booking``, ranked above it, with ``book_id`` missing; nothing was booked)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.contracts import Effect
from schemarouter.planning.asked_changes import does_change
from schemarouter.planning.planner import plan_routes

from helpers import hashing_router, ok
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}


def _create(op: str, summary: str, properties: dict[str, Any]) -> dict[str, Any]:
    body = {"type": "object", "required": list(properties), "properties": properties}
    return {
        "post": {
            "operationId": op,
            "summary": summary,
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": ok({"type": "object", "properties": {"id": _S}}),
        }
    }


def _read(op: str, summary: str) -> dict[str, Any]:
    listed = {"type": "array", "items": {"type": "object", "properties": {"id": _S}}}
    return {"get": {"operationId": op, "summary": summary, "responses": ok(listed)}}


def _document(base_url: str) -> dict[str, Any]:
    date = {"type": "string", "format": "date"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/bookings": _create(
                "createBooking",
                "Book a study room for a member on a date (room booking)",
                {"member_id": _S, "room_id": _S, "date": date},
            ),
            "/loans": _create(
                "borrowBook",
                "Lend a copy to a library member for 14 days",
                {"member_id": _S, "book_id": _S},
            ),
            "/rooms": _read("listRooms", "List the study rooms of the library"),
            "/notices": _read("listNotices", "Library notices, newest first"),
            "/members": _read("listMembers", "Search library members by name"),
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "X-1"})


def test_book_a_room_books_it() -> None:
    """Retrieval ranked ``create_booking`` first and ``borrow_book`` second (the trial's
    order); planning put ``borrow_book`` first, as the route that "does book"."""
    with LoopbackServer(_app) as server:
        router = hashing_router(_document(server.base_url), "library")
        query = "Book room R-201 for member M-17 on 2026-12-15"
        request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
        ranked = ["create_booking", "borrow_book", "list_rooms", "list_members"]
        values = router.ranker.rank(query, 5).analysis.values
        order = [f"library/rest/{r}" for r in ranked]
        plan = plan_routes(request, router.snapshot(), ranked=order, values=values)
        assert [s.route_id for s in plan.steps] == ["library/rest/create_booking"]
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        assert [(r.path, json.loads(r.body)) for r in server.requests] == [
            ("/bookings", {"member_id": "M-17", "room_id": "R-201", "date": "2026-12-15"})
        ]


@pytest.mark.parametrize(
    ("name", "verb", "does"),
    [
        ("borrow_book", "book", False),
        ("refund_order", "order", False),
        ("book_room", "book", True),
        ("create_booking", "create", True),
    ],
)
def test_a_noun_after_the_first_word_is_no_change_it_does(name: str, verb: str, does: bool) -> None:
    route = hashing_router(_named(name), "shop").snapshot().routes[f"shop/rest/{name}"]
    assert does_change(route, verb) is does


def _named(name: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {f"/{name}": _create(name, "A change", {"note": _S})},
    }
