"""A shop's own stock server over stdio, its items keyed by a plain ``sku: str`` (trial 22).

"what did we pay for AMP-0009?", "move AMP-0009 to bin C-1" and "take 2 off the stock of
PED-0107" left ``sku`` open (no thing's word before the code, no ``*_id`` name, no pattern),
and "take 2 off" was read as no change at all: the read was planned, and ``delta`` (no
counting word after the 2) stayed open. The server's own call log says what was sent."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

SERVER = Path(__file__).parents[1] / "mcp_servers" / "stock_server.py"
_WRITES = ("read", "write", "destructive")


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("stock") / "calls.jsonl"
    log.write_text("")
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    with router:
        router.add_mcp_server(
            [sys.executable, str(SERVER), str(log)], provider="stock", trusted=True, timeout=60
        )
        yield router, log


def _run(shop: tuple[SchemaRouter, Path], text: str) -> list[dict[str, object]]:
    router, log = shop
    log.write_text("")
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    if not plan.missing_arguments:
        router.execute(plan, allow_effects=_WRITES, approve=lambda *_: True)
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("what's the quantity of AMP-0009?", [("get_item", {"sku": "AMP-0009"})]),
        ("move AMP-0009 to bin C-1", [("move_item", {"sku": "AMP-0009", "bin": "C-1"})]),
        ("take 2 off the stock of PED-0107", [("adjust_stock", {"sku": "PED-0107", "delta": -2})]),
        ("add 3 to the stock of PED-0107", [("adjust_stock", {"sku": "PED-0107", "delta": 3})]),
        # the count asked, not the tool's default of one
        ("reserve 2 units of PED-0107", [("reserve_item", {"sku": "PED-0107", "quantity": 2})]),
        ("reserve 2 of PED-0107", [("reserve_item", {"sku": "PED-0107", "quantity": 2})]),
        ("reserve PED-0107", [("reserve_item", {"sku": "PED-0107", "quantity": 1})]),
    ],
)
def test_a_bare_code_is_the_key_the_tool_takes_and_returns(
    shop: tuple[SchemaRouter, Path], text: str, calls: list[tuple[str, dict[str, object]]]
) -> None:
    assert [(c["tool"], c["arguments"]) for c in _run(shop, text)] == calls


@pytest.mark.parametrize(
    "text",
    [
        "take 2 off the stock of PED-0107 or AMP-0009",  # two codes: which is not said
        "don't take 2 off the stock of PED-0107",  # refused
        "should we take 2 off the stock of PED-0107?",  # asks whether
        "take 2 off the stock for order RV-8812",  # an order's code (twentieth review)
        "reserve 2 units for customer CU-77",  # a customer's
        "move the item of order RV-8812 to bin C-1",
        "take 2 off the price of PED-0107",  # a price, not the stock
    ],
)
def test_no_code_is_guessed_and_a_refused_change_sends_nothing(
    shop: tuple[SchemaRouter, Path], text: str
) -> None:
    assert [c for c in _run(shop, text) if c["tool"] != "get_item"] == []


def test_a_count_asked_beside_a_refused_write_off_is_the_change_planned(
    shop: tuple[SchemaRouter, Path],
) -> None:
    router, _ = shop
    text = "don't write off PED-0111, just take 1 off the stock of PED-0107"
    plan = router.plan(PlanRequest(query=text, allowed_effects=_WRITES))
    assert plan.route_ids == ("stock/mcp/adjust_stock",)
    assert [(c["tool"], c["arguments"]) for c in _run(shop, text)] == [
        ("adjust_stock", {"sku": "PED-0107", "delta": -1})
    ]
