"""A body's object property takes the address the request writes into its one e-mail
property (trial Z3: "Open a ticket 'Printer jammed' for customer ann@example.com" sent
``{"subject": "Printer jammed"}``, ``customer.email`` left out, only top-level properties
being read)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_EMAIL = {"type": "string", "format": "email"}


def _document(customer: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    body = {
        "type": "object",
        "required": ["subject"],
        "properties": {"subject": {"type": "string"}, "customer": customer, **extra},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Helpdesk", "version": "1.0"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/tickets": {
                "post": {
                    "operationId": "create_ticket",
                    "summary": "Open a new support ticket for a customer",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": body}},
                    },
                    "responses": {"201": {"description": "created"}},
                }
            }
        },
    }


_CUSTOMER = {
    "type": "object",
    "required": ["email"],
    "properties": {"email": _EMAIL, "name": {"type": "string"}},
}
_WRITES = frozenset({Effect.READ, Effect.WRITE})


def _body(customer: dict[str, Any], extra: dict[str, Any], query: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(customer, extra), provider="hd")
    (step,) = router.plan(PlanRequest(query=query, allowed_effects=_WRITES)).steps
    return dict(dict(step.arguments).get("body", {}))


def test_a_customers_email_is_filled_inside_its_object() -> None:
    query = "Open a ticket 'Printer jammed' for customer ann@example.com"
    assert _body(_CUSTOMER, {}, query) == {
        "subject": "Printer jammed",
        "customer": {"email": "ann@example.com"},
    }


@pytest.mark.parametrize(
    ("customer", "extra", "query"),
    [
        # the object would still lack a required property: nothing is guessed into it
        ({**_CUSTOMER, "required": ["email", "name"]}, {}, "Open a ticket for ann@example.com"),
        # two properties take an address: which one is the customer's is not guessed
        (_CUSTOMER, {"cc": _EMAIL}, "Open a ticket for ann@example.com"),
        # an address the request refuses
        (_CUSTOMER, {}, "Open a ticket, not for ann@example.com"),
    ],
)
def test_no_address_is_guessed_into_an_object(
    customer: dict[str, Any], extra: dict[str, Any], query: str
) -> None:
    assert "customer" not in _body(customer, extra, query)
