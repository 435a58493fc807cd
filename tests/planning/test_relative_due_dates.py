"""Due dates written as a span from today or a period's end ("in 3 days", "in two weeks", "by
end of month"), read against ``PlanRequest.now`` in ``PlanRequest.timezone``; dates written
with slashes ("12/05": December 5 or 12 May) never read (follow-ups of trials 18 and 20).
Before, each span left a task's ``due_date`` missing and nothing was created.

The function is real and logs each call it receives to a JSON-lines file."""

from __future__ import annotations

import datetime as dt
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
#: Saturday 2026-12-05, 23:30 in Berlin: already Sunday in Seoul.
NOW = dt.datetime(2026, 12, 5, 22, 30, tzinfo=dt.UTC)
_LOG: list[Path] = []


def create_task(title: str, due_date: dt.date) -> str:
    """Create a follow-up task with a due date.

    Args:
        title: What to do.
        due_date: When it is due.
    """
    with _LOG[0].open("a", encoding="utf-8") as fh:
        args = {"title": title, "due_date": due_date.isoformat()}
        fh.write(json.dumps({"fn": "create_task", "args": args}) + "\n")
    return "T-1"


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("tasks") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(create_task, provider="crm", effect="write")
    try:
        yield router, log
    finally:
        router.close()


def _plan(router: SchemaRouter, query: str, zone: str = "Europe/Berlin") -> Any:
    request = PlanRequest(query=query, allowed_effects=ALL, now=NOW, timezone=zone)
    return router.plan(request)


@pytest.mark.parametrize(
    ("query", "due"),
    [
        ("create a task 'call Anna' due in 3 days", "2026-12-08"),
        ("create a task 'call Anna' in two weeks", "2026-12-19"),
        ("create a task 'call Anna' 10 days from now", "2026-12-15"),
        ("create a task 'call Anna' by end of month", "2026-12-31"),
        ("create a task 'call Anna' by the end of next month", "2027-01-31"),
        ("create a task 'call Anna' due end of March", "2027-03-31"),
        ("create a task 'call Anna' in a month", "2027-01-05"),
        ("create a task 'call Anna' by end of year", "2026-12-31"),
    ],
)
def test_a_span_from_today_is_the_due_date(
    tasks: tuple[SchemaRouter, Path], query: str, due: str
) -> None:
    router, log = tasks
    plan = _plan(router, query)
    assert plan.steps[0].arguments == {"title": "call Anna", "due_date": due}
    assert any(f"as {due} (today being 2026-12-05 in Europe/Berlin)" in w for w in plan.warnings)
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    got = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert got == [{"fn": "create_task", "args": {"title": "call Anna", "due_date": due}}]


def test_today_is_the_zones_today(tasks: tuple[SchemaRouter, Path]) -> None:
    plan = _plan(tasks[0], "create a task 'call Anna' in 3 days", zone="Asia/Seoul")
    assert plan.steps[0].arguments["due_date"] == "2026-12-09"  # Sunday there, plus 3


@pytest.mark.parametrize(
    "query", ["create a task 'call Anna' due 12/05", "create a task 'call Anna' due 5/12/2026"]
)
def test_a_slashed_date_is_never_read(tasks: tuple[SchemaRouter, Path], query: str) -> None:
    router, log = tasks
    plan = _plan(router, query)
    assert plan.steps[0].arguments == {"title": "call Anna"}
    assert any("month or day first" in w and "due_date left open" in w for w in plan.warnings)
    log.write_text("", encoding="utf-8")
    with pytest.raises(ParameterValidationError):
        router.execute(plan, **ALLOW)
    assert log.read_text("utf-8") == ""


@pytest.mark.parametrize(
    "query",
    [
        "create a task 'call Anna' 3 days ago",  # a past span asked for no due date
        "create a task 'call Anna' in 3 days or in 5 days",  # two dates: none chosen
        "create a task 'call Anna' by the end of the week",  # a Friday or a Sunday
    ],
)
def test_no_due_date_where_it_is_not_one(tasks: tuple[SchemaRouter, Path], query: str) -> None:
    plan = _plan(tasks[0], query)
    assert "due_date" not in plan.steps[0].arguments


def schedule_call(contact_id: str, starts_at: dt.datetime) -> str:
    """Schedule a call with a contact.

    Args:
        contact_id: The contact, like C-3.
        starts_at: When the call starts.
    """
    with _LOG[0].open("a", encoding="utf-8") as fh:
        args = {"contact_id": contact_id, "starts_at": starts_at.isoformat()}
        fh.write(json.dumps({"fn": "schedule_call", "args": args}) + "\n")
    return "ok"


@pytest.mark.parametrize(
    ("query", "start"),
    [
        ("schedule a call with C-4 tomorrow at 9", None),  # 9 am or 9 pm
        ("schedule a call with C-4 tomorrow at 18", None),  # an hour alone
        ("schedule a call with C-4 tomorrow at 9am", "2026-12-06T09:00:00+01:00"),
        ("schedule a call with C-4 in 3 days at 10:00", "2026-12-08T10:00:00+01:00"),
    ],
)
def test_an_hour_alone_is_no_time(
    tasks: tuple[SchemaRouter, Path], query: str, start: str | None
) -> None:
    _, log = tasks
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(schedule_call, provider="crm", effect="write")
    try:
        plan = _plan(router, query)
        assert plan.steps[0].arguments.get("starts_at") == start
        alone = [w for w in plan.warnings if "writes an hour alone" in w]
        assert bool(alone) is (start is None)
        log.write_text("", encoding="utf-8")
        if start is None:
            with pytest.raises(ParameterValidationError):
                router.execute(plan, **ALLOW)
            assert log.read_text("utf-8") == ""
    finally:
        router.close()
