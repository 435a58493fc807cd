"""Dates and times as people write them, for a change's ``date``, ``date-time`` and ``time``
parameters: "schedule irrigation for field F-7 tomorrow at 6am", "on 2026-12-07 at 06:00
Europe/Berlin", "next Monday at 6:30 pm KST", "book room R-2 for Friday 14:00-15:00", "expires
Jan 31 2027", "내일 오전 6시", "12월 7일 14시부터 15시까지".

Trial: each left the parameter missing (:mod:`.time_values` read only an RFC 3339 date-time
with an offset), so nothing was sent. What is read here:

- a date: ISO (2026-12-07), a month's name (Dec 7 2026, 7 December), today, tomorrow, the day
  after tomorrow, a weekday (Friday: the first from today on; next / last Monday: the first
  after / before today), Korean 오늘, 내일, 모레, (2026년) 12월 7일, (다음 주) 월요일; a date
  written with no year is the first such date from today on;
- a time: 6am, 6:30 pm, 06:00, 18:00, noon, midnight, 오전 6시, 오후 6시 반; a range of two
  ("14:00-15:00", "from 9 to 11", "9시부터 11시까지") fills a change's start and end
  parameters by their names (``start_*`` / ``*_from`` ... and ``end_*`` / ``*_to`` ...);
- a zone: UTC or GMT (with an offset: UTC+9), Z or an offset written onto the time
  (06:00Z, 06:00+09:00), an IANA name (Europe/Berlin, read with :mod:`zoneinfo`), or one of
  the unambiguous abbreviations of :data:`_ABBREVIATIONS` (KST, CET, EST ...).

A ``date`` parameter takes the date only. A ``date-time`` one needs a zone: the request's, or
the one its :class:`~schemarouter.planning.planner.PlanRequest` gives (``timezone``); with
neither it is not filled (a wall-clock time is never taken as UTC unasked) and the plan says
so (:func:`time_notes`). Relative dates are read against ``PlanRequest.now`` (else the
clock), in that zone (else in UTC, and the plan's note says which day was taken as today).
Two dates, two times (not a range) or two zones written are not chosen between; a date the
request refuses ("not tomorrow") is none it writes; a past date is sent as written.
Every pattern reads the request once, in linear time (``\\s*+``: a run of blanks is never read
back and forth).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache, wraps
from typing import Any, NamedTuple, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.clock_changes import clock_notes, not_once
from schemarouter.planning.night_ranges import night
from schemarouter.planning.relative_dates import SPANS, slashed, span_day, span_key
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = [
    "LOWER_BOUND",
    "UPPER_BOUND",
    "current_now",
    "date_spans",
    "reading_times",
    "time_notes",
    "written_value",
    "zone_named",
]

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_YEAR = r"(?:,?\s*+(?P<y>(?:19|20)\d{2})\b)?"
_DAY = r"(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\b"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_KO_WEEKDAYS = "월화수목금토일"
#: The dates (see the module docstring): each match's groups say which it is.
_DATES = (
    re.compile(
        r"(?<![\w-])(?P<y>(?:19|20)\d{2})-(?P<m>0[1-9]|1[0-2])-(?P<d>0[1-9]|[12]\d|3[01])"
        r"(?![\d-])",
    ),
    re.compile(rf"\b{_MONTH}\s*+{_DAY}{_YEAR}", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s*+(?:of\s++)?{_MONTH}{_YEAR}", re.IGNORECASE),
    re.compile(
        r"(?:\b(?P<rel>today|tomorrow|(?:the\s++)?day\s++after\s++tomorrow)\b"
        r"|(?<![가-힣])(?P<korel>오늘|내일모레|내일|모레)"
        r"(?=(?:까지|부터|에는|에|으로|로|의|은|는|도|만|이나|이랑|하고)?(?![가-힣])))(?!['’]s)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?<!\bevery\s)(?<!\beach\s)\b(?:(?P<which>next|this|coming|last)\s++)?(?P<wd>{'|'.join(_WEEKDAYS)})\b",
        re.I,
    ),
    re.compile(
        r"(?<![가-힣])(?:(?P<kowhich>이번|다음|지난)\s*+주\s*+)?(?P<kowd>[월화수목금토일])요일"
    ),
    re.compile(
        r"(?<!\d)(?:(?P<y>(?:19|20)\d{2})년\s*+)?(?P<m>1[0-2]|0?[1-9])월\s*+"
        r"(?P<d>3[01]|[12]\d|0?[1-9])일"
    ),
)
_KO_RELATIVE = {"오늘": 0, "내일": 1, "모레": 2, "내일모레": 2}
_ZONE_SUFFIX = r"(?P<z>[Zz](?![\w])|\+(?:[01]\d|2[0-3]):?[0-5]\d(?!\d))?"
#: The times: 24-hour (a ``-`` offset only onto an ISO ``T`` time: "14:00-15:00" is a range),
#: 12-hour, noon and midnight, and Korean ones.
_TIMES = (
    re.compile(
        r"(?<=\d[Tt])(?P<H>[01]\d|2[0-3]):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?(?:\.\d{1,9})?"
        r"(?P<z>[Zz](?!\w)|[+-](?:[01]\d|2[0-3]):?[0-5]\d(?!\d))?"
    ),
    re.compile(
        rf"(?<![\w:.+])(?<!\s-)(?P<H>[01]?\d|2[0-3]):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?(?![\d:])"
        rf"(?!\s*+[ap]\.?m\b){_ZONE_SUFFIX}",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?<![\w:.])(?P<h>1[0-2]|0?[1-9])(?::(?P<M>[0-5]\d))?\s*+(?P<ap>[ap])\.?m\b\.?", re.I
    ),
    re.compile(r"\b(?P<word>noon|midday|midnight)\b", re.IGNORECASE),
    re.compile(
        r"(?:(?P<part>오전|오후|아침|저녁|밤|새벽)\s*+)?(?<!\d)(?P<kh>1\d|2[0-4]|0?\d)시(?![간작])"
        r"(?:\s*+(?P<km>[0-5]?\d)분|\s*+(?P<half>반))?"
    ),
)
#: Between the two times of a range ("14:00-15:00", "9am to 11am", "9시부터 11시").
_BETWEEN = re.compile(r"\s*+(?:-|–|—|~|to|until|till|through|and|부터)\s*+", re.IGNORECASE)
#: A range of bare hours ("from 9 to 11", "between 2 and 4pm").
_BARE_RANGE = re.compile(
    r"\b(?:from|between)\s++(?P<h1>[01]?\d|2[0-3])(?::(?P<m1>[0-5]\d))?(?P<ap1>\s*+[ap]\.?m\b\.?)?"
    r"\s*+(?:-|–|to|until|till|and)\s*+(?P<h2>[01]?\d|2[0-3])(?::(?P<m2>[0-5]\d))?"
    r"(?P<ap2>\s*+[ap]\.?m\b\.?)?(?![\w:])",
    re.IGNORECASE,
)
#: An hour written bare after "at" ("tomorrow at 9"): read as no time (9 am or 9 pm).
_BARE_HOUR = re.compile(
    r"\bat\s++(?:1\d|2[0-3]|0?\d)\b(?![.:,]?\d|\s*+(?:[ap]\.?m\b|%|percent|degrees?|°))", re.I
)
#: Abbreviations of one zone each, as fixed offsets (hours); CST, IST, BST name several.
_ABBREVIATIONS = {
    "UTC": 0, "GMT": 0, "KST": 9, "JST": 9, "HKT": 8, "SGT": 8, "AEST": 10, "AEDT": 11,
    "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "EST": -5, "EDT": -4, "MST": -7, "MDT": -6,
    "PST": -8, "PDT": -7,
}  # fmt: skip
_ZONES = (
    re.compile(
        rf"(?<![\w/])(?P<abbr>{'|'.join(_ABBREVIATIONS)})"
        r"(?:\s*+(?P<sign>[+-])(?P<oh>[01]?\d)(?::?(?P<om>[0-5]\d))?)?(?![\w/])"
    ),
    re.compile(
        r"(?<![\w/])(?P<iana>(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian"
        r"|Pacific|Etc)/[A-Za-z_+-]{1,40}(?:/[A-Za-z_+-]{1,40})?)(?![\w/])"
    ),
    re.compile(r"(?<![\w:+-])(?P<off>[+-](?:[01]\d|2[0-3]):[0-5]\d)(?![\d:])"),
    re.compile(r"(?P<seoul>한국\s*+시간?|서울\s*+시간?)"),
)
#: A parameter named as the lower or the upper bound of a time or a date (``opened_after``,
#: ``start_time``, ``since``, ``date_min``; ``end_date``, ``until``): read here, by
#: :mod:`.time_values` and by :mod:`.date_ranges`.
LOWER_BOUND = re.compile(
    r"(?:^|_)(?:after|since|from|start|starts|begin|beginning|min|gte?)(?:_|$)|^since", re.I
)
UPPER_BOUND = re.compile(r"(?:^|_)(?:before|until|till|to|end|ends|max|lte?)(?:_|$)", re.I)
_TIME_FORMATS = ("date", "date-time", "time")
#: What an IANA zone's name is: up to three parts of letters, digits, ``_``, ``+`` and ``-``,
#: each opening with a letter ("America/Argentina/Buenos_Aires", "Etc/GMT+9"). No other name
#: is looked up: "Europe" is a folder of the database, "../../etc/passwd" a path, and a name
#: of 100,000 letters raised the file system's OSError, none of them a ValueError.
_IANA_NAME = re.compile(r"[A-Za-z][\w+-]{0,39}(?:/[A-Za-z][\w+-]{0,39}){0,2}", re.ASCII)


@dataclass(frozen=True)
class _Reading:
    """The zone a request's wall-clock times are in where it writes none, and the clock."""

    zone: tzinfo | None = None
    now: datetime | None = None


