"""A user's own billing API with writes that take a JSON body: an OpenAPI 3.1 document with
no semantic ids, served for real on loopback (after a user trial's Billing document, P).

``billing_openapi(base_url)`` is the document; ``BillingApp`` answers it and keeps what the
writes made. The routes (provider ``billing``):

- ``GET /customers`` (``search_customers``): ``email`` -> ``{"data": [customer]}``;
- ``POST /customers`` (``create_customer``): body ``{email (required), name}`` -> the customer
  made, ``{"id": "cus_1001", ...}``;
- ``GET /customers/{customer_id}`` (``get_customer``), ``GET /customers/{customer_id}/invoices``
  (``list_customer_invoices``);
- ``POST /invoices`` (``create_invoice``): body ``{customer_id, amount_cents, currency
  (required), due_date, memo}`` -> the invoice;
- ``GET /invoices/{invoice_id}`` (``get_invoice``), ``POST /invoices/{invoice_id}/void``
  (``void_invoice``);
- ``GET /charges/{charge_id}`` (``get_charge``);
- ``POST /refunds`` (``create_refund``): body ``{charge_id (required), amount_cents,
  reason (enum)}``;
- ``GET`` / ``DELETE /subscriptions/{subscription_id}``, ``GET /balance``.

``BillingApp.fail_creates`` makes ``POST /customers`` answer 500.
"""

from __future__ import annotations

import json
import re
from typing import Any

from schemarouter import SchemaRouter

from servers.loopback import LoopbackServer, Request, Response, json_response

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}}
CUSTOMER = {
    "type": "object",
    "required": ["id", "email"],
    "properties": {
        "id": {"type": "string", "pattern": "^cus_[A-Za-z0-9]+$"},
        "email": {"type": "string", "format": "email"},
        "name": {"type": "string"},
    },
}
INVOICE = {
    "type": "object",
    "required": ["id", "customer_id", "amount_cents", "currency", "status"],
    "properties": {
        "id": {"type": "string"},
        "customer_id": {"type": "string"},
        "amount_cents": {"type": "integer"},
        "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
        "status": {"type": "string", "enum": ["draft", "open", "paid", "void"]},
    },
}
SUBSCRIPTION = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "plan": {"type": "string"},
        "status": {"type": "string"},
    },
}
REFUND = {"type": "object", "properties": {"id": {"type": "string"}, "status": {"type": "string"}}}


def _answers(schema: dict[str, Any], status: str = "200") -> dict[str, Any]:
    return {
        status: {"description": "OK", "content": {"application/json": {"schema": schema}}},
        "404": {"description": "Not found", "content": {"application/json": {"schema": _ERROR}}},
    }


