"""How many entries a request asks for: "5 per page" fills a page-size parameter
(``per_page``, ``page_size``, ``limit`` ...), "the first 10 orders" or "top 3" a limit
(``limit``, ``top``, ``max_results`` ... or the page size, whose first page holds them).

Only an integer or number parameter of one of these names takes the count, and only where
the request writes it beside its words (trial X3: "show open tickets, 5 per page" and "the
latest 10 orders" left ``per_page`` and ``limit`` open); a count the parameter's schema
refuses (above its ``maximum``) is not filled."""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.retrieval.clauses import clauses_of

__all__ = ["COUNT_NAMES", "count_value", "flat_name"]

#: A count is written whole: "-5 per page" or "page size of 10,000" gave 5 and 10 (trial Z1).
_PER_PAGE = re.compile(
    r"(?<![\d.,-])\b(\d{1,4})\s*(?:[^\W\d_]+\s+)?(?:per|a|each)\s+page\b|"
    r"\bpage\s+size\s+(?:of\s+)?(\d{1,4})\b(?![.,]\d)",
    re.IGNORECASE,
)
#: "the first 10", "top 3", "latest 5", but not a span of time ("the last 30 days").
_FIRST = re.compile(
    r"\b(?:first|top|last|latest|newest|oldest|(?:most\s+)?recent)\s+(\d{1,4})\b"
    r"(?!\s*(?:[.,:/-]\d|(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|"
    r"years?|quarters?|[smhdwy])\b))",
    re.IGNORECASE,
)
#: Names (lowercase, without ``_`` and ``-``) of a page's size, and of a count of results.
_PAGE_NAMES = frozenset({"perpage", "pagesize", "pagelen", "pagelength", "resultsperpage"})
_LIMIT_NAMES = frozenset(
    {"limit", "top", "first", "maxresults", "maxitems", "maxrecords", "numresults", "count"}
)
#: Both: a count of entries, never a filter that picks one (:mod:`.chained_needs` reads them so).
COUNT_NAMES = _PAGE_NAMES | _LIMIT_NAMES


def flat_name(name: str) -> str:
    """A parameter's name as the planning's name lists hold it: lower-case letters only
    (``per_page``, ``perPage`` and ``per-page`` are ``perpage``)."""
    return re.sub(r"[^a-z]", "", name.lower())


def _name(parameter: Parameter) -> str:
    return flat_name(parameter.name)


def count_value(parameter: Parameter, query: str, parameters: tuple[Parameter, ...]) -> Any:
    """The count ``query`` asks for that ``parameter`` takes (see the module docstring);
    ``None`` where it writes none, or where the route has a page size and a limit both and
    this one is not the one meant."""
    kinds = parameter.json_schema.get("type")
    if kinds not in ("integer", "number"):
        return None
    name = _name(parameter)
    names = {_name(p) for p in parameters}
    patterns: tuple[re.Pattern[str], ...]
    if name in _PAGE_NAMES:
        patterns = (_PER_PAGE, _FIRST) if not names & _LIMIT_NAMES else (_PER_PAGE,)
    elif name in _LIMIT_NAMES:
        patterns = (_FIRST,) + ((_PER_PAGE,) if not names & _PAGE_NAMES else ())
    else:
        return None
    clauses = clauses_of(query)
    for pattern in patterns:
        for match in pattern.finditer(query):
            if clauses.against(match):
                continue
            count = int(next(g for g in match.groups() if g is not None))
            if count > 0 and valid(parameter, count):
                return count
    return None
