"""A bound the request writes on a quantity, for a route's ``*_min`` / ``*_max`` parameter.

"밴드갭이 2 전자볼트 이상인 소재", "band gap above 2 eV", "300~500 K 열전도도", "3천 K까지" on
a route with ``band_gap_min`` / ``temperature_max`` planned the call with no bound at all (trial
X4): the server answered every material and nothing said the request's bound was dropped. Here a
number written with a unit becomes the bound of the parameter that takes that quantity:

- the parameter's side is read from its name (``band_gap_min``, ``min_density``,
  ``temperature_max``, ``k_vrh_gte``, ``year_from``); its unit from its schema's ``x-unit``,
  else from its description ("Minimum band gap in eV.", "최저 온도 (K)"), else from the route's
  output field its name bounds (``band_gap`` for ``band_gap_min``);
- the request's side from the words around the number: English before it (*above*, *at
  least*, *below*, *up to*, ``>=``), Korean after it (이상, 초과, 부터 / 이하, 미만, 까지), or
  a range ("300~500 K", "1-3 eV", "between 300 and 500 K", "300 K에서 500 K 사이");
- the number is converted from the unit the request writes (a symbol, or a Korean unit's
  name: 전자볼트, 켈빈) into the parameter's by pint (3천 kg/m^3 -> 3 g/cm^3); a unit of
  another dimension binds nothing.

Only where it is plain: one quantity per side and dimension in the request, and one bounded
quantity of that dimension on the route (a route bounding two energies takes neither); a bound
whose clause says not to ("2 eV 이상 말고") binds nothing.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.errors import UnitError
from schemarouter.planning.asked_units import KOREAN_UNIT_NAMES
from schemarouter.retrieval.clauses import Clauses, clauses_of
from schemarouter.retrieval.values import value_schema
from schemarouter.units import parse_unit, pint_factor

__all__ = ["bound_side", "range_value", "unused_bounds"]

_LOW_WORDS = ("min", "minimum", "gte", "gt", "from", "lower", "low", "start")
_HIGH_WORDS = ("max", "maximum", "lte", "lt", "to", "upper", "high", "end")
_SIDE = re.compile(
    rf"^(?:({'|'.join(_LOW_WORDS)})|({'|'.join(_HIGH_WORDS)}))_(.+)$"
    rf"|^(.+?)_(?:({'|'.join(_LOW_WORDS)})|({'|'.join(_HIGH_WORDS)}))$"
)
#: Starts only where a run of digits starts, each run read once (possessive): 20,000 digits
#: took 133 s, every start and split of the run tried in turn. Never the digits of an id
#: ("logger L-7 to 46 °F" is no range from 7 to 46 °F: trial 15 set the logger's low alarm
#: to -13.9 °C, its id read as a bound).
_NUMBER = r"(?<![\d.])(?<![A-Za-z])(?<![A-Za-z]-)\d++(?:\.\d++)?"
_KO_NAMES = "|".join(sorted(KOREAN_UNIT_NAMES, key=len, reverse=True))
#: A unit written after a number: a Korean unit's name, or a symbol (``eV``, ``kg/m^3``, ``K``);
#: a preposition (lower case: "5 A fuse" is amperes) before another word is none ("3 in
#: stock", "2 at a time": trial Y1).
_PREPOSITION = r"(?!(?-i:in|at|a|an|by|of|on|or|to)\s+[^\W\d_])"
_UNIT = rf"(?:{_KO_NAMES}|{_PREPOSITION}[A-Za-zÅ°µμ][\w°/^·*.()-]{{0,11}}?)"
#: Spaces read once (possessive): "5", 25,000 spaces and "per page" took 17.5 s, each split
#: of the run between a number, its missing unit and the range's sign tried in turn (trial Z1).
_QUANTITY = rf"({_NUMBER})\s*+({_UNIT})(?![A-Za-z0-9/^])"
_RANGE = re.compile(
    rf"(?:between\s+)?({_NUMBER})\s*+({_UNIT})?\s*+(?:~|–|-|to|and|에서|부터)\s*+{_QUANTITY}"
    r"(?:\s*(?:사이|까지|범위))?",
    re.IGNORECASE,
)
_SINGLE = re.compile(_QUANTITY, re.IGNORECASE)
_LOW_BEFORE = re.compile(
    r"(?:\babove|\bover|\bat\s+least|\bmore\s+than|\bgreater\s+than|\bminimum(?:\s+of)?|"
    r"\bno\s+less\s+than|>=?|≥)\s*$",
    re.IGNORECASE,
)
_HIGH_BEFORE = re.compile(
    r"(?:\bbelow|\bunder|\bat\s+most|\bless\s+than|\bup\s+to|\bmaximum(?:\s+of)?|"
    r"\bno\s+more\s+than|<=?|≤)\s*$",
    re.IGNORECASE,
)
_LOW_AFTER = re.compile(r"\s*(?:이상|초과|부터|보다\s*(?:큰|높은|많은))")
_HIGH_AFTER = re.compile(r"\s*(?:이하|미만|까지|보다\s*(?:작은|낮은|적은))")
_DESCRIBED = re.compile(r"\(([^()\s]{1,12})\)|\bin\s+(\S{1,12}?)\.?$")


def _side(parameter: Parameter) -> tuple[str, str] | None:
    """``("low" | "high", quantity)`` of a bound parameter by its name, else ``None``."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().replace("-", "_")
    match = _SIDE.match(name)
    if match is None:
        return None
    low, _, rest, rest2, low2, _ = match.groups()
    return ("low" if low or low2 else "high", rest or rest2)


