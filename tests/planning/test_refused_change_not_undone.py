"""A change the request says not to do is not named as one left undone (trial Z3).

"Don't delete patient P-100, just show me their appointments" planned the list of
appointments, and its warnings said "the request asks to delete; no planned step does delete:
plan it as a request of its own", inviting the very change the user refused."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.planning.asked_changes import undone_notes

from helpers import hashing_router

_S = {"type": "string"}


def _op(op: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {op: _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "responses": {"200": ok}}


def _router() -> SchemaRouter:
    ticket = [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}]
    customer = [{"name": "customer_id", "in": "path", "required": True, "schema": _S}]
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/tickets/{ticket_id}": {"parameters": ticket, "get": _op("get_ticket")},
            "/customers/{customer_id}": {
                "parameters": customer,
                "get": _op("get_customer"),
                "delete": _op("delete_customer"),
            },
        },
    }
    return hashing_router(document, provider="desk")


@pytest.mark.parametrize(
    "query",
    [
        "Don't delete customer C-1, just show me ticket T-1",
        "Do not delete customer C-1; show ticket T-1",
        "고객 C-1 삭제하지 말고 티켓 T-1 보여줘",
    ],
)
def test_a_refused_change_is_not_left_undone(query: str) -> None:
    snapshot = _router().snapshot()
    assert undone_notes(["desk/rest/get_ticket"], snapshot, query) == []


def test_a_change_asked_is_still_named() -> None:
    snapshot = _router().snapshot()
    query = "Delete customer C-1 and also show me ticket T-1"
    (note,) = undone_notes(["desk/rest/get_ticket"], snapshot, query)
    assert "asks to delete; no planned step does delete" in note
