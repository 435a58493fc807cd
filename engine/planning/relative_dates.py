"""Dates written as a span from today or the end of a period, and dates written with slashes,
for :mod:`.written_times`.

Follow-ups of earlier trials: "create a task to call C-4 in 3 days", "... in two weeks", "...
by end of month" and "closing end of March" (trial 20) left a change's ``date`` missing, and
nothing was sent. Read here, against ``PlanRequest.now`` in ``PlanRequest.timezone`` as every
relative date is:

- a span: "in 3 days", "in two weeks", "in a month", "3 days from now" / "from today"
  (a month later is the same day of the month; where that month has no such day, as a month
  after January 31, nothing is read);
- the end of a period: "(by) (the) end of (the / this / next) month", "end of the year",
  "end of March" (the last day of the first March from today's month on); "end of the week"
  is a Friday to some and a Sunday to others: not read.

A date written with slashes and no year first ("12/05", "5/12/2026") is December 5 to some
and 12 May to others: no day is ever read from it, and the plan says so where a change's date
is left open (:func:`slashed`; :func:`~.written_times.time_notes`).
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Any

__all__ = ["SPANS", "slashed", "span_day", "span_key"]

_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNT = r"(?P<n>\d{1,3}|" + "|".join(_COUNTS) + r")"
_UNIT = r"(?P<unit>days?|weeks?|months?)"
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
#: The spans and ends of this module (see its docstring); each match's groups say which.
SPANS = (
    re.compile(rf"\bin\s++{_COUNT}\s++{_UNIT}\b(?!\s++(?:ago|before|after)\b)", re.IGNORECASE),
    re.compile(rf"\b{_COUNT}\s++{_UNIT}\s++from\s++(?:now|today)\b", re.IGNORECASE),
    re.compile(
        r"\bend\s++of\s++(?:(?P<which>the|this|next)\s++)?(?P<period>month|year)\b"
        rf"|\bend\s++of\s++(?P<named>{'|'.join(m[:3] + '(?:' + m[3:] + ')?' for m in _MONTHS)})"
        r"\b(?!\s*+\d)",
        re.IGNORECASE,
    ),
)
#: A date with slashes, its year not first: "12/05", "5/12/2026" (a year first is ISO's order).
_SLASHED = re.compile(r"(?<![\w/.-])(?:[0-3]?\d)/(?:[0-3]?\d)(?:/(?:\d{4}|\d{2}))?(?![\w/])")


def span_key(m: re.Match[str]) -> tuple[Any, ...]:
    """What a match of :data:`SPANS` says, before it is read against today: ``("in", days,
    text)``, ``("months", n, text)`` or ``("end", period, which, month)``."""
    found = m.groupdict()
    if found.get("n"):
        word = found["n"].lower()
        count = int(word) if word.isdigit() else _COUNTS[word]
        unit = found["unit"].lower()
        if unit.startswith("month"):
            return ("months", count, m.group())
        return ("in", count * (7 if unit.startswith("week") else 1), m.group())
    if found.get("named"):
        month = [name[:3] for name in _MONTHS].index(found["named"][:3].lower()) + 1
        return ("end", "named", "", month)
    return ("end", found["period"].lower(), (found.get("which") or "").lower(), 0)


def span_day(key: tuple[Any, ...], today: date) -> date | None:
    """The date a key of :func:`span_key` (but ``"in"``, read as other relative days) names,
    read against ``today``; ``None`` for a month later that has no such day."""
    if key[0] == "months":
        month = today.month - 1 + key[1]
        year, month = today.year + month // 12, month % 12 + 1
        if today.day > calendar.monthrange(year, month)[1]:
            return None  # a month after January 31: no day is read
        return date(year, month, today.day)
    _, period, which, named = key
    if period == "year":
        return date(today.year + (which == "next"), 12, 31)
    if period == "month":
        month = today.month - 1 + (which == "next")
        year, month = today.year + month // 12, month % 12 + 1
        return date(year, month, calendar.monthrange(year, month)[1])
    year = today.year if named >= today.month else today.year + 1
    return date(year, named, calendar.monthrange(year, named)[1])


def slashed(query: str) -> list[str]:
    """The dates ``query`` writes with slashes, its year not first ("12/05"): none is read."""
    return [m.group() for m in _SLASHED.finditer(query)]
