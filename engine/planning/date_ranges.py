"""Calendar dates a request writes for a route's ``date`` parameters: a range's two ends, a
date with a Korean particle on it, and a change's one date by its day word.

Trial 19 (a Seoul shop's sales report, ``get_sales_report(start_date, end_date)``, and its
coupons, ``create_coupon(expires_on, ...)``):

- "11월 매출 리포트 보여줘 2026-11-01 ~ 2026-11-30" bound the first date to both parameters,
  then planned the report again for "the other id", sending ``(2026-11-01, 2026-11-01)`` and
  ``(2026-11-30, 2026-11-01)``. :func:`date_range`: where a route takes one date that starts
  a span and one that ends it (by name: ``start_date`` / ``end_date``, ``from`` / ``to``,
  ``since`` / ``until``, ``*_after`` / ``*_before``) and the request writes two dates joined as
  a range ("A ~ B", "A - B", "A to B", "from A to B", "between A and B", "A부터 B까지", "A에서
  B"), the earlier-written is the start and the later the end; neither where the end is
  before the start, or more dates, or two not joined so, are written (left open, not the first
  date for both).
- "sales report 2026-12-01부터 2026-12-04까지" and "2026-12-31까지" read no date at all: a
  Korean particle written onto it (부터, 까지, 에, 로) hid it from the word boundary the
  analysis reads dates by. :func:`written_dates` reads them with one.
- "Create a task 'pay rent' in project P-1 due tomorrow" (a task's ``start_date`` and
  ``due_date``) sent both as tomorrow, as did "due 2026-12-10" and "due Dec 10": the one date
  fills every ``date`` parameter by its kind. :func:`one_date_named` keeps it in the one
  the words right before it name ("due", "starting", "ends"), else in none.
- "내일까지 유효한 10% 쿠폰 만들어줘" left ``expires_on`` open: a day word with a particle on it
  is read by :mod:`.written_times` (in ``PlanRequest.timezone``, against ``PlanRequest.now``),
  which reads every date a change writes as people write it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.named_values import valid
from schemarouter.planning.refusals import unquoted
from schemarouter.planning.written_times import LOWER_BOUND, UPPER_BOUND, date_spans
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["date_range", "one_date_named", "written_dates"]

#: A calendar date, a Korean particle (any Hangul) allowed right after it.
_DATE = re.compile(
    r"(?<![\w-])((?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))(?![0-9A-Za-z_:]|-\d)"
)
#: What joins two dates into a range, between them (after the first's particle, if any).
#: Possessive: a long run of blanks that joins nothing is read once, not back and forth (as
#: first written, 3,000 blanks and a word between two dates took 28 s, 6,000 took 191 s).
_JOINED = re.compile(
    r"\s*+(?:(?:부터|에서)\s*+)?(?:(?:~|〜|–|—|-|to|through|thru|until|till|and)\s*+)?",
    re.IGNORECASE,
)


def _takes_date(parameter: Parameter) -> bool:
    return value_schema(parameter.json_schema).get("format") == "date"


def written_dates(query: str) -> list[re.Match[str]]:
    """The calendar dates ``query`` writes outside quotes, in order, but for those its clause
    says not to use ("not 2026-12-01"); a Korean particle may follow each."""
    text = unquoted(query)
    clauses = clauses_of(text)
    return [m for m in _DATE.finditer(text) if not clauses.against(m)]


def date_range(route: Route, query: str) -> dict[str, str | None]:
    """The start and end of the one range of dates ``query`` writes, by the names of
    ``route``'s one start and one end ``date`` parameter (module docstring); both ``None``
    (to leave open) where the request writes several dates that are no such range (a date
    bound to both by its kind would send a one-day span, then the other date as another
    call's start); ``{}`` where the route takes no such pair or one date or none is written."""
    dated = [p for p in route.endpoint.parameters if _takes_date(p)]
    starts = [p for p in dated if LOWER_BOUND.search(p.name) and not UPPER_BOUND.search(p.name)]
    ends = [p for p in dated if UPPER_BOUND.search(p.name) and not LOWER_BOUND.search(p.name)]
    if len(starts) != 1 or len(ends) != 1:
        return {}
    found = written_dates(query)
    if len({m.group(1) for m in found}) < 2:
        return {}
    unclear: dict[str, str | None] = {starts[0].name: None, ends[0].name: None}
    if len(found) != 2:
        return unclear
    first, second = found
    between = unquoted(query)[first.end() : second.start()]
    if not between.strip() or not _JOINED.fullmatch(between):
        return unclear
    start, end = first.group(1), second.group(1)
    if end < start or not (valid(starts[0], start) and valid(ends[0], end)):
        return unclear
    return {starts[0].name: start, ends[0].name: end}


#: The words of a date parameter's name that say nothing of which date it is.
_NO_SIDE = frozenset(("date", "day", "on", "at", "of", "the", "time", "dt"))


def _name_words(name: str) -> set[str]:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    return {w[:4] for w in words if len(w) > 2 and w not in _NO_SIDE}


def one_date_named(parameters: Sequence[Parameter], given: dict[str, Any], query: str) -> None:
    """Leaves the one date a change's request writes once in the one of its ``date``
    ``parameters`` (filled in ``given``) that the three words before it name ("due tomorrow":
    ``due_date``, "starting Dec 10": ``start_date``); where several hold it by their kind
    and the words name none of them, or several, none keeps it (module docstring)."""
    dated = [p.name for p in parameters if _takes_date(p) and isinstance(given.get(p.name), str)]
    spans = date_spans(query)
    if len(dated) < 2 or len({given[n] for n in dated}) != 1 or len(spans) != 1:
        return
    before = re.findall(r"[^\W\d_]+", query[max(0, spans[0][0] - 60) : spans[0][0]])[-3:]
    said = {w.lower()[:4] for w in before if len(w) > 2}
    named = [n for n in dated if _name_words(n) & said]
    for name in dated:
        if len(named) != 1 or name != named[0]:
            del given[name]