_NONE_SET = _Reading()
_READING: ContextVar[_Reading] = ContextVar("schemarouter_written_times", default=_NONE_SET)
_F = TypeVar("_F", bound=Callable[..., Any])


def zone_named(name: str) -> tzinfo:
    """The zone ``name`` says: an IANA name ("Europe/Berlin"), UTC, an offset ("+09:00") or
    an abbreviation of :data:`_ABBREVIATIONS`; a :class:`ValueError` naming what is taken."""
    text = name.strip()
    offset = re.fullmatch(r"(?:UTC|GMT)?([+-])([01]?\d|2[0-3]):?([0-5]\d)?", text)
    if offset:
        minutes = int(offset.group(2)) * 60 + int(offset.group(3) or 0)
        return timezone(timedelta(minutes=-minutes if offset.group(1) == "-" else minutes))
    if text.upper() in _ABBREVIATIONS:
        return timezone(timedelta(hours=_ABBREVIATIONS[text.upper()]), text.upper())
    try:
        if not _IANA_NAME.fullmatch(text):  # not a path, a folder or 100,000 letters
            raise ValueError(text)
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(
            f"unknown time zone {name[:80]!r}: give an IANA name ('Europe/Berlin'), 'UTC' or "
            "an offset ('+09:00')"
        ) from None


