"""The nineteenth security review's wrong writes of dates, times and signed counts, each sent
to a real loopback HTTP server, every effect allowed and
approved (docs/faults.md, "The nineteenth security review").

- "Create a task 'pay rent' in project P-1 due tomorrow" sent ``start_date`` and
  ``due_date`` both tomorrow (the one date filled every ``date`` parameter by its kind).
- "2:30" on the night Europe/Berlin's clocks go forward was sent as 02:30+01:00 (03:30
  there), and on the night they go back as the first of the two 02:30s.
- "tomorrow at 6am Europe/Berln" (a zone it cannot read) was sent in PlanRequest.timezone.
- "book room R-2 tomorrow from 3pm until 1pm" sent an end before its start (so did
  23:00-01:00, now read as a night: its end the next day).
- "Take 2 units off the stock of SKU-12, they were added by mistake" sent +2.
- ``PlanRequest.now`` at the calendar's edge raised OverflowError from ``plan``; a zone name
  of 100,000 letters, or "Europe" (a folder), raised the file system's OSError.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from schemarouter import PlanRequest

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, Request, json_response

NOW = datetime(2026, 12, 5, 18, 0, tzinfo=UTC)
TEXT = {"type": "string"}
STAMP = {"type": "string", "format": "date-time"}
DAY = {"type": "string", "format": "date"}


def _post(operation_id: str, summary: str, *required: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "required": list(required), "properties": properties}
    return {
        "operationId": operation_id,
        "summary": summary,
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": ok({"type": "object", "properties": {"id": TEXT}}),
    }


PATHS = {
    "/projects/{project_id}/tasks": {
        "parameters": path_id("project_id"),
        "post": _post(
            "create_task", "Create a task in a project", "title",
            title=TEXT, start_date=DAY, due_date=DAY,
        ),
    },
    "/fields/{field_id}/irrigations": {
        "parameters": path_id("field_id"),
        "post": _post(
            "schedule_irrigation", "Schedule irrigation for a field", "start_time",
            start_time=STAMP, amount_mm={"type": "number"},
        ),
    },
    "/rooms/{room_id}/bookings": {
        "parameters": path_id("room_id"),
        "post": _post(
            "book_room", "Book a room", "start_time", "end_time", start_time=STAMP, end_time=STAMP
        ),
    },
}  # fmt: skip


def _answer(request: Request) -> tuple[int, dict[str, str], bytes]:
    return json_response({"id": "X-1"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_answer) as running:
        yield running


def _sent(
    server: LoopbackServer, query: str, zone: str = "", now: datetime = NOW
) -> list[tuple[str, Any]]:
    """The path and body of each request ``server`` gets once the plan of ``query`` runs
    (nothing where ``execute`` refuses it for an argument missing)."""
    from schemarouter.errors import ParameterValidationError

    router = served_router(openapi_document("Desk", PATHS), server, provider="desk")
    asked = PlanRequest(query=query, allowed_effects=WRITES, timezone=zone, now=now)
    plan = router.plan(asked, max_calls=1)
    with contextlib.suppress(ParameterValidationError):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.path, json.loads(r.body)) for r in server.requests]


TASK = "Create a task 'pay rent' in project P-1 {}"


@pytest.mark.parametrize(
    ("said", "body"),
    [
        ("due tomorrow", {"title": "pay rent", "due_date": "2026-12-06"}),
        ("due 2026-12-10", {"title": "pay rent", "due_date": "2026-12-10"}),
        ("due Dec 10", {"title": "pay rent", "due_date": "2026-12-10"}),
        ("starting Dec 10", {"title": "pay rent", "start_date": "2026-12-10"}),
        ("on Dec 10", {"title": "pay rent"}),  # which of the two: neither
    ],
)
def test_one_date_fills_the_date_parameter_its_words_name(
    server: LoopbackServer, said: str, body: dict[str, Any]
) -> None:
    assert _sent(server, TASK.format(said), "Europe/Berlin") == [("/projects/P-1/tasks", body)]


@pytest.mark.parametrize(
    ("now", "said"),
    [
        (datetime(2027, 3, 27, 12, tzinfo=UTC), "tomorrow at 2:30"),  # skipped: clocks forward
        (datetime(2027, 10, 30, 12, tzinfo=UTC), "tomorrow at 2:30"),  # twice: clocks back
    ],
)
def test_a_wall_time_its_zone_skips_or_repeats_is_not_sent(
    server: LoopbackServer, now: datetime, said: str
) -> None:
    query = f"schedule irrigation for field F-7 {said} with 12 mm"
    assert _sent(server, query, "Europe/Berlin", now) == []
    router = served_router(openapi_document("Desk", PATHS), server, provider="desk")
    plan = router.plan(
        PlanRequest(query=query, allowed_effects=WRITES, timezone="Europe/Berlin", now=now)
    )
    assert any("02:30:00 on 2027-" in w and "Europe/Berlin" in w for w in plan.warnings)


def test_the_wall_times_beside_a_change_of_clocks_are_sent(server: LoopbackServer) -> None:
    query = "schedule irrigation for field F-7 tomorrow at 3:30 with 12 mm"
    now = datetime(2027, 3, 27, 12, tzinfo=UTC)
    sent = _sent(server, query, "Europe/Berlin", now)
    assert sent == [
        ("/fields/F-7/irrigations", {"start_time": "2027-03-28T03:30:00+02:00", "amount_mm": 12})
    ]


def test_a_zone_written_that_cannot_be_read_is_not_the_requests(server: LoopbackServer) -> None:
    query = "schedule irrigation for field F-7 tomorrow at 6am Europe/Berln with 12 mm"
    assert _sent(server, query, "UTC") == []


@pytest.mark.parametrize("said", ["from 3pm until 1pm", "from 10 to 2", "10:00-01:00"])
def test_a_range_ending_before_it_starts_is_not_sent(server: LoopbackServer, said: str) -> None:
    """No night (at most 12 hours into the next day, clock times that say their half of the
    day: trial 21's "22:00-06:00"): neither side is sent."""
    assert _sent(server, f"book room R-2 tomorrow {said}", "Asia/Seoul") == []


def test_a_night_range_ends_the_next_day(server: LoopbackServer) -> None:
    """The night "23:00-01:00" was refused here too, before trial 21's night shift was read (merged);
    "tomorrow" is 2026-12-07 in Seoul at 18:00 UTC on the 5th."""
    (sent,) = _sent(server, "book room R-2 tomorrow 23:00-01:00", "Asia/Seoul")
    assert sent[1] == {
        "start_time": "2026-12-07T23:00:00+09:00",
        "end_time": "2026-12-08T01:00:00+09:00",
    }


@pytest.mark.parametrize(
    ("now", "zone", "said"),
    [
        (datetime(9999, 12, 31, 23, tzinfo=UTC), "UTC", "tomorrow at 6am"),
        (datetime(9999, 12, 31, 23, tzinfo=UTC), "+14:00", "at 6am"),
        (datetime(1, 1, 1, 1, tzinfo=UTC), "-12:00", "at 6am"),
        (datetime(1, 1, 1, 1, tzinfo=UTC), "UTC", "last Monday at 6am"),
    ],
)
def test_a_clock_at_the_calendars_edge_fills_nothing(
    server: LoopbackServer, now: datetime, zone: str, said: str
) -> None:
    query = f"schedule irrigation for field F-7 {said} with 12 mm"
    assert _sent(server, query, zone, now) == []


@pytest.mark.parametrize("name", ["a" * 100_000, "Europe", "Å" * 300, "a/" * 3_000])
def test_a_hostile_zone_name_is_refused_as_unknown(name: str) -> None:
    with pytest.raises(ValueError, match="unknown time zone"):
        PlanRequest(query="x", timezone=name)


STOCK = {
    "/stock/{sku}/adjustments": {
        "parameters": path_id("sku"),
        "post": _post(
            "adjust_stock", "Adjust the stock of a SKU", "quantity_delta",
            quantity_delta={"type": "integer"},
        ),
    },
    "/stock/{sku}": {
        "parameters": path_id("sku"),
        "get": {"operationId": "get_stock", "summary": "Get the stock of a SKU", "responses": ok({})},
    },
}  # fmt: skip


@pytest.mark.parametrize(
    ("query", "delta"),
    [
        ("Take 2 units off the stock of SKU-12, they were added by mistake", -2),
        ("Adjust the stock of SKU-12: take 3 units out", -3),
    ],
)
def test_a_counts_sign_is_read_in_its_own_clause(
    server: LoopbackServer, query: str, delta: int
) -> None:
    router = served_router(openapi_document("Shop", STOCK), server, provider="shop")
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES), max_calls=1)
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    sent = [(r.path, json.loads(r.body)) for r in server.requests]
    assert sent == [("/stock/SKU-12/adjustments", {"quantity_delta": delta})]
