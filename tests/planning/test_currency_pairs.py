"""A currency pair written as codes fills the pair's two free text sides (user trial 14).

A callable ``fx_rate(base: str, quote: str)`` asked "What is the EUR to USD exchange rate?"
filled neither side: only enum sides were read, and "quote" named no side; execute refused
the plan. The callables here are real and record what they receive."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import SchemaRouterError

CALLS: list[tuple[str, dict[str, Any]]] = []


def fx_rate(base: str, quote: str) -> float:
    """Current foreign exchange rate: how many units of the quote currency one unit of the
    base currency buys (e.g. base EUR, quote USD)."""
    CALLS.append(("fx_rate", {"base": base, "quote": quote}))
    return 1.08


def convert(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money between two currencies."""
    CALLS.append(("convert", {"amount": amount, "from": from_currency, "to": to_currency}))
    return amount


def quote_trade(sell: str, buy: str) -> str:
    """Price a spot FX trade: the currency sold and the currency bought."""
    CALLS.append(("quote_trade", {"sell": sell, "buy": buy}))
    return "ok"


def copy_file(source: str, target: str) -> str:
    """Copy a file within the shared drive."""
    CALLS.append(("copy_file", {"source": source, "target": target}))
    return "copied"


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    made = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    made.add_callable([fx_rate, convert, quote_trade], provider="fx", effect="read")
    made.add_callable(copy_file, provider="drive", effect="read")
    return made


def _received(router: SchemaRouter, query: str) -> list[tuple[str, dict[str, Any]]]:
    CALLS.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    with contextlib.suppress(SchemaRouterError):
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
    return list(CALLS)


@pytest.mark.parametrize(
    "query",
    [
        "What is the EUR to USD exchange rate?",
        "What's the EUR to USD rate?",
        "fx rate from EUR to USD",
        "convert EUR into USD rate",
        "EUR/USD exchange rate please",
    ],
)
def test_a_pair_of_codes_fills_base_and_quote(router: SchemaRouter, query: str) -> None:
    assert _received(router, query) == [("fx_rate", {"base": "EUR", "quote": "USD"})]


def test_a_pair_fills_sides_named_for_a_currency(router: SchemaRouter) -> None:
    assert _received(router, "Convert 30 GBP to JPY") == [
        ("convert", {"amount": 30, "from": "GBP", "to": "JPY"})
    ]


def test_sell_and_buy_are_a_pairs_sides(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="Price a spot FX trade of GBP/CHF"))
    assert plan.route_ids == ("fx/python/quote_trade",)
    assert plan.steps[0].arguments == {"sell": "GBP", "buy": "CHF"}


@pytest.mark.parametrize(
    "query",
    [
        "What is the EUR to USD rate, and the GBP to USD one?",  # two pairs: which?
        "What is the exchange rate, not EUR to USD?",  # refused
        "What is the EUR to ABC exchange rate?",  # no ISO 4217 code
    ],
)
def test_no_pair_or_an_unclear_one_fills_nothing(router: SchemaRouter, query: str) -> None:
    plan = router.plan(PlanRequest(query=query))
    assert plan.route_ids == ("fx/python/fx_rate",)
    assert plan.steps[0].arguments == {}
    assert _received(router, query) == []


def test_a_pair_of_strings_that_is_no_currency_pair_is_not_filled(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="Copy the file EUR to USD on the shared drive"))
    assert plan.route_ids == ("drive/python/copy_file",)
    assert plan.steps[0].arguments == {}
