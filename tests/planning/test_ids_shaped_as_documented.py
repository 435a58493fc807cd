"""An id written bare binds to the parameter whose description shows its shape by example
(user trial 20: a sales team's CRM as typed Python functions). "add a note to C-2: ..." left
``contact_id`` open though its Google-style ``Args:`` said "The contact, like C-3.", and
nothing was sent; an id of another shape ("D-7", a deal's) never fills it.

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect, Parameter, ParameterLocation
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder
from schemarouter.planning.example_ids import documented_pattern

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


def _log(fn: str, **args: Any) -> None:
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": args}) + "\n")


def add_note(contact_id: str, text: str) -> str:
    """Add a note to a contact.

    Args:
        contact_id: The contact, like C-3.
        text: The note.
    """
    _log("add_note", contact_id=contact_id, text=text)
    return "N-1"


def draft_email(contact_id: str, subject: str | None = None) -> str:
    """Write a draft email to a contact for review. Nothing is sent.

    Args:
        contact_id: The contact to write to, e.g. C-3.
        subject: The subject line.
    """
    _log("draft_email", contact_id=contact_id, subject=subject)
    return "DR-1"


def get_deal(deal_id: str) -> dict[str, str]:
    """Get one deal.

    Args:
        deal_id: The deal's id, like D-12.
    """
    _log("get_deal", deal_id=deal_id)
    return {"deal_id": deal_id}


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    for fn in (add_note, draft_email, get_deal):
        effect = "read" if fn is get_deal else "write"
        router.add_callable(fn, provider="crm", effect=effect)
    try:
        yield router, log
    finally:
        router.close()


def _calls(log: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(c["fn"], c["args"]) for c in map(json.loads, log.read_text("utf-8").splitlines())]


@pytest.mark.parametrize(
    ("query", "route", "given", "sent"),
    [
        (
            "add a note to C-2: prefers calls after 2pm",
            "crm/python/add_note",
            {"text": "prefers calls after 2pm"},
            ("add_note", {"contact_id": "C-2", "text": "prefers calls after 2pm"}),
        ),
        (
            "draft an email to C-1 about the demo",
            "crm/python/draft_email",
            {},
            ("draft_email", {"contact_id": "C-1", "subject": None}),
        ),
        ("what stage is D-15 in?", "crm/python/get_deal", {}, ("get_deal", {"deal_id": "D-15"})),
    ],
)
def test_a_bare_id_fills_the_parameter_its_description_shapes(
    crm: tuple[SchemaRouter, Path],
    query: str,
    route: str,
    given: dict[str, str],
    sent: tuple[str, dict[str, Any]],
) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == (route,)
    key = next(iter(sent[1]))
    assert plan.steps[0].arguments[key] == sent[1][key]
    log.write_text("", encoding="utf-8")
    router.execute(plan.with_arguments(0, given) if given else plan, **ALLOW)
    assert _calls(log) == [sent]


def test_an_id_of_another_shape_fills_nothing_and_nothing_is_sent(
    crm: tuple[SchemaRouter, Path],
) -> None:
    router, log = crm
    plan = router.plan(
        PlanRequest(query="add a note about D-7: they went with a competitor", allowed_effects=ALL)
    )
    assert plan.route_ids == ("crm/python/add_note",)
    assert "contact_id" not in plan.steps[0].arguments
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)
    assert _calls(log) == []


def _parameter(description: str, **schema: Any) -> Parameter:
    return Parameter(
        name="contact_id",
        location=ParameterLocation.ARGUMENT,
        json_schema={"type": "string", **schema},
        required=True,
        description=description,
    )


@pytest.mark.parametrize(
    ("description", "schema", "pattern"),
    [
        ("The contact, like C-3.", {}, r"^C\-[0-9]+$"),
        ("An order number (e.g. ORD-1001).", {}, r"^ORD\-[0-9]+$"),
        ("The customer.", {"example": "cus_42"}, r"^cus_[0-9]+$"),
        ("The contact, like C-3 or P-4.", {}, None),  # two shapes: none
        ("The contact id.", {}, None),
        ("How many, like 3.", {}, None),  # no letters: any number would fit
    ],
)
def test_the_shape_a_description_shows(
    description: str, schema: dict[str, Any], pattern: str | None
) -> None:
    assert documented_pattern(_parameter(description, **schema)) == pattern
