"""A Korean word that is a noun and a verb names, before an id, the thing of its noun sense,
not of its verb's English word (trial 13: on a library API with ``/books/{book_id}`` and
``/bookings/{booking_id}/confirm``, "예약 B-1003 확정해줘" (confirm booking B-1003) read B-1003
as a book's id, "book" being 예약's first English word, the verb "to book": the confirmation
was planned with ``booking_id`` missing and nothing was sent)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_ITEM = ok({"type": "object", "properties": {"id": {"type": "string"}}})


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/books/{book_id}": {
                "get": {
                    "operationId": "getBook",
                    "summary": "Get a book",
                    "parameters": path_id("book_id"),
                    "responses": _ITEM,
                }
            },
            "/bookings/{booking_id}/confirm": {
                "post": {
                    "operationId": "confirmBooking",
                    "summary": "Confirm a booking",
                    "parameters": path_id("booking_id"),
                    "responses": _ITEM,
                }
            },
            "/bookings/{booking_id}/cancel": {
                "post": {
                    "operationId": "cancelBooking",
                    "summary": "Cancel a booking",
                    "parameters": path_id("booking_id"),
                    "responses": _ITEM,
                }
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": request.path.split("/")[2]})


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("예약 B-1003 확정해줘", "/bookings/B-1003/confirm"),
        ("예약 B-1002 취소해줘", "/bookings/B-1002/cancel"),
        ("예약 B-1002 취소하지 말고 확정해줘", "/bookings/B-1002/confirm"),
    ],
)
def test_a_booking_word_names_a_booking(query: str, path: str) -> None:
    with LoopbackServer(_app) as server:
        router = hashing_router(_document(server.base_url), "library")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert not plan.missing_arguments
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        assert [(r.method, r.path) for r in server.requests] == [("POST", path)]