def reading_times(plan: _F) -> _F:
    """``plan`` (called with a ``PlanRequest`` first) reading the request's times in its
    ``timezone`` and against its ``now``, for every rule it runs."""

    @wraps(plan)
    def planned(request: Any, *args: Any, **kwargs: Any) -> Any:
        zone = zone_named(request.timezone) if request.timezone else None
        token = _READING.set(_Reading(zone, request.now))
        try:
            return plan(request, *args, **kwargs)
        finally:
            _READING.reset(token)

    return planned  # type: ignore[return-value]


def current_now() -> datetime:
    """The moment relative times are read against: ``PlanRequest.now``, else the clock."""
    given = _READING.get().now
    return given if given is not None else datetime.now(UTC)


class _Said(NamedTuple):
    start: int
    end: int
    key: tuple[Any, ...]  # what it says, before it is read against today


class _Written(NamedTuple):
    dates: tuple[_Said, ...]
    times: tuple[_Said, ...]  # outside ranges: key ("at", hour, minute, second, zone text)
    ranges: tuple[tuple[_Said, _Said], ...]
    zones: frozenset[str]


def _date_key(m: re.Match[str]) -> tuple[Any, ...] | None:
    found = m.groupdict()
    if found.get("mon"):
        month = _MONTHS.index(found["mon"][:3].lower()) + 1
        return ("md", int(found["y"]) if found.get("y") else 0, month, int(found["d"]))
    if found.get("m"):
        return ("md", int(found["y"]) if found.get("y") else 0, int(found["m"]), int(found["d"]))
    if found.get("rel"):
        word = found["rel"].lower()
        return ("in", 0 if word == "today" else 1 if word == "tomorrow" else 2, found["rel"])
    if found.get("korel"):
        return ("in", _KO_RELATIVE[found["korel"]], found["korel"])
    if found.get("wd"):
        which = (found.get("which") or "").lower()
        return ("wd", _WEEKDAYS.index(found["wd"].lower()), which, m.group())
    if found.get("kowd"):
        which = {"이번": "this", "다음": "week after", "지난": "week before"}
        return (
            "wd",
            _KO_WEEKDAYS.index(found["kowd"]),
            which.get(found["kowhich"] or "", ""),
            m.group(),
        )
    return None


