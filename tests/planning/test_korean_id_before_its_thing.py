"""An id written right before its thing's Korean word is that thing's, read as the thing a
parameter takes, and an id a particle ends is none of the word after it.

"예약 A-1002 확정해줘" (confirm appointment A-1002) bound ``appointment_id``; "A-1002 예약
확정해줘", the id first, left it missing: 예약 glosses as book, reservation, booking and
appointment, and the id was read as a book's, the first gloss, though "book" is 예약's verb
and no parameter takes a reservation's id. "회원 M-17에게 도서 BK-55 대출해줘" (lend book BK-55
to member M-17) left ``body.book_id`` missing on ``POST /loans``: "M-17에게 도서" (to M-17, a
book) read M-17에게 as a book's id too, and a change takes neither of two ids of one thing.
The id's thing is now the one of the word's noun senses a parameter takes, and a Hangul
particle written onto an id ends its phrase. The servers are real (loopback) and record what
they receive."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES, ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_ENTRY = {"type": "object", "properties": {"id": _S, "status": _S}}


def _post(op: str, summary: str, description: str = "") -> dict[str, Any]:
    return {"operationId": op, "summary": summary, "description": description,
            "responses": ok(_ENTRY)}  # fmt: skip


def _clinic(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Clinic desk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/appointments/{appointment_id}": {
                "parameters": path_id("appointment_id"),
                "get": _post("getAppointment", "Get an appointment"),
            },
            "/appointments/{appointment_id}/confirm": {
                "parameters": path_id("appointment_id"),
                "post": _post("confirmAppointment", "Confirm an appointment"),
            },
            "/appointments/{appointment_id}/cancel": {
                "parameters": path_id("appointment_id"),
                "post": _post("cancelAppointment", "Cancel an appointment"),
            },
            "/departments/{department_id}": {
                "parameters": path_id("department_id"),
                "get": _post("getDepartment", "Get a department"),
            },
        },
    }


def _library(base_url: str) -> dict[str, Any]:
    loan = {"type": "object", "required": ["member_id", "book_id"],
            "properties": {"member_id": {**_S, "description": "회원 번호"},
                           "book_id": {**_S, "description": "도서 번호"}}}  # fmt: skip
    borrow = _post(
        "borrowBook", "Borrow a book", "도서 대출: lends a book to a member for 14 days."
    )
    borrow["requestBody"] = {"required": True, "content": {"application/json": {"schema": loan}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/loans": {"post": borrow},
            "/members/{member_id}": {
                "parameters": path_id("member_id"),
                "get": _post("getMember", "Get a member"),
            },
            "/books/{book_id}": {
                "parameters": path_id("book_id"),
                "get": _post("getBook", "Get a book"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "X-1", "status": "ok"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _sent(server: LoopbackServer, document: dict[str, Any], query: str) -> list[Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="desk")
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, (plan.steps, plan.warnings)
    server.requests.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("A-1002 예약 확정해줘", ("POST", "/appointments/A-1002/confirm", None)),
        ("A-1002 예약을 확정해줘", ("POST", "/appointments/A-1002/confirm", None)),
        ("A-1002번 예약 확정해줘", ("POST", "/appointments/A-1002/confirm", None)),
        ("예약 A-1002 확정해줘", ("POST", "/appointments/A-1002/confirm", None)),
        ("A-1002 예약 취소해줘", ("POST", "/appointments/A-1002/cancel", None)),
    ],
)
def test_an_id_before_its_korean_thing_word_binds(
    server: LoopbackServer, query: str, sent: tuple[str, str, None]
) -> None:
    assert _sent(server, _clinic(server.base_url), query) == [sent]


def test_an_id_before_another_things_word_is_that_things(server: LoopbackServer) -> None:
    """The appointment of department A-1002, "A-1002 부서의 예약": the nearer word, 부서, names
    the id's thing; the confirm is planned with its id missing."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_clinic(server.base_url), provider="desk")
    plan = router.plan(PlanRequest(query="A-1002 부서의 예약 확정해줘", allowed_effects=WRITES))
    assert plan.missing_arguments == {"desk/rest/confirm_appointment": ("appointment_id",)}


@pytest.mark.parametrize(
    "query",
    [
        "회원 M-17에게 도서 BK-55 대출해줘",
        "BK-55 도서 대출해줘, 회원 M-17",
        "Borrow book BK-55 for member M-17",
    ],
)
def test_each_id_fills_the_body_property_of_its_thing(server: LoopbackServer, query: str) -> None:
    assert _sent(server, _library(server.base_url), query) == [
        ("POST", "/loans", {"member_id": "M-17", "book_id": "BK-55"})
    ]


def test_a_flagged_confirm_on_an_id_written_first_is_planned(server: LoopbackServer) -> None:
    """With the shipped encoder and abstention model the request is flagged off the catalog;
    a change asked by name on the ids it names is planned all the same, and the id written
    before its word is one it names (it was refused: the rule read the analysis's ids)."""
    router = SchemaRouter(embedding_cache=None)
    router.add_openapi(_clinic(server.base_url), provider="desk")
    plan = router.plan(PlanRequest(query="A-1002 예약 확정해줘", allowed_effects=WRITES))
    assert plan.route_ids == ("desk/rest/confirm_appointment",), plan.reason
    assert any("flagged off the catalog" in w for w in plan.warnings), plan.warnings
    server.requests.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/appointments/A-1002/confirm")
    ]
