"""A typed function's one model argument is filled property by property, a sum that names its
own currency takes the request's sum in it, and a model's Decimal, date and Enum properties
reach the function as their types (user trial 20: a sales team's CRM as typed Python
functions). "create a deal for 8,000 EUR closing 2027-01-15, stage proposal" planned
``create_deal(deal: NewDeal)`` with ``deal`` missing whole; "change the amount on deal D-7 to
15,000 EUR" left ``amount_cents`` ("in euro cents") open, as the function takes no currency
parameter, and "... to 15,000 USD" sent ``amount_cents=15`` (the "15" of "15,000", read as the
number set). A sum in another currency, or of no currency, fills neither.

The functions are real and log each call with its arguments' types to a JSON-lines file."""

from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


class Stage(enum.StrEnum):
    prospecting = "prospecting"
    proposal = "proposal"
    negotiation = "negotiation"


class NewDeal(BaseModel):
    """A deal to open."""

    company: str
    amount_eur: Decimal
    close_date: dt.date
    stage: Stage = Stage.prospecting


def create_deal(deal: NewDeal) -> str:
    """Open a new deal in the pipeline.

    Args:
        deal: The deal: company, amount in EUR, expected close date, stage.
    """
    values = {k: (str(v.value) if isinstance(v, enum.Enum) else str(v)) for k, v in deal}
    types = {k: type(v).__name__ for k, v in deal}
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": "create_deal", "args": values, "types": types}) + "\n")
    return "D-100"


def update_deal(deal_id: str, amount_cents: int | None = None) -> str:
    """Change a deal's amount.

    Args:
        deal_id: The deal's id, like D-12.
        amount_cents: The new amount, in euro cents.
    """
    with _LOG[0].open("a", encoding="utf-8") as fh:
        args = {"deal_id": deal_id, "amount_cents": amount_cents}
        fh.write(json.dumps({"fn": "update_deal", "args": args}) + "\n")
    return deal_id


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    for fn in (create_deal, update_deal):
        router.add_callable(fn, provider="crm", effect="write")
    try:
        yield router, log
    finally:
        router.close()


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def test_a_model_argument_is_filled_by_its_properties_and_sent_typed(
    crm: tuple[SchemaRouter, Path],
) -> None:
    router, log = crm
    plan = router.plan(
        PlanRequest(
            query="create a deal for 8,000 EUR closing 2027-01-15, stage proposal",
            allowed_effects=ALL,
        )
    )
    assert plan.route_ids == ("crm/python/create_deal",)
    assert plan.steps[0].arguments == {
        "deal": {"amount_eur": 8000, "close_date": "2027-01-15", "stage": "proposal"}
    }
    assert plan.missing_arguments == {"crm/python/create_deal": ("deal.company",)}
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)  # no company: nothing is sent
    assert _calls(log) == []
    router.execute(plan.with_arguments(0, {"deal": {"company": "Initech"}}), **ALLOW)
    assert _calls(log) == [
        {
            "fn": "create_deal",
            "args": {
                "company": "Initech",
                "amount_eur": "8000",
                "close_date": "2027-01-15",
                "stage": "proposal",
            },
            "types": {
                "company": "str",
                "amount_eur": "Decimal",
                "close_date": "date",
                "stage": "Stage",
            },
        }
    ]


def test_a_sum_in_its_own_currency_fills_an_amount_in_cents(
    crm: tuple[SchemaRouter, Path],
) -> None:
    router, log = crm
    plan = router.plan(
        PlanRequest(query="change the amount on deal D-7 to 15,000 EUR", allowed_effects=ALL)
    )
    assert plan.route_ids == ("crm/python/update_deal",)
    assert plan.steps[0].arguments == {"deal_id": "D-7", "amount_cents": 1500000}
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    assert _calls(log) == [
        {"fn": "update_deal", "args": {"deal_id": "D-7", "amount_cents": 1500000}}
    ]


@pytest.mark.parametrize(
    ("query", "route", "key"),
    [
        ("change the amount on deal D-7 to 15,000 USD", "crm/python/update_deal", "amount_cents"),
        ("create a deal for $8,000 closing 2027-01-15", "crm/python/create_deal", "amount_eur"),
        # no currency written: 2500 of what (25 euros in cents?) is not guessed
        ("change the amount on deal D-7 to 2500", "crm/python/update_deal", "amount_cents"),
    ],
)
def test_a_sum_in_another_currency_fills_nothing(
    crm: tuple[SchemaRouter, Path], query: str, route: str, key: str
) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == (route,)
    arguments = plan.steps[0].arguments
    assert key not in arguments and key not in arguments.get("deal", {})
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)
    assert _calls(log) == []