def _time_key(m: re.Match[str]) -> tuple[Any, ...] | None:
    found = m.groupdict()
    zone = found.get("z") or ""
    if found.get("H") is not None:
        hour, minute, second = int(found["H"]), int(found["M"]), int(found.get("S") or 0)
    elif found.get("h") is not None:
        hour, minute, second = int(found["h"]) % 12, int(found.get("M") or 0), 0
        hour += 12 if found["ap"].lower() == "p" else 0
    elif found.get("word"):
        hour, minute, second = (0 if found["word"].lower() == "midnight" else 12), 0, 0
    else:
        hour, minute = int(found["kh"]), int(found.get("km") or (30 if found.get("half") else 0))
        part, second = found.get("part") or "", 0
        if part in ("오후", "저녁", "밤") and hour < 12:
            hour += 12
        elif part in ("오전", "새벽", "아침") and hour == 12:
            hour = 0
        if hour > 23:
            return None
    return ("at", hour, minute, second, zone.upper())


def _zone_text(found: dict[str, str | None]) -> str:
    if found.get("abbr"):
        offset = [found.get(g) or "" for g in ("sign", "oh", "om")]
        return str(found["abbr"]) + "".join(offset)
    if found.get("off"):
        return str(found["off"])
    return "Asia/Seoul" if found.get("seoul") else str(found["iana"])


def _bare_range(m: re.Match[str]) -> tuple[_Said, _Said]:
    h1, h2 = int(m.group("h1")), int(m.group("h2"))
    ap1, ap2 = ((m.group(g) or "").strip()[:1].lower() for g in ("ap1", "ap2"))
    ap1 = ap1 or (ap2 if ap2 and h1 % 12 <= h2 % 12 else "a" if ap2 else "")
    hours = [h % 12 + (12 if ap == "p" else 0) if ap else h for h, ap in ((h1, ap1), (h2, ap2))]
    keys = [
        ("at", hour, int(m.group(g) or 0), 0, "")
        for hour, g in zip(hours, ("m1", "m2"), strict=True)
    ]
    return _Said(m.start(), m.end(), keys[0]), _Said(m.start(), m.end(), keys[1])


