"""The parts of a request run in the order it writes them also where a step takes an earlier
step's output (the tenth security review): "Show the orders of the customer with email
ann@example.com, then delete account A-1" planned the deletion, ranked best, first, and the
lookup and the read after it (``in_written_order`` kept the ranking's order wherever a step
had bindings), so the account was deleted before the user saw what they asked to see."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import ok, page, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_EMAIL = {"type": "string", "format": "email"}


def _document(base_url: str) -> dict[str, Any]:
    entries = page({"type": "object", "properties": {"id": _S, "email": _S}})
    return {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/customers": {
                "get": {
                    "operationId": "search_customers",
                    "summary": "Search customers by email",
                    "parameters": [
                        {"name": "email", "in": "query", "required": True, "schema": _EMAIL}
                    ],
                    "responses": entries,
                }
            },
            "/customers/{customer_id}/orders": {
                "parameters": path_id("customer_id"),
                "get": {
                    "operationId": "list_customer_orders",
                    "summary": "List the orders of a customer",
                    "responses": entries,
                },
            },
            "/accounts/{account_id}": {
                "parameters": path_id("account_id"),
                "delete": {
                    "operationId": "delete_account",
                    "summary": "Delete an account",
                    "responses": ok({"type": "object", "properties": {"id": _S}}),
                },
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"items": [{"id": "C-7", "email": "ann@example.com"}], "id": "A-1"})


@pytest.mark.parametrize(
    "query",
    [
        "Show the orders of the customer with email ann@example.com, then delete account A-1",
        "List the orders of customer ann@example.com and then delete account A-1",
    ],
)
def test_a_part_written_first_runs_first_with_its_lookup(query: str) -> None:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
        router.add_openapi(_document(server.base_url), provider="desk")
        request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
        plan = router.plan(request, max_calls=4)
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        sent = [(r.method, r.path) for r in server.requests]
    assert sent == [
        ("GET", "/customers"),
        ("GET", "/customers/C-7/orders"),
        ("DELETE", "/accounts/A-1"),
    ], (plan.route_ids, plan.warnings)
    assert any("in the order the request writes them" in w for w in plan.warnings)
