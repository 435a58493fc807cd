"""A plain string parameter takes an id the request writes by its name: fused ("SKU-5" for
``sku``), or after it ("cold room R1" for ``room``), and a parameter named ``email`` takes
the address the request writes though its schema gives no format (trial T1: a shop back
office's own functions; each was left open and the plan asked the caller for it)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


def stock_level(sku: str) -> dict[str, int]:
    """How many units of a product are in stock."""
    return {"units": 7}


def room_temperature(room: str) -> dict[str, float]:
    """Current temperature of a cold room in the warehouse."""
    return {"celsius": 3.5}


def customer_orders(email: str) -> dict[str, Any]:
    """Orders of a customer, found by the customer's e-mail address."""
    return {"orders": ["O-19"]}


def _plan(fn: Any, request: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(fn, provider="shop")
    plan = router.plan(request)
    (step,) = plan.steps
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("fn", "request_text", "arguments"),
    [
        (stock_level, "how many units of SKU-5 are in stock", {"sku": "SKU-5"}),
        (stock_level, "stock level of sku 1001-B", {"sku": "1001-B"}),
        (room_temperature, "temperature of cold room R1", {"room": "R1"}),
        (customer_orders, "orders of customer ann@example.com", {"email": "ann@example.com"}),
        # two ids named: none is guessed
        (room_temperature, "temperature of room R1 and room R2", {}),
        # a word with no digit is no id
        (room_temperature, "temperature of the cold room now", {}),
    ],
)
def test_an_id_named_by_its_parameter_binds(
    fn: Any, request_text: str, arguments: dict[str, Any]
) -> None:
    assert _plan(fn, request_text) == arguments


def test_a_long_run_without_an_address_is_read_once() -> None:
    import time

    started = time.monotonic()
    assert _plan(customer_orders, "orders of " + "a." * 50_000 + " customer") == {}
    assert time.monotonic() - started < 5.0