@lru_cache(maxsize=16)
def _written(query: str) -> _Written:
    """The dates, times, ranges and zones ``query`` writes, but those its clause refuses;
    read once per request (planning asks per route and per parameter)."""
    clauses = clauses_of(query)
    dates = [
        _Said(m.start(), m.end(), key)
        for pattern in _DATES
        for m in pattern.finditer(query)
        if (key := _date_key(m)) is not None and not clauses.against(m)
    ]
    dates += [  # "in 3 days", "by end of month" (relative_dates)
        _Said(m.start(), m.end(), span_key(m))
        for pattern in SPANS
        for m in pattern.finditer(query)
        if not clauses.against(m)
    ]
    bare = [_bare_range(m) for m in _BARE_RANGE.finditer(query) if not clauses.against(m)]
    covered = [(a.start, a.end) for a, _ in bare]
    said = sorted(
        (
            _Said(m.start(), m.end(), key)
            for pattern in _TIMES
            for m in pattern.finditer(query)
            if (key := _time_key(m)) is not None and not clauses.against(m)
        ),
        key=lambda s: s.start,
    )
    # a time inside a range of bare hours is its side ("from 9am to 11am"), found by bisection
    starts = [a for a, _ in covered]
    inside = (bisect.bisect_right(starts, s.start) - 1 for s in said)
    said = [s for s, i in zip(said, inside, strict=True) if i < 0 or s.start >= covered[i][1]]
    ranges, times, i = list(bare), [], 0
    while i < len(said):
        one = said[i]
        two = said[i + 1] if i + 1 < len(said) else None
        if two is not None and _BETWEEN.fullmatch(query, one.end, two.start):
            ranges.append((one, two))
            i += 2
        else:
            times.append(one)
            i += 1
    zones = {
        _zone_text(m.groupdict())
        for pattern in _ZONES
        for m in pattern.finditer(query)
        if not clauses.against(m)
    }
    zones |= {s.key[4] for s in times if s.key[4]} | {
        s.key[4] for r in ranges for s in r if s.key[4]
    }
    return _Written(tuple(dates), tuple(times), tuple(ranges), frozenset(zones))


def date_spans(query: str) -> list[tuple[int, int]]:
    """Where ``query`` writes a date as people write it ("tomorrow", "Dec 10", "2026-12-10",
    "12월 10일"), in order, but for those its clause refuses."""
    return sorted({(s.start, s.end) for s in _written(query).dates})


def _zone_of(text: str) -> tzinfo | None:
    if text in ("Z", "z"):
        return UTC
    try:
        return zone_named(text)
    except ValueError:
        return None


def _fixed(moment: datetime) -> tzinfo:
    """``moment``'s offset as a fixed zone (a time of day carries an offset, not a zone)."""
    return timezone(moment.utcoffset() or timedelta(0))


def _today(zone: tzinfo | None) -> date | None:
    """Today in ``zone``; ``None`` where ``PlanRequest.now`` is so near the calendar's edge
    (9999-12-31, 0001-01-01) that the zone's day is past it."""
    try:
        return current_now().astimezone(zone or UTC).date()
    except OverflowError:
        return None


def _day(key: tuple[Any, ...], today: date) -> date | None:
    """The date ``key`` (:func:`_date_key`) names, read against ``today``; ``None`` where it
    is past the calendar's edge ("tomorrow" of 9999-12-31)."""
    try:
        return _day_of(key, today)
    except (OverflowError, ValueError):  # 31 February; the day after 9999-12-31
        return None


def _day_of(key: tuple[Any, ...], today: date) -> date | None:
    if key[0] == "in":
        return today + timedelta(days=key[1])
    if key[0] in ("months", "end"):  # "in a month", "end of March" (relative_dates)
        return span_day(key, today)
    if key[0] == "wd":
        ahead = (key[1] - today.weekday()) % 7
        if key[2] == "next":  # the first after today
            return today + timedelta(days=ahead or 7)
        if key[2] == "last":
            return today - timedelta(days=(today.weekday() - key[1]) % 7 or 7)
        if key[2] == "week after":  # 다음 주 월요일: the Monday of next week
            return today - timedelta(days=today.weekday()) + timedelta(days=7 + key[1])
        if key[2] == "week before":
            return today - timedelta(days=today.weekday()) + timedelta(days=key[1] - 7)
        if key[2] == "this" and "주" in key[3]:  # 이번 주: of this week
            return today - timedelta(days=today.weekday()) + timedelta(days=key[1])
        return today + timedelta(days=ahead)  # the first from today on
    _, year, month, day = key
    if year:
        return date(year, month, day)
    found = date(today.year, month, day)
    return found if found >= today else date(today.year + 1, month, day)


