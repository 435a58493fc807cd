"""A unit the request asks for, against the unit a planned field comes in.

"energy consumption of site P-1 in MWh" on a route whose field is declared in kWh: the plan
fetches kWh, correctly labelled, and nothing converts it, since units convert only by a spec a
trusted catalog declares (:mod:`schemarouter.units`). The plan used to say nothing of the MWh
asked for; :func:`asked_unit_notes` names, per planned field of the same dimension in another
unit, what it comes in and how to convert it.

A unit is read where the request writes it after "in", "as", "into" or "to" ("in MWh", "to
Fahrenheit", "in degrees Celsius"; Korean: before 로 / 으로, "kWh로"), and only a word that is
plainly a unit: one of :data:`~schemarouter.units.UNIT_ALIASES`, a unit pint reads with a
capital, digit or symbol in it (``MWh``, ``m3/h``, ``°F``, ``Å``), or a unit's name
(``fahrenheit``, ``psi``, ``joules``): "in bar chart" or "in a day" ask for no unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from schemarouter.errors import UnitError
from schemarouter.units import UNIT_ALIASES, parse_unit, pint_factor

__all__ = ["KOREAN_UNIT_NAMES", "asked_unit_notes", "asked_units"]

_TOKEN = r"([A-Za-z°℃℉µμ%Å\u212b][\w°/^·*.-]{0,15})"
_ENGLISH = re.compile(rf"\b(?:in|as|into|to)\s+{_TOKEN}(?![\w/^])", re.IGNORECASE)
_KOREAN = re.compile(rf"{_TOKEN}(?:으로|로)(?![가-힣])")
#: A temperature asked for in degrees ("in degrees Fahrenheit", "in deg. C"), which the one
#: word after "in" missed (trial X3): the scale it names, as its unit.
_DEGREES = re.compile(
    r"\b(?:in|as|into|to)\s+deg(?:rees?|\.)?\s*(celsius|fahrenheit|kelvin|c|f)\b",
    re.IGNORECASE,
)
_SCALES = {"c": "degC", "celsius": "degC", "f": "degF", "fahrenheit": "degF", "kelvin": "K"}
#: Units written as lower-case words, which a request may ask for by name.
_UNIT_WORDS = frozenset(
    {
        "celsius",
        "fahrenheit",
        "kelvin",
        "psi",
        "pascal",
        "pascals",
        "joule",
        "joules",
        "watt",
        "watts",
        "kilowatts",
        "megawatts",
        "calories",
        "kilocalories",
        "meters",
        "metres",
        "nanometers",
        "nanometres",
        "angstrom",
        "angstroms",
        "kilometers",
        "kilometres",
        "miles",
        "feet",
        "inches",
        "liters",
        "litres",
        "gallons",
        "grams",
        "kilograms",
        "pounds",
        "ounces",
        "tonnes",
        "seconds",
        "minutes",
        "hours",
        "days",
        "percent",
        # symbols written in lower case
        "km",
        "cm",
        "mm",
        "kg",
        "mg",
        "lb",
        "lbs",
        "ms",
        "min",
        "hr",
        "kwh",
        "mwh",
        "gwh",
        "kw",
        "mw",
        "gw",
        "bar",
        "mbar",
        "kpa",
        "mpa",
        "gpa",
    }
)


#: Units a Korean request asks for by name ("전자볼트로", "켈빈으로", "in 기가파스칼"), as the
#: symbol each stands for (trial X4: only "eV로" was read). 바 (bar) and 줄 (joule) are left
#: out: "바로" is "at once", "줄로" "in a line".
KOREAN_UNIT_NAMES = {
    "밀리전자볼트": "meV",
    "킬로전자볼트": "keV",
    "전자볼트": "eV",
    "일렉트론볼트": "eV",
    "기가파스칼": "GPa",
    "메가파스칼": "MPa",
    "킬로파스칼": "kPa",
    "파스칼": "Pa",
    "켈빈": "K",
    "섭씨": "degC",
    "화씨": "degF",
    "킬로줄": "kJ",
    "나노미터": "nm",
    "마이크로미터": "um",
    "밀리미터": "mm",
    "센티미터": "cm",
    "킬로미터": "km",
    "미터": "m",
    "옹스트롬": "angstrom",
    "킬로그램": "kg",
    "그램": "g",
    "킬로와트시": "kWh",
    "메가와트시": "MWh",
    "킬로와트": "kW",
    "메가와트": "MW",
    "와트": "W",
    "뉴턴": "N",
    "기압": "atm",
}
_NAMES = "|".join(sorted(KOREAN_UNIT_NAMES, key=len, reverse=True))
#: "전자볼트로" (before 로 / 으로), or "in 전자볼트" in a mixed request.
_KOREAN_NAMED = re.compile(
    rf"(?<![가-힣])({_NAMES})(?:으로|로)(?![가-힣])|\b(?:in|as|into|to)\s+({_NAMES})(?![가-힣])",
    re.IGNORECASE,
)


def _plainly_a_unit(token: str) -> bool:
    if token in UNIT_ALIASES or token.lower() in _UNIT_WORDS or token[:1] in "Å\u212b":
        return True
    return bool(re.search(r"[A-Z0-9°℃℉µμ%/^Å\u212b]", token[1:] if token[:1].isupper() else token))


def asked_units(query: str) -> list[str]:
    """The units ``query`` asks its values in, in order, each once."""
    found: list[str] = []
    for pattern in (_ENGLISH, _KOREAN):
        for match in pattern.finditer(query):
            token = match.group(1).rstrip(".,;:")
            if not _plainly_a_unit(token):
                continue
            try:
                unit = parse_unit(token)
            except UnitError:
                if token.lower() not in _UNIT_WORDS:
                    continue
                token = token.lower()  # a unit's name opening a sentence: "Angstroms"
                try:
                    unit = parse_unit(token)
                except UnitError:
                    continue
            if token in found or not unit.dimensionality:
                continue  # a ratio ("in percent") has nothing to convert between
            found.append(token)
    for match in _DEGREES.finditer(query):
        scale = _SCALES[match.group(1).lower()]
        if scale not in found:
            found.append(scale)
    for match in _KOREAN_NAMED.finditer(query):
        symbol = KOREAN_UNIT_NAMES[match.group(1) or match.group(2)]
        if symbol not in found:
            found.append(symbol)
    return found


def _conversion(unit: str, asked: str) -> str:
    scale, offset = pint_factor(unit, asked)
    if offset:
        sign = "+" if offset >= 0 else "-"
        return f"x {unit} = x * {scale:.6g} {sign} {abs(offset):.6g} {asked}"
    return f"1 {unit} = {scale:.6g} {asked}"


def asked_unit_notes(query: str, steps: Iterable[Any]) -> list[str]:
    """A note per planned field that comes in another unit of the dimension the request asks
    for (``steps``: plan steps, their ``meta`` giving each field's ``canonical_unit``)."""
    asked = asked_units(query)
    if not asked:
        return []
    notes: list[str] = []
    for step in steps:
        meta: dict[str, dict[str, Any]] = getattr(step, "meta", {}) or {}
        for name, info in meta.items():
            unit = info.get("canonical_unit") or info.get("unit")
            if not unit:
                continue
            source = info.get("unit")
            note = _note(name, str(unit), asked, step.route_id, source=source and str(source))
            if note:
                notes.append(note)
    return notes


def _note(
    name: str, unit: str, asked: Sequence[str], route_id: str, *, source: str | None = None
) -> str | None:
    """The note of a field that comes in ``unit``, normalized from ``source`` where a spec
    declares it: a field the server sends in the unit asked for, normalized away from it,
    says where that value is (it said "comes in MJ (its declared unit) and is not converted"
    of a field declared in the kWh asked for; trial A)."""
    try:
        have = parse_unit(unit)
    except UnitError:
        return None
    normalized = source is not None and source != unit
    for want in asked:
        wanted = parse_unit(want)
        if wanted.dimensionality != have.dimensionality or wanted == have:
            continue
        if normalized and _reads_as(source, wanted):
            return (
                f"the request asks for {want}; {name} of {route_id} comes in {source} and is "
                f"normalized to {unit} as declared: the field's raw_value holds it in {source}"
            )
        told = f"normalized from {source} as declared" if normalized else "its declared unit"
        return (
            f"the request asks for {want}; {name} of {route_id} comes in {unit} ({told}) and "
            f"is not converted: {_conversion(unit, want)}"
        )
    return None


def _reads_as(unit: str | None, wanted: Any) -> bool:
    try:
        return unit is not None and parse_unit(unit) == wanted
    except UnitError:
        return False
