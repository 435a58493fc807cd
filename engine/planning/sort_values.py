"""A list sorted so that its first entry is the one a superlative names (trial V2).

"Close the oldest ticket" left the ticket's id open, the list's first entry being whichever
the server lists first; where ``list_tickets`` takes ``sort`` (enum ``created_at`` ...) and
``order`` (enum ``asc`` / ``desc``), the list can say which is first. Here a read's sort
parameter (``sort``, ``sort_by``, ``order_by`` ...) takes the creation field its enum names
(or its description, with no enum), its direction parameter (an enum of asc/desc or
ascending/descending) the direction: ascending for "the oldest" or "the earliest", descending
for "the newest", "the latest" or "the most recent"; and its page-size parameter (``limit``
...) 1, where the request counts no other and names one ("the latest tickets" are sorted,
not cut to one). All three must be there: a list with no direction
parameter sorts in an order its document does not say, so nothing is filled ("the oldest
project" by ``sort_by`` alone stays open). A change then takes the first entry of a list so
sorted (:func:`~schemarouter.planning.chained_needs.pick`, ``"sorted"``); "the second oldest",
"the oldest tickets" or "the highest priority" (an enum sorts by its text) take none. Korean
says it "가장 오래된 티켓" / "제일 최근 주문" (trial X2), read as strictly: "두 번째로 오래된",
"가장 오래된 티켓들" and "우선순위가 가장 높은" take none either."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.planning.page_size import COUNT_NAMES
from schemarouter.planning.page_size import flat_name as _flat
from schemarouter.retrieval.identifiers import is_plural

__all__ = [
    "KOREAN_SUPERLATIVE",
    "ORDER_NAMES",
    "SUPERLATIVE",
    "korean_superlative",
    "sort_value",
    "sorted_as_asked",
]

#: A superlative a creation time sorts by, and its direction.
SUPERLATIVE = re.compile(
    r"\b(?:(oldest|earliest)|(newest|latest|most\s+recent|most\s+recently\s+created))\b", re.I
)
_ORDINAL = re.compile(
    r"\b(?:second|third|fourth|fifth|\d+(?:st|nd|rd|th)?)\s+(?:oldest|earliest|newest|latest|most)\b",
    re.I,
)
#: Korean's: "가장 / 제일 오래된" (oldest), "가장 / 제일 최근(의)", "최신(의)", "새로운" (newest),
#: "최근에 만들어진" (most recently created), and an ordinal before it ("두 번째로 오래된").
KOREAN_SUPERLATIVE = re.compile(
    r"(?:가장|제일)\s*(?:(오래된|먼저\s*(?:만들어진|생성된))|"
    r"(최근(?:에\s*(?:만들어진|생성된)|의)?|최신(?:의)?|새로운|나중에\s*(?:만들어진|생성된)))(?=\s)"
)
_ORDINAL_KO = re.compile(r"(?:[두세네]|다섯|\d+)\s?번째")
#: What follows a Korean superlative's thing: its particle as the verb's object or subject
#: ("티켓을 닫아줘"), or, with none, the verb ("주문 취소해줘"); "의" ("가장 오래된 프로젝트의
#: 티켓") makes it another thing's.
_KO_OBJECT = re.compile(r"[가-힣A-Za-z]+(?:을|를|은|는|이|가)$")
_KO_VERB = re.compile(r"[가-힣]+(?:줘|주세요|줄래|해|해요|하세요|합니다|하라|해라|할래)$")
_SORTS = frozenset({"sort", "sortby", "orderby", "sortfield", "sortkey", "sorting"})
_DIRECTIONS = frozenset({"order", "direction", "sortorder", "sortdir", "sortdirection", "dir"})
#: The names of the parameters that order a list: picking out no entry (:mod:`.chained_needs`).
ORDER_NAMES = _SORTS | _DIRECTIONS
_LIMITS = COUNT_NAMES  # a page size or a limit takes the 1
_CREATED = re.compile(r"^(?:created|creation|datecreated)(?:at|on|date|time|timestamp)?$")


def _created(parameter: Parameter) -> str | None:
    """The value of a sort ``parameter`` that sorts by creation time."""
    schema = parameter.json_schema
    choices = schema.get("enum") or schema.get("items", {}).get("enum")
    if choices is None:
        words = re.findall(r"[A-Za-z_]+", parameter.description or "")
        choices = [w for w in words if _CREATED.match(_flat(w)) and _flat(w) != w.lower()]
    found = [c for c in choices if isinstance(c, str) and _CREATED.match(_flat(c))]
    return found[0] if len(found) == 1 else None


def _direction(parameter: Parameter, ascending: bool) -> str | None:
    """The value of a direction ``parameter`` (its enum) for ``ascending`` or not."""
    for choice in parameter.json_schema.get("enum") or ():
        if isinstance(choice, str) and choice.lower() in (
            ("asc", "ascending") if ascending else ("desc", "descending")
        ):
            return choice
    return None


def _asked(query: str) -> bool | None:
    """Whether ``query`` asks for the oldest (``True``) or newest (``False``) one; ``None``
    where it names no superlative, names it twice, or with an ordinal ("the second oldest");
    a Korean one only where it is its verb's thing's (:func:`korean_superlative`)."""
    found = {m.group(1) is not None for m in SUPERLATIVE.finditer(query)}
    korean = list(KOREAN_SUPERLATIVE.finditer(query))
    found |= {m.group(1) is not None for m in korean}
    if len(found) != 1 or _ORDINAL.search(query) or _ORDINAL_KO.search(query):
        return None
    if korean and not korean_superlative(query):
        return None
    return next(iter(found))


def korean_superlative(query: str) -> bool:
    """Whether ``query``'s one Korean superlative is of the thing its verb acts on: the word
    after it carries the object's or subject's particle ("가장 오래된 티켓을 닫아줘"), or none
    and the verb follows ("제일 최근 주문 취소해줘"); not one of several ("티켓들을"), nor of
    another thing ("가장 오래된 프로젝트의 티켓", "가장 오래된 열린 티켓": read no further)."""
    found = list(KOREAN_SUPERLATIVE.finditer(query))
    if len(found) != 1:
        return False
    after = query[found[0].end() :].split()
    if not after or re.search(r"들(?:을|를|은|는|이|가)?$", after[0]):
        return False
    return bool(_KO_OBJECT.search(after[0]) or (len(after) > 1 and _KO_VERB.search(after[1])))


def _plan(parameters: tuple[Parameter, ...], query: str) -> dict[str, Any]:
    """The sort, direction and page size the request's superlative fills (all or none)."""
    ascending = _asked(query)
    if ascending is None:
        return {}
    by = {_flat(p.name): p for p in parameters}
    sorts = [(p, v) for n, p in by.items() if n in _SORTS and (v := _created(p)) is not None]
    ways = [(p, v) for n, p in by.items() if n in _DIRECTIONS and (v := _direction(p, ascending))]
    limits = [p for n, p in by.items() if n in _LIMITS]
    if len(sorts) != 1 or len(ways) != 1 or not limits:
        return {}
    wanted = {sorts[0][0].name: sorts[0][1], ways[0][0].name: ways[0][1]}
    return wanted if _plural(query) else {**wanted, limits[0].name: 1}


