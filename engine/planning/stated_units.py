"""A quantity the request states in another unit than the one a parameter declares.

"set the thermostat to 68°F" on a parameter declared in °C (``x-unit: degC``, "in °C" in its
description, or a callable's ``temp_c``), "ship a 12 lb parcel" on ``weight_kg``, "irrigate
with 0.5 inches" on ``depth_mm``: each sent nothing (the parameter was left missing) or, where
a rule took the number alone, the raw number in the wrong unit. Here the number is converted
by pint into the unit the parameter declares (:func:`declared_in`), and the plan says so
(:mod:`.held_units`: "68 degF -> 20 degC").

- A temperature converts as a point on its scale (68 °F is 20 °C), except one written after
  "by" ("raise it by 9 °F") or one for a parameter that holds a difference (``x-unit:
  delta_degC``, an ``offset`` / ``delta`` / ``change`` in its name), which converts by the
  scale alone (9 °F is 5 °C of difference); a point on a scale never fills a difference, nor
  a difference a point.
- An integer parameter takes the converted value rounded only where rounding moves it by a
  tenth of the parameter's unit at most (68 °F is 20 °C; 70 °F, 21.1 °C, fills no integer
  in °C: which whole degree is meant is the caller's to say); a value the parameter's schema
  refuses (a maximum) fills nothing.
- A unit of another dimension ("12 kg" for a temperature), a word no unit pint reads, and a
  currency for another currency convert to nothing.

Which parameter a quantity is for: the route's one number of its dimension (or of several,
the one whose other words the request writes, :mod:`.unit_siblings`' rule), not a bound
(``*_min`` / ``*_max``: :mod:`.ranges`), never a duration named by its unit (:mod:`.durations`
converts those); and the number a verb of setting puts in the change's one number (``set
... to 68 °F``: :mod:`.set_numbers`, which calls :func:`converted_at`).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.errors import UnitError
from schemarouter.planning.body import body_fields
from schemarouter.planning.named_values import valid
from schemarouter.planning.quantities import GROUPED, declared_unit, numeric
from schemarouter.retrieval.values import value_schema
from schemarouter.units import parse_unit, pint_factor

__all__ = [
    "NO_UNIT",
    "Stated",
    "converted",
    "converted_at",
    "declared_in",
    "dimension",
    "shown",
    "stated_quantities",
    "stated_value",
    "takes_difference",
]

#: How a request writes a unit after a number, and the unit pint reads it as (longest first
#: where one spelling starts another). "degrees" alone names no scale: it is no unit here.
_SPELLED: tuple[tuple[str, str], ...] = (
    (r"°\s?F|℉|deg(?:rees?|\.)?\s?F(?:ahrenheit)?|(?:degrees?\s+)?fahrenheit|(?-i:F)", "degF"),
    (
        r"°\s?C|℃|deg(?:rees?|\.)?\s?C(?:elsius)?|(?:degrees?\s+)?(?:celsius|centigrade)|(?-i:C)",
        "degC",
    ),
    (r"°\s?K|(?:degrees?\s+)?kelvins?|(?-i:K)", "K"),
    (r"lbs?|pounds?(?!\s+sterling)", "lb"),
    (r"oz|ounces?", "oz"),
    (r"kgs?|kilos?|kilogram(?:me)?s?", "kg"),
    (r"mg|milligram(?:me)?s?", "mg"),
    (r"(?-i:g)|gram(?:me)?s?", "g"),
    (r"tonnes?|metric\s+tons?", "t"),
    (r"inch(?:es)?|in(?=\s*(?:$|[.,;:!?)]))", "inch"),
    (r"ft|foot|feet", "ft"),
    (r"yds?|yards?", "yd"),
    (r"mi|miles?", "mi"),
    (r"km|kilomet(?:er|re)s?", "km"),
    (r"cm|centimet(?:er|re)s?", "cm"),
    (r"mm|millimet(?:er|re)s?", "mm"),
    (r"(?-i:m)|met(?:er|re)s?", "m"),
    (r"ml|millilit(?:er|re)s?", "mL"),
    (r"(?-i:l|L)|lit(?:er|re)s?", "L"),
    (r"gal|gallons?", "gal"),
    (r"mph|miles\s+per\s+hour", "mph"),
    (r"km/h|kph|kilomet(?:er|re)s\s+per\s+hour", "km/h"),
    (r"psi", "psi"),
    (r"m(?:illi)?bars?", "mbar"),
    (r"bars?", "bar"),
    (r"atm|atmospheres?", "atm"),
    (r"secs?|seconds?", "s"),
    (r"mins?|minutes?", "min"),
    (r"hrs?|hours?", "h"),
    (r"days?", "day"),
)
#: A symbol pint reads beside those ("L/h", "kPa", "kWh", "m3/h"): a capital, a digit or a
#: slash in it, so a word of the sentence ("a", "at") is never read as a unit.
_SYMBOL = r"[A-Za-zµμ][A-Za-z0-9µμ/^.]{0,11}"
_UNIT = "|".join(f"(?:{s})" for s, _ in _SPELLED)
_NUMBER = rf"(?<![\w.,])(?<!\w-)({GROUPED}|-?\d+(?:\.\d+)?)(?!\d|,\d)"
#: A number, and the unit written after it: one of :data:`_SPELLED` (group 2), "degrees"
#: naming no scale (group 3), or another word or symbol (group 4).
_QUANTITY = re.compile(
    rf"{_NUMBER}(?:\s?(?:({_UNIT})|(degrees?|deg\.?|도)|({_SYMBOL}))(?![\w°/^]))?",
    re.IGNORECASE,
)
#: A word after a number that names no unit of it ("to 21 now", "to 23 and lock ...";
#: set_numbers reads it too).
NO_UNIT = frozenset(
    [
        "and",
        "or",
        "then",
        "but",
        "please",
        "now",
        "too",
        "also",
        "instead",
        "thanks",
        "thank",
        "today",
        "tonight",
        "tomorrow",
        "for",
        "in",
        "at",
        "on",
        "by",
        "from",
        "with",
        "so",
        "if",
        "when",
        "while",
        "until",
    ]
)
_TO = re.compile(r"\bto\s*$", re.IGNORECASE)
#: How far before a number "by" or "to" is looked for (the whole text, for each of many
#: numbers, took time in its square).
_BEFORE = 12
#: A number after "by": a difference ("raise it by 9 °F").
_BY = re.compile(r"\bby\s*$", re.IGNORECASE)
#: A letter alone that names a scale of temperature ("68F", "20 C", "250K") names one only
#: after a word that gives a measure ("to", "at", "by", "of", ":"): "on 2F" is a floor,
#: "apartment 4C" a door, "budget is 5K" thousands (review 18: each was sent as a temperature).
_LETTERS = frozenset(["F", "C", "K"])
_MEASURED = re.compile(
    r"(?:\b(?:to|at|by|of|from|between|than|under|over|below|above)|[:=])\s*$",
    re.IGNORECASE,
)
#: A quantity followed by one of these tells when, not how much: "2 m ago" (minutes), "5 h
#: later" (review 18: "watered 2 m ago" sent a depth of 2,000 mm).
_WHEN = re.compile(r"\s*(?:ago|earlier|later|hence|from\s+now)\b", re.IGNORECASE)
#: A name that holds a difference of a quantity, not a point on its scale.
_DIFFERENCE = re.compile(r"offset|delta|difference|change|increment|step|adjust", re.IGNORECASE)


@dataclass(frozen=True)
class Stated:
    """A number the request writes, with the unit written after it (``spelled``, ``""``
    where none) and the unit pint reads it as (``unit``, ``None`` where it reads none)."""

    number: float
    text: str
    spelled: str
    unit: str | None
    start: int
    end: int
    by: bool


def _spelled(spelled: str) -> str:
    """The unit of a spelling of :data:`_SPELLED` (as :data:`_QUANTITY` matched it)."""
    spaced = re.sub(r"\s+", " ", spelled)
    return next(u for p, u in _SPELLED if re.fullmatch(p, spaced, re.IGNORECASE))


def _symbol(spelled: str) -> str | None:
    """The unit pint reads a symbol as (``L/h``, ``kPa``), where it has a capital, a digit or a
    slash: a word of the sentence is none ("at"; "a" is a year to pint)."""
    if not re.search(r"[A-Z0-9/]", spelled):
        return None
    try:
        return spelled if parse_unit(spelled).dimensionality else None
    except UnitError:
        return None


def stated_quantities(query: str) -> list[Stated]:
    """Every number ``query`` writes (not an id's digits: "T-1"), with its unit."""
    found = []
    for match in _QUANTITY.finditer(query):
        spelled = match.group(2) or match.group(4) or ""
        unit = _spelled(spelled) if match.group(2) else _symbol(spelled) if spelled else None
        if match.group(4) and unit is None and not _unknown(query, match):
            spelled = ""  # "12 parcels": a word, not a unit
        if spelled and _no_unit(query, match, spelled):
            spelled, unit = "", None  # "floor 2F", "2 m ago": no quantity of that unit
        text = match.group(1)
        end = match.end() if spelled or match.group(3) else match.end(1)
        number = float(text.replace(",", ""))
        if not math.isfinite(number):
            continue
        by = bool(_BY.search(query[max(0, match.start() - _BEFORE) : match.start()]))
        found.append(Stated(number, text, spelled, unit, match.start(), end, by))
    return found


def _no_unit(query: str, match: re.Match[str], spelled: str) -> bool:
    """Whether the unit ``spelled`` after the number of ``match`` is none: a letter alone
    naming a scale of temperature where no word of measure comes before the number ("on 2F",
    "budget is 5K" reads; "to 68F" does), or a quantity that tells when ("2 m ago")."""
    if _WHEN.match(query, match.end()):
        return True
    before = query[max(0, match.start() - _BEFORE) : match.start()]
    return spelled in _LETTERS and not _MEASURED.search(before)


def _unknown(query: str, match: re.Match[str]) -> bool:
    """Whether the word after the number of ``match`` is written as its unit, though pint
    reads none: after a verb of setting's "to" ("set it to 68 blorps"), no word of the
    sentence ("to 21 now")."""
    word = match.group(4)
    before = query[max(0, match.start() - _BEFORE) : match.start()]
    return bool(_TO.search(before)) and word.lower() not in NO_UNIT


def shown(number: float) -> str:
    """``number`` as a plan writes it: 20 rather than 20.0, at most 6 significant digits."""
    return f"{number:.6g}"


#: Units a parameter's name may end with (``weight_kg``, ``temp_c``, ``depth_mm``).
_NAME_UNITS = {
    "kg": "kg", "g": "g", "lb": "lb", "lbs": "lb", "oz": "oz", "km": "km", "m": "m",
    "cm": "cm", "mm": "mm", "mi": "mi", "ft": "ft", "ml": "mL", "l": "L", "c": "degC",
    "celsius": "degC", "f": "degF", "fahrenheit": "degF", "kelvin": "K", "kpa": "kPa",
    "pa": "Pa", "psi": "psi", "lpm": "L/min", "kmh": "km/h", "mph": "mph",
}  # fmt: skip
#: A unit a description declares: "Target temperature in °C", "Weight (kg)".
_DESCRIBED = re.compile(
    rf"\bin\s+(?:units\s+of\s+)?(?:({_UNIT})|({_SYMBOL}))(?![\w°/^])|\(({_UNIT})\)|\(({_SYMBOL})\)",
    re.IGNORECASE,
)


def declared_in(parameter: Parameter) -> str | None:
    """The unit ``parameter`` declares, pint-readable: its ``x-unit`` (or "(unit: L/min)"),
    else the one its description names ("in °C", "in millimetres", "(kg)"), else the one its
    name ends with (``temp_c``, ``weight_kg``); ``None`` where it declares none."""
    declared = declared_unit(parameter)
    if declared is not None:
        return declared if dimension(declared) is not None else None
    described = " ".join(
        [str(value_schema(parameter.json_schema).get("description") or ""), parameter.description]
    )
    for match in _DESCRIBED.finditer(described):
        spelled, symbol = match.group(1) or match.group(3), match.group(2) or match.group(4)
        unit = _spelled(spelled) if spelled else _symbol(symbol)
        if unit is not None:
            return unit
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().rsplit("_", 1)
    return _NAME_UNITS.get(name[1]) if len(name) == 2 else None


@functools.lru_cache(maxsize=1024)
def dimension(unit: str) -> Any:
    """``unit``'s pint dimensionality; ``None`` where pint reads none, or it is a ratio."""
    try:
        return parse_unit(unit).dimensionality or None
    except UnitError:
        return None


def takes_difference(parameter: Parameter, unit: str) -> bool:
    """Whether ``parameter`` (declared in ``unit``) holds a difference: ``delta_degC``, or a
    name that says so (``offset_c``, ``setpoint_change``)."""
    return unit.startswith("delta_") or bool(_DIFFERENCE.search(parameter.name))


#: pint's factors, kept: a request of many quantities asks the same few.
_factor = functools.lru_cache(maxsize=256)(pint_factor)


def converted(parameter: Parameter, stated: Stated, unit: str) -> float | int | str:
    """``stated`` in ``unit`` (``parameter``'s), as the parameter takes it; else why not (a
    sentence)."""
    said = f"{stated.text} {stated.spelled}".strip()
    if stated.unit is None:
        return f"{said!r} names no unit pint reads"
    have, want = dimension(stated.unit), dimension(unit)
    if have is None or have != want:
        return f"{said!r} is {have or 'no quantity'}, not {want} as {unit} is"
    difference = takes_difference(parameter, unit)
    if stated.by and not difference:
        return f"{said!r} is a difference (after 'by'), and {parameter.name} takes a value"
    scale, offset = _factor(stated.unit, unit)
    value = stated.number * scale + (0.0 if difference else offset)
    value = float(f"{value:.10g}")
    if not math.isfinite(value):
        return f"{said!r} is no number a float holds in {unit}"
    kind = value_schema(parameter.json_schema).get("type")
    number: float | int = value
    if kind == "integer" or (isinstance(kind, list) and "number" not in kind):
        if abs(round(value) - value) > 0.1:
            return (
                f"{said!r} is {shown(value)} {unit}, and {parameter.name} takes a whole "
                f"number: {round(value)} would be off by more than a tenth of a {unit}"
            )
        number = round(value)
    if not valid(parameter, number):
        return f"{said!r} is {shown(value)} {unit}, which {parameter.name}'s schema refuses"
    return number


def _taken(route: Route) -> list[Parameter]:
    body = body_fields(route)
    return [*route.endpoint.parameters, *(body.properties if body is not None else ())]


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return [w for w in re.split(r"[^a-z0-9]+", spaced) if w]


def _for_parameter(parameter: Parameter, route: Route, query: str, want: Any) -> bool:
    """Whether a quantity of dimension ``want`` is ``parameter``'s: the route's one number
    of that dimension, or the one of several whose other words the request writes."""
    siblings = [
        p for p in _taken(route) if numeric(p) and (u := declared_in(p)) and dimension(u) == want
    ]
    if len(siblings) < 2:
        return True
    text = query.lower()

    def written(other: Parameter) -> bool:
        head = [w for w in _words(other.name) if w not in _NAME_UNITS]
        return bool(head) and all(re.search(rf"\b{re.escape(w)}\b", text) for w in head)

    return [p.name for p in siblings if written(p)] == [parameter.name]


def stated_value(
    parameter: Parameter, query: str, route: Route, *, set_at: Sequence[int] = ()
) -> Any:
    """The one quantity ``query`` states in ``parameter``'s dimension and another unit than
    it declares, converted (module docstring); ``None`` where there is none, several, it
    does not convert, or it is not the number a verb of setting gives at ``set_at`` ("on 2F
    ... to 21", :func:`~.set_numbers.set_starts`). A bound (``*_min``) is :mod:`.ranges`' to
    fill, a duration named by its unit :mod:`.durations`'."""
    from schemarouter.planning.durations import timed_name
    from schemarouter.planning.ranges import bound_side

    unit = declared_in(parameter) if numeric(parameter) else None
    if unit is None or timed_name(parameter) or bound_side(parameter) is not None:
        return None
    want = dimension(unit)
    same = [s for s in stated_quantities(query) if s.unit and dimension(s.unit) == want]
    if not same or any(s.unit == unit for s in same):
        return None  # none, or one in the declared unit: the rules of that unit fill it
    if not _for_parameter(parameter, route, query, want):
        return None
    if any(start not in {s.start for s in same} for start in set_at):
        return None  # "on 2F ... to 21": the number a verb of setting gives is set_number's
    values = {converted(parameter, s, unit) for s in same}
    if len(values) != 1:
        return None
    value = values.pop()
    return None if isinstance(value, str) else value


def converted_at(
    parameter: Parameter, query: str, starts: Sequence[int]
) -> set[float | int | str | None]:
    """The numbers written at ``starts`` of ``query`` (a verb of setting's "to 68 °F"), each
    converted into the unit ``parameter`` declares: the value, or why it does not convert;
    ``None`` for one in the declared unit or in none written ("to 21", "to 21 degrees"), and
    for all where the parameter declares no unit."""
    unit = declared_in(parameter)
    if unit is None:
        return {None}
    written = {s.start: s for s in stated_quantities(query)}  # read once, not per number
    out: set[float | int | str | None] = set()
    for start in starts:
        at = written.get(start)
        if at is None or not at.spelled or (at.unit and parse_unit(at.unit) == parse_unit(unit)):
            out.add(None)  # none written, or the declared unit: taken as written
        else:
            out.add(converted(parameter, at, unit))
    return out