def _one(items: Iterable[Any]) -> Any:
    distinct = list(dict.fromkeys(items).keys())
    return distinct[0] if len(distinct) == 1 else None


def _zone(written: _Written) -> tuple[tzinfo | None, bool]:
    """The zone of the request's times, and whether it wrote more than one."""
    zones = [z for z in (_zone_of(text) for text in written.zones) if z is not None]
    if len(written.zones) > 1 or len(zones) < len(written.zones):
        # two zones, or one it cannot read ("Europe/Berln"): never PlanRequest.timezone's
        return None, True
    return (zones[0] if zones else _READING.get().zone), False


def _wall_time(
    written: _Written, name: str, pair: bool, *, dated: bool, query: str = ""
) -> tuple[Any, ...] | None:
    """The time of day for a parameter named ``name``: a range's side by the name, else the
    one time written (for a change's one time parameter, ``pair`` false). A range of two
    moments of one day (``dated``: a ``date-time``) whose end is not after its start ("from
    3pm until 1pm") fills neither side: its end was sent before its start; but a night's
    ("23:00-01:00", :func:`~.night_ranges.night`) ends the next day."""
    lower, upper = bool(LOWER_BOUND.search(name)), bool(UPPER_BOUND.search(name))
    if len(written.ranges) == 1 and not written.times:
        start, end = written.ranges[0]
        if pair and dated and end.key[1:4] <= start.key[1:4] and not _night(written, query):
            return None
        return end.key if upper and not lower else start.key if lower or not pair else None
    if written.ranges or pair:
        return None
    one: tuple[Any, ...] | None = _one(s.key[:4] for s in written.times)
    return one


def written_value(parameter: Parameter, query: str, *, pair: bool = False) -> str | None:
    """The value of a change's ``date`` / ``date-time`` / ``time`` ``parameter`` the request
    writes as people write it (module docstring), or ``None``; ``pair``: the change takes
    a start and an end, each filled only from a range."""
    fmt = value_schema(parameter.json_schema).get("format")
    if fmt not in _TIME_FORMATS:
        return None
    written = _written(query)
    zone, several = _zone(written)
    if several:
        return None
    today = _today(zone)
    if today is None:
        return None
    days = {_day(s.key, today) for s in written.dates}
    day = _one(days) if None not in days else None
    if fmt == "date":
        return day.isoformat() if day is not None else None
    wall = _wall_time(written, parameter.name, pair, dated=fmt == "date-time", query=query)
    if wall is None or (fmt == "date-time" and (day is None or zone is None)):
        return None
    clock = time(wall[1], wall[2], wall[3])
    if fmt == "time" and zone is None:
        return clock.isoformat()
    if fmt == "date-time" and _overnight(written, parameter.name, query):
        day = (day or today) + timedelta(days=1)  # "22:00-06:00" ends the next morning
    moment = datetime.combine(day or today, clock, zone)
    if not_once(moment):  # skipped or repeated where the clocks change: a guess
        return None
    if fmt == "time":
        return moment.timetz().replace(tzinfo=moment.tzinfo and _fixed(moment)).isoformat()
    return moment.isoformat().replace("+00:00", "Z")


def _overnight(written: _Written, name: str, query: str) -> bool:
    """Whether ``name`` is the end of a night's range (:func:`~.night_ranges.night`): its
    day is the next."""
    if not UPPER_BOUND.search(name) or LOWER_BOUND.search(name):
        return False
    start, end = written.ranges[0] if len(written.ranges) == 1 else (None, None)
    if start is None or end is None or end.key[1:4] > start.key[1:4]:
        return False
    return _night(written, query)