def _plural(query: str) -> bool:
    """Whether the superlative of ``query`` is of several: "the latest tickets" (sorted, not
    cut to one entry), not "the latest ticket" or "the latest open ticket"."""
    found = SUPERLATIVE.search(query)
    if found is None and KOREAN_SUPERLATIVE.search(query):
        return False  # :func:`korean_superlative` takes one thing only
    after = re.findall(r"[A-Za-z]+", query[found.end() :] if found else "")[:3]
    return any(is_plural(w) for w in after)


def sort_value(
    parameter: Parameter, parameters: tuple[Parameter, ...], query: str, read: bool
) -> Any:
    """The value a read's (``read``) ``parameter`` takes for the request's superlative (see the
    module docstring); ``None`` where it takes none."""
    return _plan(parameters, query).get(parameter.name) if read else None


def sorted_as_asked(arguments: Mapping[str, Any], query: str) -> bool:
    """Whether a list's ``arguments`` sort it so that its one entry is the one the request's
    superlative names (by creation time, in its direction, one entry a page)."""
    ascending = _asked(query)
    if ascending is None:
        return False
    given = {_flat(name): value for name, value in arguments.items()}
    directions = ("asc", "ascending") if ascending else ("desc", "descending")
    return (
        any(n in _SORTS and _CREATED.match(_flat(str(v))) for n, v in given.items())
        and any(n in _DIRECTIONS and str(v).lower() in directions for n, v in given.items())
        and any(n in _LIMITS and v == 1 for n, v in given.items())
    )
