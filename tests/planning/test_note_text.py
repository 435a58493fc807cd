"""A change that adds a note takes its text as a message's is read (user trial 20: a sales
team's CRM as typed Python functions). "add a note to C-2 that they went with a competitor"
and "add a note to C-2: prefers calls after 2pm" planned ``add_note`` with ``text`` open, as
only a sending route's text was read from the request, and nothing was noted. A note with no
text written stays missing and is not sent.

The function is real and logs each call it receives to a JSON-lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


def add_note(contact_id: str, text: str) -> str:
    """Add a note to a contact.

    Args:
        contact_id: The contact, like C-3.
        text: The note.
    """
    with _LOG[0].open("a", encoding="utf-8") as fh:
        args = {"contact_id": contact_id, "text": text}
        fh.write(json.dumps({"fn": "add_note", "args": args}) + "\n")
    return "N-1"


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(add_note, provider="crm", effect="write")
    try:
        yield router, log
    finally:
        router.close()


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("add a note to C-2: prefers calls after 2pm", "prefers calls after 2pm"),
        ("add a note to C-2 that they went with a competitor", "they went with a competitor"),
        ("add a note to C-2 saying the budget is approved", "the budget is approved"),
    ],
)
def test_the_text_of_a_note_is_read(crm: tuple[SchemaRouter, Path], query: str, text: str) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("crm/python/add_note",)
    assert plan.steps[0].arguments == {"contact_id": "C-2", "text": text}
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    assert _calls(log) == [{"fn": "add_note", "args": {"contact_id": "C-2", "text": text}}]


def test_a_note_with_no_text_is_not_sent(crm: tuple[SchemaRouter, Path]) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query="add a note to C-2", allowed_effects=ALL))
    assert plan.route_ids == ("crm/python/add_note",)
    assert plan.missing_arguments == {"crm/python/add_note": ("text",)}
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)
    assert _calls(log) == []