def bound_side(parameter: Parameter) -> tuple[str, str] | None:
    """``("low" | "high", quantity)`` where ``parameter`` is a bound by its name
    (``band_gap_min``, ``max_celsius``), else ``None``."""
    return _side(parameter)


def _unit_of(parameter: Parameter, quantity: str, route: Route) -> str | None:
    """The unit ``parameter``'s values are in (see the module docstring), where pint reads it."""
    declared = value_schema(parameter.json_schema).get("x-unit")
    found = declared if isinstance(declared, str) else None
    if found is None:
        described = _DESCRIBED.search(parameter.description.strip())
        found = described and (described.group(1) or described.group(2))
    if not found:
        bounded = [
            f.unit
            for f in route.endpoint.output_fields
            if f.unit and f.name.rsplit(".", 1)[-1] == quantity
        ]
        found = bounded[0] if len(set(bounded)) == 1 else None
    if not found:
        return None
    try:
        parse_unit(found)
    except UnitError:
        return None
    return found


def _unit(text: str | None) -> str | None:
    if not text:
        return None
    text = KOREAN_UNIT_NAMES.get(text, text)
    try:
        return text if parse_unit(text).dimensionality else None
    except UnitError:
        return None


def _bounds(query: str, clauses: Clauses) -> list[tuple[str, float, str]]:
    """``(side, number, unit)`` of every bound ``query`` writes on a quantity with a unit."""
    return [bound for bound, _ in _written_bounds(query, clauses)]


def _written_bounds(query: str, clauses: Clauses) -> list[tuple[tuple[str, float, str], str]]:
    """:func:`_bounds`, each with the text that writes it ("2 eV 이상", "300~500 K")."""
    found: list[tuple[tuple[str, float, str], str]] = []
    taken: list[tuple[int, int]] = []
    for match in _RANGE.finditer(query):
        unit = _unit(match.group(4))
        first = _unit(match.group(2)) or unit
        if unit is None or first is None or clauses.against(match):
            continue
        text = match.group(0).strip()
        found += [(("low", float(match.group(1)), first), text)]
        found += [(("high", float(match.group(3)), unit), text)]
        taken.append(match.span())
    for match in _SINGLE.finditer(query):
        unit = _unit(match.group(2))
        if unit is None or _within(taken, match.start()):
            continue
        before = query[max(0, match.start() - 24) : match.start()]
        low, high = _LOW_AFTER.match(query, match.end()), _HIGH_AFTER.match(query, match.end())
        end = (low or high or match).end()  # "2 eV 이상 말고": its 이상 is refused
        if clauses.against_span(match.start(), end):
            continue
        said = _LOW_BEFORE.search(before) or _HIGH_BEFORE.search(before)
        start = match.start() - len(before) + said.start() if said else match.start()
        text = query[start:end].strip()
        if _LOW_BEFORE.search(before) or low:
            found.append((("low", float(match.group(1)), unit), text))
        elif _HIGH_BEFORE.search(before) or high:
            found.append((("high", float(match.group(1)), unit), text))
    return found


def _within(spans: Sequence[tuple[int, int]], at: int) -> bool:
    """Whether ``at`` lies in one of ``spans`` (in order, apart): the last one starting at or
    before it (each bound asked every range, 2.5 s for 1,000 of each: thirteenth review)."""
    i = bisect.bisect_right(spans, at, key=lambda span: span[0]) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def range_value(parameter: Parameter, route: Route, query: str) -> Any:
    """The bound ``query`` writes for ``parameter`` (a ``*_min`` / ``*_max`` number), in its
    unit; ``None`` where the request writes none plainly (module docstring). ``query`` has its
    Korean numbers read already ("3천" as 3000)."""
    kinds = value_schema(parameter.json_schema).get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    side = _side(parameter) if kinds & {"integer", "number"} else None
    unit = _unit_of(parameter, side[1], route) if side else None
    if side is None or unit is None:
        return None
    wanted = parse_unit(unit).dimensionality
    # another bounded quantity of the route in the same dimension: which one is meant is unsaid
    for other in route.endpoint.parameters:
        theirs = _side(other)
        if theirs is None or theirs[1] == side[1]:
            continue
        their_unit = _unit_of(other, theirs[1], route)
        if their_unit and parse_unit(their_unit).dimensionality == wanted:
            return None
    values = [
        (number, written)
        for at, number, written in _bounds(query, clauses_of(query))
        if at == side[0] and parse_unit(written).dimensionality == wanted
    ]
    if len(values) != 1:
        return None
    number, written = values[0]
    scale, offset = pint_factor(written, unit)
    value = round(number * scale + offset, 9)
    if not math.isfinite(value):  # 400 digits: no number a float holds
        return None
    if value == int(value):
        return int(value)
    return value if "number" in kinds else None


def unused_bounds(arguments: Sequence[Mapping[str, Any]], query: str) -> list[str]:
    """A sentence per bound ``query`` writes ("2 eV 이상") where no step's ``arguments`` holds
    a bound parameter: the calls are then not filtered by it (a search for "band gap above 2
    eV" on a route with no ``band_gap_min`` answers every material), and the plan says so."""
    if any(_side(Parameter(name=name)) for step in arguments for name in step):
        return []
    texts = dict.fromkeys(text for _, text in _written_bounds(query, clauses_of(query)))
    return [
        f"the request bounds a value ({text!r}), which no step takes as an argument: the "
        "calls are not filtered by it; pass it with Plan.with_arguments where a parameter "
        "takes it (a *_min / *_max)"
        for text in texts
    ]
