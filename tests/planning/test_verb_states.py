"""A request that asks to put a thing in a state fills the state's enum value (trial X3).

"Close ticket T-1002" on ``PATCH /tickets/{ticket_id}`` (body ``status``: open, pending,
closed) planned ``ticket_id`` and left the body open: the request names no enum value as a
word, though its leading verb says which one. A value that is the past form of the verb a
request (or one of its parts) opens with is filled: close -> closed, cancel -> cancelled,
ship -> shipped; a verb inside a question ("when did we ship ...") fills nothing."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

STATUS = {"type": "string", "enum": ["open", "pending", "closed"]}
ORDER_STATUS = {"type": "string", "enum": ["placed", "shipped", "cancelled", "returned"]}


def _patch(path: str, name: str, status: dict[str, Any]) -> dict[str, Any]:
    return {
        "patch": {
            "operationId": f"update{name}",
            "summary": f"Update a {name.lower()}'s status.",
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "requestBody": {
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"status": status, "note": {"type": "string"}},
                        }
                    }
                }
            },
            "responses": {"200": {"description": "ok"}},
        }
    }


DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "desk", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/v1"}],
    "paths": {
        "/tickets/{id}": _patch("/tickets/{id}", "Ticket", STATUS),
        "/orders/{id}": _patch("/orders/{id}", "Order", ORDER_STATUS),
    },
}


def order_history(status: Literal["placed", "shipped", "cancelled", "returned"]) -> list[str]:
    """List past orders with a given status."""
    return []


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="desk")
    router.add_callable(order_history, provider="shop")
    return router


def _body(router: SchemaRouter, request: str, route: str) -> Any:
    plan = router.plan(PlanRequest(query=request, allowed_effects=("read", "write")))
    (step,) = [s for s in plan.steps if s.route_id == route]
    return dict(step.arguments).get("body")


@pytest.mark.parametrize(
    ("request_text", "route", "status"),
    [
        ("Close ticket T-1002", "desk/rest/update_ticket", "closed"),
        ("please close ticket T-1002", "desk/rest/update_ticket", "closed"),
        ("Cancel order O-17", "desk/rest/update_order", "cancelled"),
        ("Ship order O-17 today", "desk/rest/update_order", "shipped"),
    ],
)
def test_the_verb_a_request_opens_with_fills_its_state(
    router: SchemaRouter, request_text: str, route: str, status: str
) -> None:
    assert _body(router, request_text, route) == {"status": status}


def test_a_verb_inside_a_question_or_a_state_named_outright(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="when did we ship our orders?", providers=("shop",)))
    assert "status" not in dict(plan.steps[0].arguments)
    assert _body(router, "Mark ticket T-1 as pending", "desk/rest/update_ticket") == {
        "status": "pending"
    }
    # "don't close it": no leading verb of the request asks to close
    assert _body(router, "Update ticket T-1, but don't close it", "desk/rest/update_ticket") in (
        None,
        {},
    )
