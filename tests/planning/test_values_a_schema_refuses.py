"""A change is not sent without a value the request states and its schema refuses by an enum
or a pattern (the twentieth security review; ``planning/out_of_schema`` lifted bounds only).

Before: "set the priority of AMP-0009 to urgent and the price to 20 EUR" sent the price and
dropped the priority (``low`` / ``normal`` / ``high``); "set the priority of AMP-0009 to
urgent" sent ``update_item(sku="AMP-0009")``, a change of nothing; "open a ticket 'amp hums'
with fault code XY12" (``^[A-Z]{2}[0-9]{3}$``) opened the ticket with no code. The functions
are real and record what they are called with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from schemarouter import SchemaRouter, capability
from schemarouter.index import HashingEncoder

from helpers import ran_plan

Calls = list[tuple[str, dict[str, Any]]]


def _functions(calls: Calls) -> list[Callable[..., Any]]:
    @capability(effect="write")
    def update_item(
        sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-[0-9]{4}$")],
        price_eur: Annotated[float, Field(ge=0)] | None = None,
        priority: Literal["low", "normal", "high"] | None = None,
    ) -> dict[str, str]:
        """Change an inventory item's price or restock priority.

        Args:
            sku: The item's SKU, like AMP-0009.
            price_eur: The new price in euros.
            priority: The restock priority.
        """
        calls.append(("update_item", {"sku": sku, "price_eur": price_eur, "priority": priority}))
        return {"sku": sku}

    @capability(effect="write")
    def create_ticket(
        subject: str, code: Annotated[str, Field(pattern=r"^[A-Z]{2}[0-9]{3}$")] | None = None
    ) -> dict[str, str]:
        """Open a support ticket.

        Args:
            subject: What it is about.
            code: The fault code.
        """
        calls.append(("create_ticket", {"subject": subject, "code": code}))
        return {"id": "T-1"}

    return [update_item, create_ticket]


def _sent(query: str) -> Calls:
    calls: Calls = []
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(_functions(calls), provider="shop")
    try:
        ran_plan(router, query)
    finally:
        router.close()
    return calls


@pytest.mark.parametrize(
    "query",
    [
        "set the priority of AMP-0009 to urgent",
        "set the priority of AMP-0009 to urgent and the price to 20 EUR",
        "set the price of AMP-0009 to 20 EUR and the priority to urgent",
        'open a ticket "amp hums" with fault code XY12',
    ],
)
def test_a_value_its_enum_or_pattern_refuses_holds_the_change(query: str) -> None:
    assert _sent(query) == []


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        (
            "set the priority of AMP-0009 to high",
            [("update_item", {"sku": "AMP-0009", "price_eur": None, "priority": "high"})],
        ),
        (
            "set the price of AMP-0009 to 20 EUR",
            [("update_item", {"sku": "AMP-0009", "price_eur": 20.0, "priority": None})],
        ),
        (
            'open a ticket "amp hums" with fault code XY123',
            [("create_ticket", {"subject": "amp hums", "code": "XY123"})],
        ),
    ],
)
def test_a_value_it_takes_is_sent(query: str, sent: Calls) -> None:
    assert _sent(query) == sent
