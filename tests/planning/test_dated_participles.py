"""A verb's -ing form that dates a thing ("closing end of March", "closing 2027-01-15") asks no
change (user trial 20: a sales team's CRM as typed Python functions). "create a deal for
Globex, 12,500 EUR, closing end of March" was read as asking to close and to create: the
trial's plan took neither change (it planned the read ranked first, ``pipeline_value``), and
where the create is planned its warnings still asked for a close "as a request of its own".
Now only the creation is asked; "close deal D-7" still asks to close.

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.asked_changes import asked_verbs

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


class NewDeal(BaseModel):
    """A deal to open."""

    company: str
    amount_eur: Decimal
    close_date: dt.date


def _log(fn: str, **args: Any) -> None:
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": args}, default=str) + "\n")


def create_deal(deal: NewDeal) -> str:
    """Open a new deal in the pipeline, with its expected closing date.

    Args:
        deal: The deal: company, amount in EUR, expected close date.
    """
    _log("create_deal", deal=deal.model_dump())
    return "D-100"


def close_deal(deal_id: str) -> str:
    """Close a deal, closing it as won.

    Args:
        deal_id: The deal's id, like D-12.
    """
    _log("close_deal", deal_id=deal_id)
    return deal_id


def pipeline_value(start: dt.date, end: dt.date) -> str:
    """Total value in EUR of the open deals closing between two dates, end of month or
    quarter.

    Args:
        start: First close date counted.
        end: Last close date counted.
    """
    _log("pipeline_value", start=start, end=end)
    return "0"


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    for fn in (close_deal, create_deal):
        router.add_callable(fn, provider="crm", effect="write")
    router.add_callable(pipeline_value, provider="crm")
    try:
        yield router, log
    finally:
        router.close()


@pytest.mark.parametrize(
    ("query", "verbs"),
    [
        ("create a deal for Globex, 12,500 EUR, closing end of March", {"create"}),
        ("create a deal for Globex closing 2027-03-31", {"create"}),
        ("open a subscription starting next Monday", {"create"}),
        ("close deal D-7", {"close"}),
        ("Before closing ticket T-1, cancel order O-1", {"close", "cancel"}),
    ],
)
def test_a_dated_participle_asks_no_change(query: str, verbs: set[str]) -> None:
    assert asked_verbs(query) == verbs


def test_the_create_asked_is_planned_and_sent(crm: tuple[SchemaRouter, Path]) -> None:
    router, log = crm
    query = "create a deal for Globex, 12,500 EUR, closing end of March"
    now = dt.datetime(2026, 12, 5, 10, tzinfo=dt.UTC)  # "end of March": helper followup
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL, now=now, timezone="UTC"))
    assert plan.route_ids == ("crm/python/create_deal",), plan.warnings
    assert plan.steps[0].arguments == {"deal": {"amount_eur": 12500, "close_date": "2027-03-31"}}
    assert not [w for w in plan.warnings if "close" in w], plan.warnings
    log.write_text("", encoding="utf-8")
    given = {"deal": {"company": "Globex"}}
    router.execute(plan.with_arguments(0, given), **ALLOW)
    sent = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    deal = {"company": "Globex", "amount_eur": "12500", "close_date": "2027-03-31"}
    assert sent == [{"fn": "create_deal", "args": {"deal": deal}}]
