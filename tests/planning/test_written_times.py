"""Dates and times as people write them fill a change's ``date`` / ``date-time`` / ``time``
parameters (helper ``times``; :mod:`schemarouter.planning.written_times`).

Trials: "schedule irrigation for field F-7 tomorrow at 6am with 12 mm", "... on 2026-12-07 at
06:00 ...", "next Monday at 6:30 pm", "book room R-2 for Friday 14:00-15:00" each left the
``start_time`` missing (only an RFC 3339 date-time with an offset was read), so nothing was
sent. Now the date, the time, a range and the zone are read, relative dates against
``PlanRequest.now`` in ``PlanRequest.timezone``; a date-time whose zone neither the request
nor the ``PlanRequest`` gives is left open and the plan says so (never UTC unasked)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from forking import in_child

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, hashing_router, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, Request, json_response

#: A Saturday evening in UTC: Sunday 03:00 in Seoul, still Saturday in Berlin.
NOW = datetime(2026, 12, 5, 18, 0, tzinfo=UTC)
TEXT = {"type": "string"}
STAMP = {"type": "string", "format": "date-time"}


def _body(*required: str, **properties: Any) -> dict[str, Any]:
    schema = {"type": "object", "required": list(required), "properties": properties}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _op(operation_id: str, summary: str, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    answer = ok({"type": "object", "properties": {"id": TEXT}})
    return {
        "operationId": operation_id,
        "summary": summary,
        "requestBody": body,
        "responses": answer,
        **extra,
    }


IRRIGATION = {
    "/fields/{field_id}/irrigations": {
        "post": _op(
            "schedule_irrigation",
            "Schedule irrigation for a field",
            _body("start_time", "amount_mm", start_time=STAMP, amount_mm={"type": "number"}),
            parameters=path_id("field_id"),
        )
    }
}
PATHS = {
    **IRRIGATION,
    "/rooms/{room_id}/bookings": {
        "post": _op(
            "book_room",
            "Book a room",
            _body("start_time", "end_time", start_time=STAMP, end_time=STAMP),
            parameters=path_id("room_id"),
        )
    },
    "/coupons": {
        "post": _op(
            "create_coupon",
            "Create a coupon code",
            _body("code", "expires_on", code=TEXT, expires_on={"type": "string", "format": "date"}),
        )
    },
    "/alarms": {
        "post": _op(
            "set_alarm",
            "Set a daily alarm clock",
            _body("alarm_time", alarm_time={"type": "string", "format": "time"}),
        )
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(openapi_document("Farm", PATHS), provider="farm")


def _body_of(router: SchemaRouter, text: str, route: str, zone: str = "") -> tuple[dict, Any]:
    asked = PlanRequest(query=text, allowed_effects=WRITES, timezone=zone, now=NOW)
    plan = router.plan(asked, max_calls=2)
    steps = [s for s in plan.steps if s.route_id == f"farm/rest/{route}"]
    assert steps, plan.route_ids
    return dict(steps[0].arguments.get("body", {})), plan


IRRIGATE = "schedule irrigation for field F-7 {} with 12 mm"


@pytest.mark.parametrize(
    ("said", "zone", "start"),
    [
        ("tomorrow at 6am", "Europe/Berlin", "2026-12-06T06:00:00+01:00"),
        ("tomorrow at 6am KST", "", "2026-12-07T06:00:00+09:00"),  # Sunday in Seoul already
        ("on 2026-12-07 at 06:00 Europe/Berlin", "", "2026-12-07T06:00:00+01:00"),
        ("on 2026-07-07 at 06:00 Europe/Berlin", "", "2026-07-07T06:00:00+02:00"),  # summer
        ("on Dec 7 2026 at 18:00 UTC", "", "2026-12-07T18:00:00Z"),
        ("on 7 December at noon +09:00", "", "2026-12-07T12:00:00+09:00"),
        ("next Monday at 6:30 pm", "Asia/Seoul", "2026-12-07T18:30:00+09:00"),
        ("on Jan 5 at 6:30 p.m. CET", "", "2027-01-05T18:30:00+01:00"),  # no year: the next
        ("on 2026-12-07 06:00", "+09:00", "2026-12-07T06:00:00+09:00"),
        ("on 2020-01-31 at midnight UTC", "", "2020-01-31T00:00:00Z"),  # past: as written
    ],
)
def test_a_written_date_and_time_fill_the_start(
    router: SchemaRouter, said: str, zone: str, start: str
) -> None:
    body, _ = _body_of(router, IRRIGATE.format(said), "schedule_irrigation", zone)
    assert body.get("start_time") == start


def test_a_relative_date_is_said_in_the_plan(router: SchemaRouter) -> None:
    body, plan = _body_of(router, IRRIGATE.format("tomorrow at 6am"), "schedule_irrigation", "CET")
    assert body["start_time"] == "2026-12-06T06:00:00+01:00"
    assert any("'tomorrow' as 2026-12-06" in w and "CET" in w for w in plan.warnings)


@pytest.mark.parametrize("said", ["tomorrow at 6am", "on 2026-12-07 at 06:00", "next Monday 18:00"])
def test_a_time_with_no_zone_fills_nothing_and_says_so(router: SchemaRouter, said: str) -> None:
    body, plan = _body_of(router, IRRIGATE.format(said), "schedule_irrigation")
    assert "start_time" not in body
    assert body["amount_mm"] == 12
    assert any("names no time zone; give start_time" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("for Friday 14:00-15:00", "2026-12-11T14:00:00+01:00", "2026-12-11T15:00:00+01:00"),
        ("on Friday from 9 to 11", "2026-12-11T09:00:00+01:00", "2026-12-11T11:00:00+01:00"),
        ("on Friday from 2 to 4pm", "2026-12-11T14:00:00+01:00", "2026-12-11T16:00:00+01:00"),
        ("on Friday 14:00-15:00, not tomorrow", "2026-12-11T14:00:00+01:00", None),
    ],
)
def test_a_range_fills_start_and_end_by_their_names(
    router: SchemaRouter, said: str, start: str, end: str | None
) -> None:
    body, _ = _body_of(router, f"book room R-2 {said}", "book_room", "Europe/Berlin")
    assert body["start_time"] == start
    assert body["end_time"] == end or end is None


@pytest.mark.parametrize(
    "said",
    [
        "not tomorrow",  # a date refused is none written
        "tomorrow at 14:00 or Friday at 15:00",  # two dates: not chosen between
        "tomorrow at 14:00 UTC+1 or 15:00 KST",  # two zones
        "for Friday at 14:00",  # one time for a start and an end: a range fills them
    ],
)
def test_what_is_unclear_fills_nothing(router: SchemaRouter, said: str) -> None:
    body, _ = _body_of(router, f"book room R-2 {said}", "book_room", "Europe/Berlin")
    assert "start_time" not in body and "end_time" not in body


@pytest.mark.parametrize(
    ("said", "expires"),
    [
        ("expires Jan 31 2027", "2027-01-31"),
        ("expires 31st of January 2027", "2027-01-31"),
        ("expires tomorrow", "2026-12-06"),  # in UTC, and the plan says so
        ("expires 2027-01-31", "2027-01-31"),
    ],
)
def test_a_date_parameter_takes_the_date(router: SchemaRouter, said: str, expires: str) -> None:
    body, plan = _body_of(router, f"create coupon code SAVE10 {said}", "create_coupon")
    assert body["expires_on"] == expires
    if "tomorrow" in said:
        assert any("today being 2026-12-05 in UTC" in w for w in plan.warnings)


@pytest.mark.parametrize(
    ("said", "zone", "expires"),
    [
        # a day word with a particle on it, read in the request's zone: trial 19's own
        # reading of it took the process's calendar (Saturday 18:00 UTC is Sunday in Seoul)
        ("내일까지 유효한 쿠폰 SAVE10 만들어줘", "Asia/Seoul", "2026-12-07"),
        ("내일까지 유효한 쿠폰 SAVE10 만들어줘", "Europe/Berlin", "2026-12-06"),
        ("모레부터 유효한 쿠폰 SAVE10 만들어줘", "Asia/Seoul", "2026-12-08"),
    ],
)
def test_a_korean_day_word_with_its_particle_is_read_in_the_zone(
    router: SchemaRouter, said: str, zone: str, expires: str
) -> None:
    body, _ = _body_of(router, said, "create_coupon", zone)
    assert body["expires_on"] == expires


@pytest.mark.parametrize(
    ("said", "zone", "alarm"),
    [("at 6:30 pm", "", "18:30:00"), ("at 06:00", "Asia/Seoul", "06:00:00+09:00")],
)
def test_a_time_parameter_takes_the_time(
    router: SchemaRouter, said: str, zone: str, alarm: str
) -> None:
    body, _ = _body_of(router, f"set a daily alarm clock {said}", "set_alarm", zone)
    assert body["alarm_time"] == alarm


@pytest.mark.parametrize(
    ("said", "start"),
    [
        ("내일 오전 6시", "2026-12-07T06:00:00+09:00"),  # Sunday in Seoul: Monday
        ("12월 7일 오후 6시 반", "2026-12-07T18:30:00+09:00"),
        ("다음 주 월요일 14:00", "2026-12-07T14:00:00+09:00"),  # weeks start on Monday
    ],
)
def test_korean_dates_and_times(said: str, start: str) -> None:
    router = hashing_router(openapi_document("Farm", IRRIGATION), provider="farm")
    text = f"필드 F-7에 {said}에 관개 12 mm 예약해줘"
    body, _ = _body_of(router, text, "schedule_irrigation", "Asia/Seoul")
    assert body.get("start_time") == start


def test_a_zone_the_request_gives_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        PlanRequest(query="x", timezone="Mars/Olympus")


# -- end to end: the booking a real server receives ------------------------------------------


def _answer(request: Request) -> tuple[int, dict[str, str], bytes]:
    return json_response({"id": "BK-1"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_answer) as running:
        yield running


def test_the_server_receives_the_times_read(server: LoopbackServer) -> None:
    router = served_router(openapi_document("Farm", PATHS), server, provider="farm")
    asked = PlanRequest(
        query="book room R-2 for Friday 14:00-15:00",
        allowed_effects=WRITES,
        timezone="Europe/Berlin",
        now=NOW,
    )
    plan = router.plan(asked, max_calls=2)
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [(r.method, r.path) for r in server.requests] == [("POST", "/rooms/R-2/bookings")]
    assert json.loads(server.requests[0].body) == {
        "start_time": "2026-12-11T14:00:00+01:00",
        "end_time": "2026-12-11T15:00:00+01:00",
    }


def test_a_long_hostile_request_reads_its_times_in_linear_time(router: SchemaRouter) -> None:
    """100,000 characters of half-written times, dates and zones (each pattern reads the
    request once: no run of blanks or digits is read back and forth)."""
    text = "book room R-2 " + "12:3 from 9   Dec 7  UTC+ 2026-12- 오후 6시간 " * 2_400

    def job() -> float:
        started = time.monotonic()
        router.plan(PlanRequest(query=text[:100_000], allowed_effects=WRITES, now=NOW))
        return time.monotonic() - started

    answer, elapsed = in_child(job, wait=20.0)
    assert answer == "ok", (answer, elapsed)
