"""A number a change sets: "Set thermostat D-201 to 23 degrees" fills the change's one required
number (``target_celsius``), "온도를 22도로 맞춰줘" too, and "at 60% brightness" the number
named by its parameter's name right after it (trial 11: each left the value open, so the
change could not be sent, or was sent without the brightness asked).

:func:`set_number` reads "to N" after a verb of setting (set, change, adjust, raise, lower,
turn up or down, make, put; in Korean N로 / N으로 before 맞춰, 설정, 바꿔, 변경, 올려, 내려), once
in the request and in a clause that does not say not to use it, for the change's one required
number or integer that is still open, or, where none is required, its one optional number
(``set_thermostat(device_id, temperature: float | None = None)`` asked "set thermostat T-1
to 21 degrees": the temperature was left open, twelfth security review; "degrees" and "도"
fit a parameter that names a temperature).

:func:`number_before_name` reads a number written right before the parameter's own name
("60% brightness", "3 speed"), for a change's number parameter (a read's "5 per page" is its
page size's, :mod:`.page_size`). A unit written after the number must be one the parameter
names (its name or its description: "degrees" for "Target temperature in degrees Celsius",
"%" for "in percent"; "degrees" for a parameter declared in a unit of temperature), or one
:func:`~.stated_units.converted_at` converts into the unit the parameter declares ("to 70
°F" for a parameter in Celsius: 21.11111111); one that does not convert ("to 12 kg") is
left for the caller to give. Both take only a value the parameter's schema accepts.

A number written with thousands groups is read whole ("to 15,000 USD" put 15 in
``amount_cents``, user trial 20), and an amount in a currency's minor units
(:func:`~.asked_amounts.in_minor_units`) takes no number here: "change the amount on deal D-7
to 2500" sent ``amount_cents=2500``, 25 euros; a sum in a currency written for certain fills
it (:func:`~.asked_amounts.minor_amount`), and otherwise it stays missing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from schemarouter.contracts import Parameter, Route
from schemarouter.errors import UnitError
from schemarouter.planning.asked_amounts import in_minor_units
from schemarouter.planning.body import body_fields
from schemarouter.planning.named_values import spellings, valid
from schemarouter.planning.stated_units import NO_UNIT as _NO_UNIT
from schemarouter.planning.stated_units import converted_at, declared_in, dimension
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.prerequisites import names_identifier
from schemarouter.retrieval.values import value_schema
from schemarouter.units import parse_unit

__all__ = ["number_before_name", "set_number", "set_starts"]

#: A number, its thousands groups read with it ("to 15,000 USD" is 15000, never 15: trial 20).
_NUMBER = r"(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)"
#: A unit written right after the number (a sign or a word), and the words a parameter that
#: takes it names (its name or description holds one of them).
_UNIT = r"(?:\s*(%|°\s*[CF]?|도|[A-Za-z]+\b))?"
_UNIT_NAMES = {
    "%": ("percent", "%"),
    "percent": ("percent", "%"),
    "°": ("degree", "celsius", "fahrenheit", "temperature", "°"),
    "°c": ("celsius", "°c"),
    "°f": ("fahrenheit", "°f"),
    "도": ("degree", "celsius", "temperature"),
    "degree": ("degree", "celsius", "fahrenheit", "temperature"),
    "degrees": ("degree", "celsius", "fahrenheit", "temperature"),
}
#: A unit written as degrees of no named scale: the scale a temperature parameter declares.
_DEGREES = frozenset(["°", "도", "degree", "degrees"])
_SETS = (
    r"set|sets|change|changes|update|updates|adjust|adjusts|raise|raises|lower|lowers|"
    r"turn\s+(?:it\s+)?up|"
    r"turn\s+(?:it\s+)?down|make|makes|put|puts|bump|increase|decrease|reduce"
)
_ENGLISH = re.compile(rf"\b(?i:(?:{_SETS})\b[^.;!?]*?\bto)\s+{_NUMBER}{_UNIT}")
_TO = re.compile(rf"\bto\s+{_NUMBER}{_UNIT}", re.IGNORECASE)
_KOREAN = re.compile(
    rf"(?<![\w.-]){_NUMBER}\s*+(도|%|퍼센트)?\s*+(?:으로|로)\s*+"
    r"(?:맞춰|맞추|설정|바꿔|바꾸|변경|올려|올리|내려|내리|조정|조절)(?!\s*하?지\s*(?:말|않))"
)


def _is_number(parameter: Parameter) -> bool:
    """Whether ``parameter`` takes a number that is no identifier (``ticket_id`` is one)."""
    kind = value_schema(parameter.json_schema).get("type")
    return kind in ("number", "integer") and not names_identifier(parameter.name)


def _unit_fits(parameter: Parameter, unit: str | None) -> bool:
    """Whether the ``unit`` written after a number is one ``parameter`` names (none: yes)."""
    if not unit:
        return True
    if _is_declared(parameter, re.sub(r"\s+", "", unit)):
        return True  # "to 20 °C" for a parameter declared in degC (x-unit, description, name)
    unit = re.sub(r"\s+", "", unit).lower()
    if unit in _NO_UNIT:
        return True
    text = f"{parameter.name} {parameter.description}".lower().replace("_", " ")
    declared = declared_in(parameter) if unit in _DEGREES else None
    if declared and "temperature" in str(dimension(declared)):
        return True  # "to 21 degrees" for a parameter declared in degC (x-unit, temp_c)
    names = _UNIT_NAMES.get(unit, (unit.rstrip("s"),))
    return any(name in text for name in names)


def _is_declared(parameter: Parameter, unit: str) -> bool:
    """Whether ``unit`` (as written) is the unit ``parameter`` declares, as pint reads both."""
    declared = declared_in(parameter)
    if declared is None:
        return False
    try:
        return parse_unit(unit) == parse_unit(declared)
    except UnitError:
        return False


def _numbers_of(route: Route) -> list[Parameter]:
    """The numbers ``route`` takes: its parameters and its JSON body's top-level properties."""
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    return [p for p in taken if _is_number(p)]


