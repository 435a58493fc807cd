"""A request that only reads plans a read where one ranks near the top, even where writes are
allowed (trial X3).

"Show me the open support tickets", planned with ``allowed_effects=("read", "write")``, planned
``create_ticket`` ("Open a new support ticket for a customer." ranks first on "open ...
support tickets"): a write, with its body open, for a request that asks to see. Ranking is
unchanged (``retrieve`` still puts it first); the plan takes the best read among the first
five eligible routes and says which write it passed over. A request that asks to write, or
mixes both, plans as before."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

TICKET = {"type": "object", "properties": {"id": {"type": "string"}}}
OK = {"200": {"description": "ok", "content": {"application/json": {"schema": TICKET}}}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "support", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/v1"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "listTickets",
                "summary": "List support tickets, newest first, filtered by status.",
                "parameters": [
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["open", "pending", "closed"]},
                    }
                ],
                "responses": OK,
            },
            "post": {
                "operationId": "createTicket",
                "summary": "Open a new support ticket for a customer.",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["subject"],
                                "properties": {"subject": {"type": "string"}},
                            }
                        }
                    }
                },
                "responses": OK,
            },
        },
        "/tickets/{ticket_id}": {
            "get": {
                "operationId": "getTicket",
                "summary": "Get one support ticket by its id.",
                "parameters": [
                    {
                        "name": "ticket_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": OK,
            }
        },
    },
}
WRITES = ("read", "write")


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="support")
    return router


def test_a_read_request_plans_a_read_where_writes_are_allowed(router: SchemaRouter) -> None:
    request = "Show me the open support tickets"
    assert router.retrieve(request, k=3).route_ids[0] == "support/rest/create_ticket"
    plan = router.plan(PlanRequest(query=request, allowed_effects=WRITES))
    (step,) = plan.steps
    assert router.snapshot().route(step.route_id).endpoint.effect.value == "read"
    assert [w for w in plan.warnings if "support/rest/create_ticket" in w and "read" in w]


def test_a_write_request_still_plans_its_write(router: SchemaRouter) -> None:
    plan = router.plan(
        PlanRequest(query="Open a new support ticket 'printer broken'", allowed_effects=WRITES)
    )
    assert plan.route_ids == ("support/rest/create_ticket",)


LISTINGS: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "market", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/v1"}],
    "paths": {
        "/listings": {
            "get": {
                "operationId": "getListings",
                "summary": "Search the listings of the marketplace.",
                "responses": OK,
            }
        },
        "/my/listings/{slug}/state/end": {
            "put": {
                "operationId": "endMyListing",
                "summary": "End one of my listings.",
                "parameters": [
                    {"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": OK,
            }
        },
    },
}


@pytest.mark.parametrize("request_text", ["End my listing vintage-strat-1962", "end listing 42"])
def test_a_request_whose_verb_is_no_read_keeps_its_write(request_text: str) -> None:
    """Trial Y1: "End my listing vintage-strat-1962" on Reverb's API, writes allowed, planned
    ``GET /listings/all`` before the ``PUT /my/listings/{slug}/state/end`` ranked first: the
    noun "listing" was read as the request's verb. A request is read as a read here only
    where a clause opens with a read verb."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(LISTINGS, provider="market")
    assert router.retrieve(request_text, k=2).route_ids[0] == "market/rest/end_my_listing"
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES))
    assert plan.route_ids == ("market/rest/end_my_listing",)
    assert not [w for w in plan.warnings if "the request asks to read" in w]
