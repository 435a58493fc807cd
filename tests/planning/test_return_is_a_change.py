"""Giving a thing back is a change: "Return loan L-88", "반납", "mark ... as returned" (trial 13).

On a library API with ``POST /loans/{loan_id}/return`` (``return_book``) and ``POST
/loans/{loan_id}/renew`` (``renew_loan``), "Mark loan L-88 as returned" sent the renewal
(an unwanted write: "mark" named no route's change, and a renewal, read as an update, was
taken for one that may make any change); "Return loan L-88" read "return" as a read verb
("return the list of ..."), and 반납 was in no verb table. Now each plans the return; "return
the list of loans" still reads, and where no route returns, "mark ... as returned" sends no
other change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import read_request

from helpers import WRITES, ok, page, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_LOAN = {"type": "object", "properties": {"id": _S, "book_id": _S, "returned": {"type": "boolean"}}}


def _app(request: Request) -> Response:
    if request.method == "GET" and request.path == "/loans":
        return json_response({"items": [{"id": "L-1", "book_id": "BK-1", "returned": False}]})
    return json_response({"id": request.path.split("/")[2], "returned": True})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _paths(returns: bool) -> dict[str, Any]:
    member = [{"name": "member_id", "in": "query", "schema": _S}]
    body = {"type": "object", "properties": {"member_id": _S, "book_id": _S}}
    days = {"type": "object", "properties": {"days": {"type": "integer"}}}
    paths: dict[str, Any] = {
        "/loans": {
            "get": {"operationId": "listLoans", "summary": "List loans of a member",
                    "description": "대출 목록", "parameters": member, "responses": page(_LOAN)},
            "post": {"operationId": "borrowBook", "summary": "Borrow a book",
                     "description": "도서 대출: lends a book to a member for 14 days.",
                     "requestBody": {"required": True,
                                     "content": {"application/json": {"schema": body}}},
                     "responses": ok(_LOAN)},
        },
        "/loans/{loan_id}": {
            "parameters": path_id("loan_id"),
            "get": {"operationId": "getLoan", "summary": "Get a loan", "responses": ok(_LOAN)},
        },
        "/loans/{loan_id}/renew": {
            "parameters": path_id("loan_id"),
            "post": {"operationId": "renewLoan", "summary": "Renew a loan",
                     "description": "대출 연장. Extends the due date by 7 days.",
                     "requestBody": {"required": False,
                                     "content": {"application/json": {"schema": days}}},
                     "responses": ok(_LOAN)},
        },
    }  # fmt: skip
    if returns:
        paths["/loans/{loan_id}/return"] = {
            "parameters": path_id("loan_id"),
            "post": {"operationId": "returnBook", "summary": "Return a book",
                     "description": "도서 반납 처리. A fine is created when the loan is overdue.",
                     "responses": ok(_LOAN)},
        }  # fmt: skip
    return paths


def _router(server: LoopbackServer, *, returns: bool = True) -> SchemaRouter:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": _paths(returns),
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="lib")
    return router


def _sent(server: LoopbackServer, router: SchemaRouter, text: str) -> list[tuple[str, str]]:
    """The requests the plan of ``text`` sends when executed (method, path)."""
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    try:
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    except Exception as error:  # a plan left incomplete is refused: what matters is what went
        assert type(error).__name__ in ("ParameterValidationError", "GateError"), error
    return [(r.method, r.path) for r in server.requests]


@pytest.mark.parametrize(
    "text",
    [
        "Mark loan L-88 as returned",
        "Return loan L-88",
        "Please return loan L-88",
        "대출 L-88 반납해줘",
        "대출 L-88 반납 처리해줘",
    ],
)
def test_a_return_asked_returns(server: LoopbackServer, text: str) -> None:
    assert _sent(server, _router(server), text) == [("POST", "/loans/L-88/return")]


def test_return_the_list_still_reads(server: LoopbackServer) -> None:
    sent = _sent(server, _router(server), "Return the list of loans of member M-17")
    assert sent and all(method == "GET" for method, _ in sent), sent
    assert read_request("Return the list of loans of member M-17") == ("read", frozenset())
    assert read_request("Return user U-1's details")[0] == "read"


@pytest.mark.parametrize(
    "text", ["Mark loan L-88 as returned", "Return loan L-88", "대출 L-88 반납해줘"]
)
def test_no_other_change_is_sent_where_no_route_returns(server: LoopbackServer, text: str) -> None:
    sent = _sent(server, _router(server, returns=False), text)
    assert all(method == "GET" for method, _ in sent), sent


def test_mark_as_names_the_change_of_its_state() -> None:
    assert read_request("Mark ticket T-1 as closed") == ("write", frozenset({"close"}))
    assert read_request("Mark invoice INV-3 as paid") == ("write", frozenset({"pay"}))
    # a state that names no change leaves "mark" as it was
    assert read_request("Mark message M-1 as read") == ("write", frozenset({"mark"}))


def test_a_renewal_refused_beside_a_return_is_not_sent(server: LoopbackServer) -> None:
    sent = _sent(server, _router(server), "대출 L-88 연장하지 말고 반납해줘")
    assert sent == [("POST", "/loans/L-88/return")]
    assert json.dumps(sent).count("renew") == 0