def _value(parameter: Parameter, text: str) -> int | float | None:
    text = text.replace(",", "")
    number: int | float = float(text) if "." in text else int(text)
    if value_schema(parameter.json_schema).get("type") == "number":
        number = float(number)
    if isinstance(number, float) and number.is_integer() and not valid(parameter, number):
        number = int(number)
    return number if valid(parameter, number) else None


_SET_WORD = re.compile(rf"\b(?i:{_SETS})\b")
_STOP = re.compile(r"[.;!?]")


def set_starts(query: str) -> list[int]:
    """Where ``query`` writes a number "to N" after a verb of setting in its sentence ("set
    ... to 21"): each start. Read from each "to N" back, with the places of the verbs and the
    stops found once: :data:`_ENGLISH` reads from each verb to the sentence's "to N", which
    for 8,000 "set the title of issue I-1" before one "to" read the request 8,000 times."""
    verbs = [m.start() for m in _SET_WORD.finditer(query)]
    stops = [m.start() for m in _STOP.finditer(query)]
    out = []
    for match in _TO.finditer(query):
        stop = bisect.bisect_left(stops, match.start()) - 1
        sentence = stops[stop] + 1 if stop >= 0 else 0
        verb = bisect.bisect_left(verbs, sentence)
        if verb < len(verbs) and verbs[verb] < match.start():
            out.append(match.start(1))
    return out


def set_number(
    parameter: Parameter,
    open_parameters: Sequence[Parameter],
    query: str,
    clauses: Clauses,
    *,
    route: Route | None = None,
) -> int | float | None:
    """The number a change's verb of setting puts in ``parameter``, the one required number
    among ``open_parameters`` (module docstring); ``None`` else. The one optional number
    takes it only where ``route`` requires none: "set the alarm for logger L-7 to 5 °C" filled
    the required ``max_celsius``, then the optional ``min_celsius``, the one number left open,
    with the same 5 (trial 15)."""
    if in_minor_units(parameter):
        return None  # "to 2500" of an amount in cents: 2500 of what is not said (trial 20)
    numbers = [p for p in open_parameters if p.required and _is_number(p)]
    if not numbers and route is not None and any(p.required for p in _numbers_of(route)):
        return None  # the route's required number took the value already, or will
    # none required: an update's optional one (``temperature: float | None = None``)
    numbers = numbers or [p for p in open_parameters if _is_number(p)]
    if numbers != [parameter]:
        return None
    found = [m for m in _ENGLISH.finditer(query) if not clauses.against(m)]
    if found:  # every "to N" after the verb: "to 20, or maybe to 22" names two
        found += [m for m in _TO.finditer(query, found[0].end()) if not clauses.against(m)]
        if _said_again(parameter, query, found[0].end(), clauses):
            return None  # "to 25 degrees, actually make it 23": which one is not guessed
    found += [m for m in _KOREAN.finditer(query) if not clauses.against(m)]
    if len({m.group(1) for m in found}) != 1:
        return None  # none, or two values ("to 21, then to 23"): none is guessed
    converted = converted_at(parameter, query, [m.start(1) for m in found])
    if converted != {None}:  # "to 68 °F" for a parameter in °C: 20, or nothing
        value = converted.pop() if len(converted) == 1 else None
        return None if isinstance(value, str) else value
    if not all(_unit_fits(parameter, m.group(2)) for m in found):
        return None
    return _value(parameter, found[0].group(1))


#: A number written after the one set, in the parameter's unit or none: a correction ("...,
#: actually make it 23", "I mean 23") or another value; one said against ("not 25", "instead
#: of 25", "rather than 25", "from 20 to 23") is none.
_LATER = re.compile(rf"(?<![\w.:-]){_NUMBER}{_UNIT}")
_AGAINST = re.compile(r"\b(?:not|instead\s+of|rather\s+than|than|nor)\s*$", re.IGNORECASE)


def _said_again(parameter: Parameter, query: str, after: int, clauses: Clauses) -> bool:
    """Whether ``query`` writes another number after ``after`` (twelfth security review: "Set
    the heating of zone Z-1 to 25 degrees, actually make it 23" sent 25) that is not said
    against and whose unit ``parameter`` names or is none ("in 10 minutes" is no such)."""
    for match in _LATER.finditer(query, after):
        # "not" right before it, read in the 64 characters there (from the request's start
        # for each number: 4,000 "by 9 °F" took 4.9 s)
        before = max(0, match.start() - 64)
        if clauses.against(match) or _AGAINST.search(query, before, match.start()):
            continue
        if _unit_fits(parameter, match.group(2)):
            return True
    return False


def number_before_name(parameter: Parameter, query: str, clauses: Clauses) -> int | float | None:
    """The number written right before ``parameter``'s own name ("at 60% brightness"), once,
    in a unit it names; ``None`` else."""
    if not _is_number(parameter):
        return None
    names = "|".join(re.escape(n).replace(r"\ ", r"[\s_-]") for n in spellings(parameter))
    pattern = re.compile(rf"(?<![\w.-]){_NUMBER}{_UNIT}\s+(?i:{names})\b")
    found = [m for m in pattern.finditer(query) if not clauses.against(m)]
    if len({m.group(1) for m in found}) != 1 or not _unit_fits(parameter, found[0].group(2)):
        return None
    return _value(parameter, found[0].group(1))
