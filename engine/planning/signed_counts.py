"""A change's signed quantity: the count a request adds to, or takes from, a stock.

A route that adjusts a count up or down takes one signed integer (``adjust_stock(sku,
quantity_delta)``, "더할 수량 (+), 뺄 수량은 음수 (-)"), and no rule read one: "SKU-77 재고 20개
추가" and "Add 20 units to stock of SKU-77" left it open, and "SKU-12 재고 5개 빼줘" has to
send -5, never 5 (trial 19, a Seoul shop's stdio MCP server).

:func:`signed_count` fills such a parameter of a change (an integer named as a difference,
``*_delta``, ``delta``, ``adjustment``, ``change_by``, ``increment``, or one whose description
says a negative value takes away: "negative to remove", "음수", "(-)", "+/-") with the one
count the request writes: a number with a counting word ("20개", "5 units", "3 pcs", "2박스")
or with its own sign ("+20", "-5"). Its sign is the one written, else the request's one
direction: adding words ("add", "increase", "restock", 추가, 더해, 늘려, 입고, 넣어) give the
count as it is, taking words ("remove", "subtract", "deduct", "decrease", "take", 빼, 줄여,
차감, 출고, 감소) its negative; none where both or neither are written, where two counts are
written, or where the clause says not to use the count. A sum of money ("5,000원") is no count.
Where no count is written so, a bare number between a taking or adding verb and the word
that says which way is one ("take 2 off the stock of PED-0107" sends -2, "add 3 to the stock"
3: trial 22, whose ``adjust_stock(sku, delta)`` was passed over for a read), where what
follows names the stock, a count of it or a code (:data:`_STOCK_NAMED`; "take 2 off the
price" is no count).
A route that takes such a count does the change asked by those words (:func:`adjusts_count`),
whatever else they name ("빼" deletes an entry, "add" creates one): planning puts it before a
read, or a create of another thing, ranked above it.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.planning.named_values import valid
from schemarouter.planning.refusals import unquoted
from schemarouter.retrieval.clauses import Clauses, clauses_of
from schemarouter.retrieval.values import value_schema

__all__ = ["adjusts_count", "counted_verb", "counts_at", "signed_count"]

_DIFFERENCE_NAME = re.compile(
    r"(?:^|_)(?:delta|adjustment|increment|change_by|diff|difference)(?:_|$)", re.IGNORECASE
)
_NEGATIVE_SAID = re.compile(
    r"\bnegative\b|\bminus\b|음수|\(\s*-\s*\)|\+\s*/\s*-|±|subtracts?\b|removes?\b", re.IGNORECASE
)
#: A count: a number and a counting word after it, or a number with its own sign.
_COUNT = re.compile(
    r"(?<![\w.,+-])(?:([+-])\s?)?(\d{1,6})(?![\d.,])\s*"
    r"(개|장|벌|박스|상자|병|권|켤레|팩|units?\b|pcs\b|pieces?\b|items?\b|ea\b)?",
    re.IGNORECASE,
)
_ADDS = re.compile(
    r"\b(?:add(?:s|ed|ing)?|increase[sd]?|increasing|restock(?:ed|ing)?|top\s+up)\b"
    r"|추가|더해|더하|늘려|늘리|입고|넣어|채워",
    re.IGNORECASE,
)
_TAKES = re.compile(
    r"\b(?:remove[sd]?|removing|subtract(?:s|ed|ing)?|deduct(?:s|ed|ing)?|decrease[sd]?|"
    r"decreasing|takes?\s+(?:[^\W_]+\s+){0,3}?(?:out|off|away)|write\s+off)\b"
    r"|빼|줄여|줄이|차감|출고|감소",
    re.IGNORECASE,
)


#: A bare number between a verb and the word that says which way (trial 22: "take 2 off the
#: stock of PED-0107", "add 3 to the stock", "remove 4 from"): the count, signed by the verb.
_VERB_COUNT = re.compile(
    r"\b(?:(?:take|knock|remove|subtract|deduct)\s+(\d{1,6})\s+(?:off|out|away|from)"
    r"|(?:add|put)\s+(\d{1,6})\s+(?:to|into|in|back))\b",
    re.IGNORECASE,
)


def counts_at(text: str, start: int) -> bool:
    """Whether a verb and its count open at ``start`` ("take 2 off", "add 3 to"): the verb is
    no thing's word, though the analysis reads the number after it as an id."""
    return _VERB_COUNT.match(text, start) is not None