def _night(written: _Written, query: str) -> bool:
    """:func:`~.night_ranges.night` of the one range ``written``."""
    return not written.times and night(written.ranges, query)


def _timed(route: Route) -> list[Parameter]:
    fields = body_fields(route)
    taken = [*route.endpoint.parameters, *(fields.properties if fields is not None else ())]
    return [p for p in taken if value_schema(p.json_schema).get("format") in _TIME_FORMATS]


def _given(arguments: Any) -> list[str]:
    if isinstance(arguments, dict):
        return [text for value in arguments.values() for text in _given(value)]
    return [arguments] if isinstance(arguments, str) else []


def time_notes(query: str, routes: Sequence[Route], arguments: Sequence[Any]) -> list[str]:
    """What the plan says of the times it read for its changes (``routes``, each step's
    ``arguments``): how it read a relative date ("'tomorrow' read as 2026-12-06"), and that
    a wall-clock time naming no zone filled no ``date-time`` parameter, where none is set."""
    written = _written(query)
    slashes = slashed(query)  # "12/05": December 5 or 12 May, never read
    if not written.dates and not written.times and not written.ranges and not slashes:
        return []
    zone, several = _zone(written)
    today = _today(zone)
    if today is None:
        return []
    out: list[str] = []
    for route, given in zip(routes, arguments, strict=True):
        timed = _timed(route) if route.endpoint.effect is not Effect.READ else []
        if not timed:
            continue
        texts = _given(given)
        for said in written.dates:
            day = _day(said.key, today)
            relative = said.key[0] in ("in", "wd", "months", "end")
            if relative and day and any(day.isoformat() in t for t in texts):
                where = f"in {zone}" if zone is not None else "in UTC: the request names no zone"
                out.append(
                    f"read {query[said.start : said.end]!r} as {day.isoformat()} (today being "
                    f"{today.isoformat()} {where}); give another with Plan.with_arguments"
                )
        unread = [p.name for p in timed if not _holds(given, p.name)]
        if slashes and unread:
            out.append(
                f"{slashes[0]!r} is a date to some and another to others (month or day first): "
                f"{', '.join(unread)} left open; give it as YYYY-MM-DD with Plan.with_arguments"
            )
        open_ = [p.name for p in timed if value_schema(p.json_schema).get("format") == "date-time"]
        open_ = [name for name in open_ if not _holds(given, name)]
        wall = [*written.times, *(s for r in written.ranges for s in r)]
        out.extend(_not_once_notes(written, today, zone, open_))
        bare = _BARE_HOUR.search(query)  # "tomorrow at 9": 9 am or 9 pm
        if open_ and bare and not wall:
            out.append(
                f"{bare.group()!r} writes an hour alone (no am / pm, no minutes): "
                f"{', '.join(open_)} left open; give it with Plan.with_arguments, or write the "
                "time as 9am or 21:00"
            )
        if open_ and wall and zone is None and not several:
            spans = [*written.dates, *wall]
            start, end = min(s.start for s in spans), max(s.end for s in spans)
            said_text = (
                query[start:end] if end - start <= 80 else query[wall[0].start : wall[0].end]
            )
            out.append(
                f"{said_text!r} names no time zone; give {', '.join(open_)} with "
                "Plan.with_arguments, or the zone as PlanRequest(timezone=...)"
            )
    return out


def _holds(arguments: Any, name: str) -> bool:
    if not isinstance(arguments, dict):
        return False
    return name in arguments or any(_holds(v, name) for v in arguments.values())


def _not_once_notes(
    written: _Written, today: date, zone: tzinfo | None, open_: Sequence[str]
) -> list[str]:
    """:func:`~.clock_changes.clock_notes` of the one date and the times written."""
    days = {_day(s.key, today) for s in written.dates}
    day: date | None = _one(days) if None not in days else None
    walls = {s.key[1:4] for s in [*written.times, *(s for r in written.ranges for s in r)]}
    return clock_notes(day, walls, zone, open_)
