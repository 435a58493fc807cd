"""An OPTIMADE ``filter`` built from what a request says of the structures it wants.

"band gap of GaN" on an OPTIMADE ``/structures`` route fetched the service's first page of
every structure (trial O): nothing turned the formula into the filter the route takes. Here a
request's chemical formulas, the elements it asks structures to contain ("containing Si and
O") and its bound on their number ("at most 3 elements", "ternary") become one filter:

- a formula -> ``chemical_formula_reduced="FeLiO4P"`` (OPTIMADE's reduced form: elements in
  alphabetical order, counts divided by their greatest common divisor), or, where the route
  does not let a filter name that property, ``elements HAS ALL "Fe","Li","O","P" AND
  nelements=4``; several formulas are joined with ``OR``;
- elements to contain -> ``elements HAS ALL "O","Si"`` (where the request names no formula,
  which names its elements: the two would contradict or repeat each other); in Korean the
  elements come before the verb, "Si와 O를 포함하는" (before, "Si" was read as the formula
  of pure silicon: ``chemical_formula_reduced="Si"``);
- a number of elements -> ``nelements<=3`` (``at most``, ``up to``, ``no more than``;
  ``at least``, ``more than``, ``fewer than``, ``exactly``; ``binary`` / ``ternary`` /
  ``quaternary``; in Korean "원소 2개로 이루어진", "원소가 세 개 이하인", "최대 3개 원소",
  "삼원계").

A formula found as a piece of one the request writes (a hydrate, "CuSO4·5H2O"; nested
brackets, "Ca3((PO4)2)3") filters for nothing: the piece is another material.

Only what the route lets a filter name is used (the parameter's
:data:`~schemarouter.safety.arguments.FILTER_PROPERTIES_KEY`; a catalog route without it:
the three properties every OPTIMADE service must make queryable), and every value in it is an
element symbol or a number read from the request: no text of the request reaches the filter,
so none can change what it asks. A filter the request writes itself (``filter: ...``) wins
(:func:`~schemarouter.planning.arguments.fill_arguments` reads it first).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.formulas import is_element
from schemarouter.safety.arguments import FILTER_PROPERTIES_KEY, FILTER_SEMANTIC_ID

__all__ = ["FILTER_SEMANTIC_ID", "optimade_filter", "reduced_formula"]

#: The properties an OPTIMADE structures endpoint must let a filter query (specification
#: v1, "MUST be queryable"): what a route that does not list its own is taken to allow.
_STANDARD = ("chemical_formula_reduced", "elements", "nelements")

_SYMBOL = r"[A-Z][a-z]?"
_JOIN = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*|\s*/\s*)"
#: "containing Si and O", "with elements Fe, Ni and Co", "that include Li"
_CONTAINING = re.compile(
    rf"\b(?:contain(?:s|ing)?|with|including|includes?|having)\s+(?:the\s+)?"
    rf"(?:elements?\s+)?({_SYMBOL}(?:{_JOIN}{_SYMBOL})*)(?![\w-])"
)
#: Korean writes the elements before the verb, joined by 와/과/랑/하고/및 or commas, with an
#: object particle after the last: "Si와 O를 포함하는", "Li, Fe, O를 함유한", "Fe가 들어 있는"
_KO_JOIN = r"(?:\s*(?:,|와|과|이랑|랑|하고|및|그리고)\s*)"
_KO_LIST = re.compile(rf"(?<![A-Za-z0-9])({_SYMBOL}(?:{_KO_JOIN}{_SYMBOL})*)")
_KO_CONTAIN = re.compile(
    r"\s*+(?:을|를|이|가)?\s*+(?:모두\s*+)?(?:포함|함유|들어\s*있|들어간|가진|갖는|가지는|가지고)"
)
#: A bound the request negates: "not containing Fe", "not binary" (English, just before),
#: "H와 He를 포함하지 않는", "이원계가 아닌", "원소 2개를 제외한" (Korean, just after). It
#: filtered for the opposite (``elements HAS ALL "H","He"``, ``nelements=2``); now for nothing.
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever|\bnon)[\s-]*$", re.I)
_NOT_AFTER = re.compile(
    r"\s*+(?:을|를|이|가|은|는)?\s*+(?:(?:하|되|있)?지\s*+(?:않|말)|안\s*+[하되된]|아닌|아니|제외|빼고)"
)


def _negated(query: str, start: int, end: int) -> bool:
    return bool(
        _NOT_BEFORE.search(query, max(0, start - 12), start) or _NOT_AFTER.match(query, end)
    )


_COUNT_WORDS = {"binary": 2, "ternary": 3, "quaternary": 4, "quinary": 5}
_BOUNDS = (
    (r"at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of", "<="),
    (r"fewer\s+than|less\s+than", "<"),
    (r"at\s+least|no\s+fewer\s+than|a\s+minimum\s+of", ">="),
    (r"more\s+than", ">"),
    (r"exactly|only", "="),
)
_NUMBER_OF_ELEMENTS = [
    (re.compile(rf"\b(?:{words})\s+(\d{{1,3}})\s+(?:different\s+)?elements?\b", re.I), op)
    for words, op in _BOUNDS
]
#: A hydrate's dot: "CuSO4·5H2O" is found as "CuSO4" alone.
_DOTS = frozenset("·•∙⋅*")
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
_COUNT_WORD = re.compile(rf"\b({'|'.join(_COUNT_WORDS)})\b", re.I)
_PART = re.compile(rf"\(((?:{_SYMBOL}\d*)+)\)(\d*)|({_SYMBOL})(\d*)")


#: The most digits a count of a formula has (a request's "Fe99999...O" is no formula, and
#: Python refuses to read a number of more than 4,300 digits).
_COUNT_DIGITS = 9


def _counts(formula: str) -> dict[str, int] | None:
    """Element -> count of ``formula`` (one level of brackets: ``Ca3(PO4)2``); ``None`` for
    a fractional count (``Fe0.5Ni0.5``, no reduced form), a count of more than
    :data:`_COUNT_DIGITS` digits or a symbol that is no element."""
    if "." in formula:
        return None
    counts: dict[str, int] = {}
    for group, times, symbol, count in _PART.findall(formula):
        items = re.findall(rf"({_SYMBOL})(\d*)", group) if group else [(symbol, count)]
        if len(times) > _COUNT_DIGITS or any(len(n) > _COUNT_DIGITS for _, n in items):
            return None
        factor = int(times or 1) if group else 1
        for element, n in items:
            if not is_element(element):
                return None
            counts[element] = counts.get(element, 0) + int(n or 1) * factor
    return counts or None


def reduced_formula(formula: str) -> str | None:
    """``formula`` as OPTIMADE's ``chemical_formula_reduced`` writes it (``LiFePO4`` ->
    ``FeLiO4P``, ``Fe4O6`` -> ``Fe2O3``); ``None`` where it has no such form."""
    return _reduced(_counts(formula))


def _reduced(counts: dict[str, int] | None) -> str | None:
    if counts is None:
        return None
    divisor = math.gcd(*counts.values())
    return "".join(
        f"{e}{n // divisor if n // divisor > 1 else ''}" for e, n in sorted(counts.items())
    )


def _quoted(elements: Sequence[str]) -> str:
    return ",".join(f'"{e}"' for e in elements)


def _formula_clause(formula: str, allowed: set[str]) -> str | None:
    counts = _counts(formula)
    reduced = _reduced(counts)
    if reduced is not None and "chemical_formula_reduced" in allowed:
        return f'chemical_formula_reduced="{reduced}"'
    if counts is None or "elements" not in allowed:
        return None
    clause = f"elements HAS ONLY {_quoted(sorted(counts))}"
    if "nelements" in allowed:
        clause = f"elements HAS ALL {_quoted(sorted(counts))} AND nelements={len(counts)}"
    return clause


def _contained(query: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The elements the request asks structures to contain, and where it names them."""
    elements: list[str] = []
    spans: list[tuple[int, int]] = []
    ends: dict[int, int] = {}  # where a Korean list's verb ends
    korean = []
    for m in _KO_LIST.finditer(query):
        if verb := _KO_CONTAIN.match(query, m.end()):
            ends[m.start()] = verb.end()
            korean.append(m)
    matches = [*_CONTAINING.finditer(query), *korean]
    for match in sorted(matches, key=lambda m: m.start()):
        symbols = re.findall(_SYMBOL, match.group(1))
        if not all(is_element(s) for s in symbols):
            continue
        if len(symbols) == 1 and not is_element(symbols[0], alone=True):
            continue  # "with No ...", "with I": a word, not an element
        spans.append(match.span(1))  # negated, its symbols are no formula either
        if not _negated(query, match.start(), ends.get(match.start(), match.end())):
            elements += [s for s in dict.fromkeys(symbols) if s not in elements]
    return elements, spans