def counted_verb(text: str) -> str | None:
    """The verb of the one verb and count of ``text`` ("take" of "take 2 off the stock")."""
    found = list(_VERB_COUNT.finditer(text))
    return found[0].group(0).split()[0].lower() if len(found) == 1 else None


def _verb_count(text: str, clauses: Clauses) -> int | None:
    """The one count :data:`_VERB_COUNT` reads, signed, where the request writes one."""
    found = list(_VERB_COUNT.finditer(text))
    if len(found) != 1 or clauses.against(found[0]):
        return None
    match = found[0]
    if not _STOCK_NAMED.match(text, match.end()):
        return None  # "take 2 off the price of PED-0107": a price, no count of the stock
    return -int(match.group(1)) if match.group(1) else int(match.group(2))


#: What a verb's count is taken off or added to (the twentieth review: "take 2 off the price
#: of PED-0107" sent ``adjust_stock(delta=-2)``): the stock or a count of it, a code, or "it"
#: / "them"; nothing written after the word that says which way is the stock too.
_STOCK_NAMED = re.compile(
    r"\s*(?:$|[,.;:!?]|(?:(?:the|its|their|our|this|that)\s+)?"
    r"(?:stock|inventory|quantity|qty|units?|count|on[\s-]hand|shelf|shelves|it|them)\b"
    r"|[A-Za-z]{1,12}[-_][0-9]{1,12}(?![\w-]))",
    re.IGNORECASE,
)


def _signed(parameter: Parameter) -> bool:
    """Whether ``parameter`` is an integer that takes a difference, up or down."""
    if value_schema(parameter.json_schema).get("type") != "integer":
        return False
    return bool(
        _DIFFERENCE_NAME.search(parameter.name) or _NEGATIVE_SAID.search(parameter.description)
    )


def signed_count(parameter: Parameter, query: str) -> int | None:
    """The signed count the request adds or takes away, for ``parameter`` where it takes one
    (module docstring); else ``None``."""
    if not _signed(parameter):
        return None
    text = unquoted(query)
    clauses = clauses_of(text)
    counts = [
        m
        for m in _COUNT.finditer(text)
        if (m.group(1) or m.group(3)) and not clauses.against(m) and not _money(text, m)
    ]
    if not counts and (said := _verb_count(text, clauses)) is not None:
        return said if valid(parameter, said) else None
    if len(counts) != 1:
        return None
    count = counts[0]
    number = int(count.group(2))
    if count.group(1):
        value = -number if count.group(1) == "-" else number
    else:
        adds, takes = _direction(text, count)
        if adds == takes:
            return None
        value = number if adds else -number
    return value if valid(parameter, value) else None


def adjusts_count(route: Route, query: str) -> bool:
    """Whether ``route``, a change, does what ``query`` asks by adding or taking away a count:
    it takes a signed count (:func:`signed_count`) that the request fills ("SKU-12 재고 5개
    빼줘" asks ``adjust_stock``, though 빼 deletes where it takes an entry away)."""
    if route.endpoint.effect is Effect.READ:
        return False
    return any(signed_count(p, query) is not None for p in route.endpoint.parameters)


def _direction(text: str, count: re.Match[str]) -> tuple[bool, bool]:
    """Whether the request adds, and whether it takes away, ``count``: read in the count's own
    clause (between the marks , ; : . ! ? around it) where that writes either, else in the
    whole request. "Take 2 units off the stock of SKU-12, they were added by mistake" sent
    +2: "added" of the clause that tells why was the one direction read (and "take 2 units
    off" none, its count between the words)."""
    start = max((text.rfind(mark, 0, count.start()) for mark in ",;:.!?\n"), default=-1) + 1
    ends = [at for mark in ",;:.!?\n" if (at := text.find(mark, count.end())) >= 0]
    clause = text[start : min(ends, default=len(text))]
    adds, takes = bool(_ADDS.search(clause)), bool(_TAKES.search(clause))
    if adds or takes:
        return adds, takes
    return bool(_ADDS.search(text)), bool(_TAKES.search(text))


def _money(text: str, count: re.Match[str]) -> bool:
    """Whether the number of ``count`` is a sum of money ("5,000원", "₩500", "$5")."""
    before = text[max(0, count.start() - 1) : count.start()]
    return before in {"₩", "$", "€", "£", "¥"} or text[count.end(2) :].lstrip().startswith("원")
