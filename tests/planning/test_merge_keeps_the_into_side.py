"""A merge keeps the entry the request merges into (user trial 20: a sales team's CRM as typed
Python functions). "merge contact C-7 into C-3" left both ``keep_id`` and ``drop_id`` of the
destructive ``merge_contacts`` open and sent nothing; filling them by the order the ids are
written would delete C-3, the contact kept. The id after "into", or after "keep", is the one
kept; a merge that says neither fills neither side, and nothing is removed.

The functions are real and log each call they receive to a JSON-lines file."""

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
ALLOW: dict[str, Any] = {
    "allow_effects": ["read", "write", "destructive"],
    "approve": lambda *_: True,
}
_LOG: list[Path] = []


def _log(fn: str, **args: Any) -> None:
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": args}) + "\n")


def merge_contacts(keep_id: str, drop_id: str) -> str:
    """Merge two duplicate contacts: the kept one takes the other's notes, and the dropped
    one is deleted.

    Args:
        keep_id: The contact that stays, like C-3.
        drop_id: The duplicate that is deleted, like C-7.
    """
    _log("merge_contacts", keep_id=keep_id, drop_id=drop_id)
    return keep_id


def merge_accounts(primary_id: str, duplicate_id: str) -> str:
    """Merge a duplicate customer account into its primary account."""
    _log("merge_accounts", primary_id=primary_id, duplicate_id=duplicate_id)
    return primary_id


@pytest.fixture(scope="module")
def crm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    for fn in (merge_contacts, merge_accounts):
        router.add_callable(fn, provider="crm", effect="destructive")
    try:
        yield router, log
    finally:
        router.close()


def _calls(log: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(c["fn"], c["args"]) for c in map(json.loads, log.read_text("utf-8").splitlines())]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("merge contact C-7 into C-3", ("merge_contacts", {"keep_id": "C-3", "drop_id": "C-7"})),
        ("merge contact C-3 into C-7", ("merge_contacts", {"keep_id": "C-7", "drop_id": "C-3"})),
        ("merge C-7 into contact C-3", ("merge_contacts", {"keep_id": "C-3", "drop_id": "C-7"})),
        (
            "merge contacts C-9 and C-4, keep C-4",
            ("merge_contacts", {"keep_id": "C-4", "drop_id": "C-9"}),
        ),
        (
            "merge customer account A-2 into account A-1",
            ("merge_accounts", {"primary_id": "A-1", "duplicate_id": "A-2"}),
        ),
    ],
)
def test_the_id_merged_into_is_kept(
    crm: tuple[SchemaRouter, Path], query: str, sent: tuple[str, dict[str, Any]]
) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == (f"crm/python/{sent[0]}",)
    assert plan.steps[0].arguments == sent[1]
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    assert _calls(log) == [sent]


@pytest.mark.parametrize(
    "query",
    [
        "merge contacts C-7 and C-3",  # which one stays is not said
        "merge contact C-7 into C-3, keep C-7",  # two readings
        "merge contact C-7 into C-3 and C-5",  # a third id
    ],
)
def test_a_merge_that_does_not_say_which_stays_removes_nothing(
    crm: tuple[SchemaRouter, Path], query: str
) -> None:
    router, log = crm
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("crm/python/merge_contacts",)
    assert "drop_id" not in plan.steps[0].arguments
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)
    assert _calls(log) == []
