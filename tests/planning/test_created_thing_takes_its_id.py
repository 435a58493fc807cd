"""A creation request plans the route that creates what it names, and that route takes the id
the request names by the shape the provider's other routes show for a parameter of that name
(user trial 20: a sales team's CRM as typed Python functions). "create a task to follow up with C-4 due 2026-12-12" planned
``add_note(contact_id="C-4")``: ``create_task``'s optional ``contact_id`` ("The contact it is
about.", no example) did not take C-4, so a create that did was put first; "create a task
for C-4: send the contract, due 2026-12-12" wrote that note.

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Iterator
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


def _log(fn: str, **args: object) -> None:
    plain = {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in args.items()}
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": plain}) + "\n")


def create_task(
    title: str, due_date: dt.date, contact_id: str | None = None, deal_id: str | None = None
) -> str:
    """Create a follow-up task with a due date.

    Args:
        title: What to do.
        due_date: When it is due.
        contact_id: The contact it is about.
        deal_id: The deal it is about.
    """
    _log("create_task", title=title, due_date=due_date, contact_id=contact_id, deal_id=deal_id)
    return "T-1"


def add_note(contact_id: str, text: str) -> str:
    """Add a note to a contact.

    Args:
        contact_id: The contact, like C-3.
        text: The note.
    """
    _log("add_note", contact_id=contact_id, text=text)
    return "N-1"


def get_contact(contact_id: str) -> dict[str, str]:
    """Look up one contact.

    Args:
        contact_id: The contact's id, like C-3.
    """
    _log("get_contact", contact_id=contact_id)
    return {"contact_id": contact_id, "name": "Anna Berg"}


def get_deal(deal_id: str) -> dict[str, str]:
    """Look up one deal.

    Args:
        deal_id: The deal's id, like D-12.
    """
    _log("get_deal", deal_id=deal_id)
    return {"deal_id": deal_id, "company": "Acme"}


def _task_of_no_contact() -> Callable[..., str]:
    def create_task(title: str, due_date: dt.date) -> str:
        """Create a follow-up task with a due date.

        Args:
            title: What to do.
            due_date: When it is due.
        """
        _log("create_task", title=title, due_date=due_date)
        return "T-1"

    return create_task


def _router(*functions: Callable[..., Any]) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([get_contact, get_deal], provider="crm", effect="read")
    router.add_callable(list(functions), provider="crm", effect="write")
    return router


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crm") / "calls.jsonl"
    _LOG[:] = [path]
    return path


@pytest.fixture(scope="module")
def crm(log: Path) -> Iterator[SchemaRouter]:
    router = _router(create_task, add_note)
    try:
        yield router
    finally:
        router.close()


def _sent(router: SchemaRouter, log: Path, query: str) -> tuple[Any, list[dict[str, Any]]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=3)
    log.write_text("", encoding="utf-8")
    with contextlib.suppress(ParameterValidationError):  # a plan left open: the log says
        router.execute(plan, **ALLOW)
    return plan, [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    "query",
    [
        "create a task to follow up with C-4 due 2026-12-12",
        "create a task for C-4: send the contract, due 2026-12-12",
        "add a task for contact C-4 due 2026-12-12",
    ],
)
def test_the_task_asked_takes_the_contact(crm: SchemaRouter, log: Path, query: str) -> None:
    plan, calls = _sent(crm, log, query)
    assert plan.route_ids[0] == "crm/python/create_task"
    args = plan.steps[0].arguments
    assert args["contact_id"] == "C-4"
    assert args["due_date"] == "2026-12-12"
    assert "deal_id" not in args
    assert all(c["fn"] != "add_note" for c in calls)


def test_no_shape_shown_by_the_provider_binds_nothing(log: Path) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(create_task, provider="crm", effect="write")  # no "like C-3" anywhere
    try:
        plan, _ = _sent(router, log, "create a task to follow up with C-4 due 2026-12-12")
    finally:
        router.close()
    assert "contact_id" not in plan.steps[0].arguments


def test_a_deal_and_a_contact_each_take_their_own(crm: SchemaRouter, log: Path) -> None:
    plan, _ = _sent(crm, log, "create a task about D-7 for C-4: send the contract, due 2026-12-12")
    assert plan.route_ids[0] == "crm/python/create_task"
    args = plan.steps[0].arguments
    assert (args["contact_id"], args["deal_id"]) == ("C-4", "D-7")


def test_two_ids_of_one_shape_fill_neither(crm: SchemaRouter, log: Path) -> None:
    plan, _ = _sent(crm, log, "create a task for C-4 and C-5 due 2026-12-12")
    assert plan.route_ids[0] == "crm/python/create_task"
    assert "contact_id" not in plan.steps[0].arguments


def test_a_note_asked_is_still_the_note(crm: SchemaRouter, log: Path) -> None:
    plan, calls = _sent(crm, log, "add a note to C-4: wants a task list")
    assert plan.route_ids[0] == "crm/python/add_note"
    assert calls == [{"fn": "add_note", "args": {"contact_id": "C-4", "text": "wants a task list"}}]


def test_a_task_that_takes_no_contact_is_not_written_as_a_note(log: Path) -> None:
    router = _router(_task_of_no_contact(), add_note)
    try:
        plan, calls = _sent(router, log, "create a task for C-4: send the contract, due 2026-12-12")
    finally:
        router.close()
    assert plan.route_ids[0] == "crm/python/create_task"
    assert all(c["fn"] != "add_note" for c in calls)


@pytest.mark.parametrize(
    ("query", "other"),
    [
        ("move D-12 to proposal, then create a task 'call Anna' due 2026-12-12", "deal_id"),
        ("add note 'called' to C-1 then create a task 'call back' due 2026-12-12", "contact_id"),
    ],
)
def test_a_task_takes_no_id_of_another_part(
    crm: SchemaRouter, log: Path, query: str, other: str
) -> None:
    """The twentieth review: the task's optional ``deal_id`` / ``contact_id`` (bound by the
    shape the provider's other routes show) took the id of the part before, which moves a
    deal or notes a contact: ``create_task(..., deal_id="D-12")`` was sent."""
    _, calls = _sent(crm, log, query)
    tasks = [c["args"] for c in calls if c["fn"] == "create_task"]
    assert tasks
    assert all(task[other] is None for task in tasks)