def _body(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": required,
        "additionalProperties": False,
        "properties": properties,
    }
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _in_path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def billing_openapi(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Acme Billing API", "version": "1.4.0"},
        "servers": [{"url": base_url}],
        "paths": {
            "/customers": {
                "get": {
                    "operationId": "search_customers",
                    "summary": "Search billing customers by email or name",
                    "parameters": [
                        {"name": "email", "in": "query", "schema": {"type": "string"}},
                        {"name": "name", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": _answers(
                        {
                            "type": "object",
                            "properties": {"data": {"type": "array", "items": CUSTOMER}},
                        }
                    ),
                },
                "post": {
                    "operationId": "create_customer",
                    "summary": "Create a billing customer",
                    "requestBody": _body(
                        ["email"],
                        {
                            "email": {"type": "string", "format": "email"},
                            "name": {"type": "string"},
                        },
                    ),
                    "responses": _answers(CUSTOMER, "201"),
                },
            },
            "/customers/{customer_id}": {
                "get": {
                    "operationId": "get_customer",
                    "summary": "Retrieve a customer",
                    "parameters": [_in_path("customer_id")],
                    "responses": _answers(CUSTOMER),
                }
            },
            "/customers/{customer_id}/invoices": {
                "get": {
                    "operationId": "list_customer_invoices",
                    "summary": "List a customer's invoices",
                    "parameters": [
                        _in_path("customer_id"),
                        {
                            "name": "status",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["draft", "open", "paid", "void"]},
                        },
                    ],
                    "responses": _answers(
                        {
                            "type": "object",
                            "properties": {"data": {"type": "array", "items": INVOICE}},
                        }
                    ),
                }
            },
            "/invoices": {
                "post": {
                    "operationId": "create_invoice",
                    "summary": "Create an invoice for a customer",
                    "requestBody": _body(
                        ["customer_id", "amount_cents", "currency"],
                        {
                            "customer_id": {"type": "string"},
                            "amount_cents": {"type": "integer", "minimum": 1},
                            "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
                            "due_date": {"type": "string", "format": "date"},
                            "memo": {"type": "string"},
                        },
                    ),
                    "responses": _answers(INVOICE, "201"),
                }
            },
            "/invoices/{invoice_id}": {
                "get": {
                    "operationId": "get_invoice",
                    "summary": "Retrieve an invoice",
                    "parameters": [_in_path("invoice_id")],
                    "responses": _answers(INVOICE),
                }
            },
            "/invoices/{invoice_id}/void": {
                "post": {
                    "operationId": "void_invoice",
                    "summary": "Void an open invoice",
                    "parameters": [_in_path("invoice_id")],
                    "responses": _answers(INVOICE),
                }
            },
            "/charges/{charge_id}": {
                "get": {
                    "operationId": "get_charge",
                    "summary": "Retrieve a card charge",
                    "parameters": [_in_path("charge_id")],
                    "responses": _answers(
                        {
                            "type": "object",
                            "properties": {
                                "id": {"type": "string"},
                                "amount_cents": {"type": "integer"},
                            },
                        }
                    ),
                }
            },
            "/refunds": {
                "post": {
                    "operationId": "create_refund",
                    "summary": "Refund a charge, fully or partly",
                    "requestBody": _body(
                        ["charge_id"],
                        {
                            "charge_id": {"type": "string"},
                            "amount_cents": {"type": "integer", "minimum": 1},
                            "reason": {
                                "type": "string",
                                "enum": ["duplicate", "fraudulent", "requested_by_customer"],
                            },
                        },
                    ),
                    "responses": _answers(REFUND, "201"),
                }
            },
            "/subscriptions/{subscription_id}": {
                "get": {
                    "operationId": "get_subscription",
                    "summary": "Retrieve a subscription",
                    "parameters": [_in_path("subscription_id")],
                    "responses": _answers(SUBSCRIPTION),
                },
                "delete": {
                    "operationId": "cancel_subscription",
                    "summary": "Cancel a subscription at period end",
                    "parameters": [_in_path("subscription_id")],
                    "responses": _answers(SUBSCRIPTION),
                },
            },
            "/balance": {
                "get": {
                    "operationId": "get_account_balance",
                    "summary": "Retrieve the account's available and pending balance",
                    "responses": _answers(
                        {
                            "type": "object",
                            "properties": {
                                "available_cents": {"type": "integer"},
                                "pending_cents": {"type": "integer"},
                            },
                        }
                    ),
                }
            },
        },
    }


class BillingApp:
    """Answers :func:`billing_openapi`; ``customers`` and ``invoices`` hold what was made."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.customers: dict[str, dict[str, Any]] = {
            "cus_8812": {"id": "cus_8812", "email": "alice@example.com", "name": "Alice"}
        }
        self.invoices: dict[str, dict[str, Any]] = {}
        #: ``POST /customers`` answers 500 (a create that fails)
        self.fail_creates = False

    def __call__(self, request: Request) -> Response:
        body = json.loads(request.body) if request.body else None
        path, method = request.path, request.method
        if path == "/customers" and method == "GET":
            email = request.arg("email")
            found = [c for c in self.customers.values() if email in (None, c["email"])]
            return json_response({"data": found})
        if path == "/customers" and method == "POST":
            if self.fail_creates:
                return json_response({"error": "internal"}, status=500)
            made = {"id": f"cus_{1000 + len(self.customers)}", **(body or {})}
            self.customers[made["id"]] = made
            return json_response(made, status=201)
        if match := re.fullmatch(r"/customers/([^/]+)/invoices", path):
            mine = [i for i in self.invoices.values() if i["customer_id"] == match[1]]
            return json_response({"data": mine})
        if match := re.fullmatch(r"/customers/([^/]+)", path):
            customer = self.customers.get(match[1])
            return json_response(customer) if customer else json_response({}, status=404)
        if path == "/invoices" and method == "POST":
            if (body or {}).get("customer_id") not in self.customers:
                return json_response({"error": "no such customer"}, status=404)
            made = {"id": f"in_{len(self.invoices) + 1}", "status": "draft", **(body or {})}
            self.invoices[made["id"]] = made
            return json_response(made, status=201)
        if match := re.fullmatch(r"/charges/([^/]+)", path):
            return json_response({"id": match[1], "amount_cents": 4900})
        if path == "/refunds" and method == "POST":
            return json_response({"id": "re_1", "status": "succeeded"}, status=201)
        return json_response({"error": f"no route {method} {path}"}, status=404)


def billing_router(server: LoopbackServer) -> SchemaRouter:
    """A router over the billing API that ``server`` (a :class:`BillingApp`) serves, with
    the server's requests and the app's state reset."""
    server.reset()
    server.app.reset()  # type: ignore[attr-defined]
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(billing_openapi(server.base_url), provider="billing")
    return router


def sent(server: LoopbackServer) -> list[tuple[str, str, Any]]:
    """``(method, path, JSON body or None)`` of every request ``server`` received."""
    return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]
