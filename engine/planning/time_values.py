"""A ``date-time`` parameter's value from the request: an RFC 3339 date-time written in it
("opened after 2026-12-01T00:00:00Z"), or a span of time back from now that bounds the
parameter by its name ("tickets opened 45 minutes ago", "in the last 2 hours", "over the past
3 days": ``opened_after`` = now less that span, in UTC).

Trial Z3: each of these left ``opened_after`` open, the list answering every ticket. A span
fills only a parameter named as the lower bound of a time (``*_after``, ``since``,
``*_from``, ``start_*``, ``*_min``, ``*_gte``), or the upper one for "more than 2 hours ago" /
"older than 3 days" (``*_before``, ``until``, ``*_to``, ``end_*``, ``*_max``, ``*_lte``); a
value its clause says not to use is not filled, nor one the parameter's schema refuses."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.planning.written_times import (
    LOWER_BOUND,
    UPPER_BOUND,
    current_now,
    written_value,
)
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["time_value"]

#: An RFC 3339 date-time: a date, ``T`` (or a space), a time and an offset or ``Z``.
_DATE_TIME = re.compile(
    r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt ](?:[01]\d|2[0-3]):[0-5]\d"
    r"(?::[0-5]\d(?:\.\d{1,9})?)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)(?![\w:])"
)
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_UNIT = r"(?P<unit>sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|hours?|days?|weeks?)\b"
_AMOUNT = r"(?P<n>\d{1,4}|an?|one)\s*"
#: A span back from now that starts the window: "45 minutes ago", "in the last 2 hours".
_SINCE = (
    re.compile(rf"(?<!than\s)(?<!over\s)\b{_AMOUNT}{_UNIT}\s+ago\b", re.IGNORECASE),
    re.compile(rf"\b(?:last|past|previous)\s+{_AMOUNT}{_UNIT}", re.IGNORECASE),
)
#: A span back from now that ends the window: "more than 2 hours ago", "older than 3 days".
_BEFORE = (
    re.compile(rf"\b(?:(?:more|longer)\s+than|over)\s+{_AMOUNT}{_UNIT}\s+ago\b", re.IGNORECASE),
    re.compile(rf"\bolder\s+than\s+{_AMOUNT}{_UNIT}", re.IGNORECASE),
)
#: The word right before a date-time that makes it a lower or an upper bound (found once
#: per request: where each ends is where the date-time it bounds starts).
_AFTER = re.compile(r"\b(?:after|since|from|starting(?:\s+at)?)\s*", re.IGNORECASE)
_UNTIL = re.compile(r"\b(?:before|until|till|by|to|up\s+to)\s*", re.IGNORECASE)


def _span(match: re.Match[str]) -> timedelta:
    n = match.group("n").lower()
    count = 1 if n in ("a", "an", "one") else int(n)
    unit = match.group("unit").lower()
    key = next(k for k in _UNITS if unit.startswith(k[:3]) or (k == "hour" and unit[0] == "h"))
    return timedelta(seconds=count * _UNITS[key])


def _stamp(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def time_value(
    parameter: Parameter,
    schema: Mapping[str, Any],
    query: str,
    now: Callable[[], datetime] = current_now,
    *,
    change: bool = False,
    pair: bool = False,
) -> str | None:
    """The value of ``parameter`` (``schema``: its value schema, ``format: date-time``) the
    request writes: its one date-time, else a span back from now that bounds it by its name.
    A change's one date-time parameter (``change``) bounds no search: its ``start`` is when
    the thing it makes or moves starts, and takes the one date-time written, whatever word is
    before it ("Reschedule appointment A-1 to 2026-12-10T09:00:00Z"), never a span (trial Z3:
    read as a lower bound, it took only a date-time after "after", "since" or "from"). Where
    a change writes none, its date and time as people write them ("tomorrow at 6am KST"; a
    change taking a start and an end, ``pair``: a range, "Friday 14:00-15:00") fill it
    (:mod:`.written_times`)."""
    if schema.get("format") != "date-time":
        return None
    clauses = clauses_of(query)
    if change:
        ones = {m.group() for m in _DATE_TIME.finditer(query) if not clauses.against(m)}
        text = next(iter(ones)) if len(ones) == 1 else None
        text = written_value(parameter, query) if not ones else text
        return text if text is not None and valid(parameter, text) else None
    lower, upper = LOWER_BOUND.search(parameter.name), UPPER_BOUND.search(parameter.name)
    side = _AFTER if lower and not upper else _UNTIL if upper and not lower else None
    dated = [m for m in _DATE_TIME.finditer(query) if not clauses.against(m)]
    # a bound takes the one its word gives: "after 2026-12-01T00:00:00Z" (each word read
    # once, not the request again before each date-time: 4,000 of them took 7.8 s)
    bounded = {m.end() for m in side.finditer(query)} if side is not None and dated else set()
    written = {m.group() for m in dated if side is None or m.start() in bounded}
    if len(written) == 1:
        text = next(iter(written))
        return text if valid(parameter, text) else None
    if dated:
        return None
    if pair:  # "book room R-2 for Friday 14:00-15:00": start and end by their names
        text = written_value(parameter, query, pair=True)
        return text if text is not None and valid(parameter, text) else None
    if lower and not upper:
        patterns = _SINCE
    elif upper and not lower:
        patterns = _BEFORE
    else:
        return None
    found = [m for pattern in patterns for m in pattern.finditer(query)]
    spans = {_span(m) for m in found if not clauses.against(m)}
    if len(spans) != 1:
        return None
    text = _stamp(now() - next(iter(spans)))
    return text if valid(parameter, text) else None
