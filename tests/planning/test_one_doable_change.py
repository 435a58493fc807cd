"""Of several changes a request seems to ask, the one a route near the top does is planned
before a read ranked first (user trial 20: a sales team's CRM as typed Python functions).
"create a deal for Umbrella, 20,000 EUR, closing 2027-04-30, stage qualification" read
"stage" as a second change asked, and a request of two changes kept the ranked order: the
read ranked first (``list_deals``) was planned and called, and nothing was created. Now, where
the best route reads and only one of the changes asked is done by a route among the five
best, that route is planned first and the warnings name the change left undone; where two of
them are done, or none, the order stays."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from pydantic import BaseModel

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.asked_changes import asked_change_first


class NewDeal(BaseModel):
    """A deal to open."""

    company: str
    amount_eur: Decimal
    close_date: dt.date


def list_deals(stage: str | None = None) -> list[str]:
    """List deals in the pipeline, filtered by stage."""
    return []


def create_deal(deal: NewDeal) -> str:
    """Open a new deal in the pipeline."""
    return "D-100"


def delete_deal(deal_id: str) -> str:
    """Delete a deal."""
    return deal_id


def _ordered(query: str, eligible: list[str]) -> tuple[list[str], list[str]]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(list_deals, provider="crm")
    router.add_callable(create_deal, provider="crm", effect="write")
    router.add_callable(delete_deal, provider="crm", effect="destructive")
    warnings: list[str] = []
    ids = [f"crm/python/{name}" for name in eligible]
    try:
        order = asked_change_first(query, router.registry.snapshot(), ids, warnings)
    finally:
        router.close()
    return [r.rsplit("/", 1)[-1] for r in order], warnings


def test_the_one_change_a_route_does_is_planned_before_the_read() -> None:
    query = "create a deal for Umbrella, 20,000 EUR, closing 2027-04-30, stage qualification"
    order, warnings = _ordered(query, ["list_deals", "create_deal"])
    assert order == ["create_deal", "list_deals"]
    assert any("asks to create" in w for w in warnings), warnings


def test_two_changes_routes_do_keep_the_order() -> None:
    query = "create a deal for Umbrella, 20,000 EUR, and delete deal D-7"
    order, _ = _ordered(query, ["list_deals", "create_deal", "delete_deal"])
    assert order == ["list_deals", "create_deal", "delete_deal"]
