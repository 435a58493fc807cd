"""How many entries a request asks for fills the page size or the limit.

Trial X3 (a support desk's agent): "show open tickets, 5 per page" and "the latest 10
orders" left ``per_page`` and ``limit`` open, so the agent got the server's default page.
A span of time ("the last 30 days") is no count, and a count the parameter's schema
refuses is not filled."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments


def list_tickets(status: str = "open", per_page: int = 20, page: int = 1) -> dict[str, Any]:
    """List support tickets."""
    return {}


def list_orders(limit: Annotated[int, Field(le=100)] = 20) -> dict[str, Any]:
    """List orders."""
    return {}


def search_orders(per_page: int = 20, limit: int = 1000) -> dict[str, Any]:
    """Search orders, a page at a time, up to a limit in all."""
    return {}


def _filled(name: str, request: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([list_tickets, list_orders, search_orders], provider="desk")
    return fill_arguments(router.snapshot().routes[f"desk/python/{name}"], request)


@pytest.mark.parametrize(
    ("name", "request_text", "arguments"),
    [
        ("list_tickets", "show open tickets, 5 per page", {"per_page": 5}),
        ("list_tickets", "list 5 tickets per page, page 2", {"per_page": 5, "page": 2}),
        ("list_tickets", "the latest 3 tickets", {"per_page": 3}),
        ("list_orders", "the first 10 orders", {"limit": 10}),
        ("list_orders", "top 5 orders", {"limit": 5}),
        # a page size and a limit both: each takes its own words
        ("search_orders", "search orders, 25 per page", {"per_page": 25}),
        ("search_orders", "the first 50 orders", {"limit": 50}),
        # no count: a span of time, a count the schema refuses, one the request refuses
        ("list_orders", "orders from the last 30 days", {}),
        ("list_orders", "the last 2.5 hours of orders", {}),
        ("list_orders", "the first 500 orders", {}),
        ("list_orders", "show me orders, not the top 5", {}),
        # a count written whole or not at all (trial Z1: "-5" gave 5, "10,000" gave 10)
        ("list_tickets", "show open tickets, -5 per page", {}),
        ("list_tickets", "show open tickets, page size of 10,000", {}),
        ("list_tickets", "show open tickets, 1.5 per page", {}),
        ("list_tickets", "show open tickets, page size of 20", {"per_page": 20}),
    ],
)
def test_a_count_fills_the_page_size_or_the_limit(
    name: str, request_text: str, arguments: dict[str, Any]
) -> None:
    assert _filled(name, request_text) == arguments