def _whole(query: str, value: BoundValue) -> bool:
    """Whether the formula ``value`` is all the request writes there, not a piece of a
    longer one the formulas found do not read: a hydrate ("CuSO4·5H2O" gives "CuSO4") or
    a nesting ("Ca3((PO4)2)3" gives "Ca3" and "(PO4)2"), whose piece filtered for is another
    material. A formula in brackets of its own ("gallium nitride (GaN)") is whole."""
    before = query[max(value.start - 2, 0) : value.start].rjust(2)
    after = query[value.end : value.end + 2].ljust(2)
    if _DOTS & {before[1], after[0]} or after[0] in _OPEN or before[1] in _CLOSE:
        return False
    # "...)3": a bracket that closes more, multiplied; "3((": one that opens inside more
    multiplied = after[0] in _CLOSE and after[1].isdigit()
    inside = before[1] in _OPEN and (before[0].isalnum() or before[0] in _OPEN)
    return not (multiplied or inside)


#: Korean counts: "원소 2개로 이루어진", "원소가 세 개 이하인", "최대 3개 원소", "삼원계"
_KO_NUMBERS = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6}
#: Each starts at a word (never at a space) and reads spaces possessively: written
#: ``(최대)?\s*원소``, every space of a long run started a scan to its end (30,000 spaces: 11 s).
#: A count is a whole number: never the last digits of a longer one ("1005개" is no 5).
_KO_NUMBER = rf"(?<![\d.,])(\d{{1,3}}|{'|'.join(_KO_NUMBERS)})\s*+(?:개|가지|종류)"
_KO_BOUND = r"\s*+(이하|이상|미만|초과|까지)?"
_KO_COUNT = (
    re.compile(
        rf"(?:(최대|최소|적어도)\s*+)?원소\s*+(?:가|를|는|의\s*+수가)?\s*+{_KO_NUMBER}{_KO_BOUND}"
    ),
    re.compile(rf"(?:(최대|최소|적어도)\s*+)?{_KO_NUMBER}{_KO_BOUND}\s*+(?:의\s*+)?원소"),
)
_KO_SYSTEMS = {"이": 2, "삼": 3, "사": 4, "오": 5}
_KO_SYSTEM = re.compile(r"(?<![\uac00-\ud7a3\d])([2-6]|이|삼|사|오)원계")
_KO_OPS = {"이하": "<=", "까지": "<=", "최대": "<=", "이상": ">=", "최소": ">=", "적어도": ">="}
_KO_OPS |= {"미만": "<", "초과": ">"}


