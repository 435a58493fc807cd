"""A create ranked first does not stand for a change of a thing the request names by its id
(trial Z3: "Close the ticket T-9 of customer C-1" planned ``create_ticket``, T-9 unused; the
change that takes it, ``update_ticket``, ranked second; ranking is left as it is)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "status": _S}}
_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": _TICKET}}}}
_ID = [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}]
_STATUS = {"type": "string", "enum": ["open", "closed"]}


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "post": {
                "operationId": "create_ticket",
                "summary": "Create the ticket of a customer",
                "requestBody": _body({"subject": _S}, ["subject"]),
                "responses": _OK,
            }
        },
        "/tickets/{ticket_id}": {
            "patch": {
                "operationId": "update_ticket",
                "summary": "Update a ticket's status",
                "parameters": _ID,
                "requestBody": _body({"status": _STATUS}, []),
                "responses": _OK,
            },
        },
    },
}
_WRITES = frozenset({Effect.READ, Effect.WRITE})


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="hd")
    return router


def test_a_named_ticket_is_changed_not_created(router: SchemaRouter) -> None:
    query = "Close the ticket T-9 of customer C-1"
    ranked = [c.route_id for c in router.retrieve(query, k=2).candidates]
    assert ranked[0] == "hd/rest/create_ticket"  # ranking is not changed
    plan = router.plan(PlanRequest(query=query, allowed_effects=_WRITES))
    assert plan.route_ids == ("hd/rest/update_ticket",)
    assert plan.steps[0].arguments == {"ticket_id": "T-9", "body": {"status": "closed"}}
    assert any("asks for no creation" in w for w in plan.warnings)


@pytest.mark.parametrize(
    "query",
    [
        "Create the ticket of customer C-1 like ticket T-9",  # a creation is asked for
        "Open the ticket of customer C-1 about order O-9",  # no ticket is named
    ],
)
def test_a_create_asked_for_stays(router: SchemaRouter, query: str) -> None:
    plan = router.plan(PlanRequest(query=query, allowed_effects=_WRITES))
    assert plan.route_ids == ("hd/rest/create_ticket",)
