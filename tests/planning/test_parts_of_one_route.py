"""Two parts of a request that one change route serves are each planned, with their own
arguments, where ``max_calls`` leaves room (follow-up of earlier trials). Before, "add note
'called' to C-1 and note 'emailed' to C-2" planned one ``add_note`` with neither contact nor
text, said the second part's arguments were not planned, and nothing was noted.

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter, capability
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


@capability(effect="write")
def add_note(contact_id: str, text: str) -> str:
    """Add a note to a contact.

    Args:
        contact_id: The contact, like C-3.
        text: The note.
    """
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"contact_id": contact_id, "text": text}) + "\n")
    return "N-1"


def get_contact(contact_id: str) -> dict[str, str]:
    """Look up one contact.

    Args:
        contact_id: The contact's id, like C-3.
    """
    return {"contact_id": contact_id, "name": "Anna Berg"}


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([add_note, get_contact], provider="crm")
    try:
        yield router, log
    finally:
        router.close()


def _noted(crm: tuple[SchemaRouter, Path], query: str, max_calls: int) -> tuple[Any, list[Any]]:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=max_calls)
    log.write_text("", encoding="utf-8")
    try:
        router.execute(plan, **ALLOW)
    except ParameterValidationError:
        assert plan.missing_arguments
    return plan, [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    "query",
    [
        "add note 'called' to C-1 and note 'emailed' to C-2",
        "add note 'called' to C-1 and add note 'emailed' to C-2",
    ],
)
def test_each_part_is_its_own_call(crm: tuple[SchemaRouter, Path], query: str) -> None:
    plan, noted = _noted(crm, query, 3)
    assert plan.route_ids == ("crm/python/add_note", "crm/python/add_note")
    assert noted == [
        {"contact_id": "C-1", "text": "called"},
        {"contact_id": "C-2", "text": "emailed"},
    ]
    assert not any("same best route" in w for w in plan.warnings)


def test_one_call_allowed_sends_nothing_unclear(crm: tuple[SchemaRouter, Path]) -> None:
    plan, noted = _noted(crm, "add note 'called' to C-1 and note 'emailed' to C-2", 1)
    assert len(plan.steps) == 1
    assert noted == []  # two contacts and two notes: the one call takes neither


def test_the_same_note_twice_is_one_call(crm: tuple[SchemaRouter, Path]) -> None:
    plan, noted = _noted(crm, "add note 'called' to C-1 and note 'called' to C-1", 3)
    assert len(plan.steps) == 1
    assert noted == [{"contact_id": "C-1", "text": "called"}]


def test_a_part_left_open_keeps_the_plan_as_it_was(crm: tuple[SchemaRouter, Path]) -> None:
    plan, noted = _noted(crm, "add note 'called' to C-1 and note to C-2", 3)
    assert len(plan.steps) == 1
    assert noted == []


def test_a_part_refused_is_not_written(crm: tuple[SchemaRouter, Path]) -> None:
    """The twentieth review: the part "note 'emailed' to C-2, don't note C-2" was filled from
    its own words and the note to C-2 written; no part's step takes an id the request
    refuses."""
    query = "add note 'called' to C-1 and note 'emailed' to C-2, don't note C-2"
    _, noted = _noted(crm, query, 3)
    assert [n for n in noted if n["contact_id"] == "C-2"] == []