def _korean_element_count(query: str) -> tuple[str, int] | None:
    for pattern in _KO_COUNT:
        for match in pattern.finditer(query):
            if _negated(query, match.start(), match.end()):
                continue
            before, number, after = match.groups()
            count = int(number) if number.isdigit() else _KO_NUMBERS[number]
            return _KO_OPS.get(after or before or "", "="), count
    for system in _KO_SYSTEM.finditer(query):
        if not _negated(query, system.start(), system.end()):
            word = system.group(1)
            return "=", int(word) if word.isdigit() else _KO_SYSTEMS[word]
    return None


def _element_count(query: str) -> tuple[str, int] | None:
    for pattern, op in _NUMBER_OF_ELEMENTS:
        for match in pattern.finditer(query):
            if not _negated(query, match.start(), match.start()):
                return op, int(match.group(1))
    for word in _COUNT_WORD.finditer(query):
        if not _negated(query, word.start(), word.start()):
            return "=", _COUNT_WORDS[word.group(1).lower()]
    return _korean_element_count(query)


#: How many elements a structure may have: 1 to the 118 known.
_MOST_ELEMENTS = 118


def _possible(op: str, count: int) -> bool:
    """Whether ``nelements{op}{count}`` can hold for some structure: "원소 0개" or "999
    elements" filtered for none (trial T5); such a bound is left out, as a word is that names
    no element."""
    low = {"<": 2, "<=": 1}.get(op, -1)
    high = {">": _MOST_ELEMENTS - 1, ">=": _MOST_ELEMENTS}.get(op, _MOST_ELEMENTS + 1)
    if op == "=":
        return 1 <= count <= _MOST_ELEMENTS
    return count >= low and count <= high


def optimade_filter(
    parameter: Parameter, query: str, values: Sequence[BoundValue] = ()
) -> str | None:
    """The filter ``query`` asks of an OPTIMADE filter ``parameter`` (see the module
    docstring); ``None`` where the parameter is no such filter or the request says nothing a
    filter the route allows can hold."""
    if parameter.semantic_id != FILTER_SEMANTIC_ID:
        return None
    listed: Any = parameter.json_schema.get(FILTER_PROPERTIES_KEY)
    allowed = set(listed) if isinstance(listed, list) else set(_STANDARD)
    elements, spans = _contained(query)
    clauses: list[str] = []
    formulas = [
        v.value
        for v in values
        if v.kind == "chemical.formula"
        and not any(a <= v.start < b for a, b in spans)
        and _whole(query, v)
    ]
    said = [c for c in (_formula_clause(f, allowed) for f in dict.fromkeys(formulas)) if c]
    if len(said) == 1:
        clauses.append(said[0])
    elif said:
        clauses.append("(" + " OR ".join(said) + ")")
    # a formula names its elements: "NiO computed with U" (a Hubbard U, or uranium) or "TiO2
    # with V doping" ANDed them with chemical_formula_reduced="NiO", which no structure is
    if elements and "elements" in allowed and not said:
        clauses.append(f"elements HAS ALL {_quoted(elements)}")
    count = _element_count(query)
    if count is not None and "nelements" in allowed and _possible(*count):
        clauses.append(f"nelements{count[0]}{count[1]}")
    return " AND ".join(clauses) or None
