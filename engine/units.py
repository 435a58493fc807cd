"""Units: an explicit alias table, pint checks at registration, declared normalization.

pint alone misreads some provider strings (``μB`` parses as *microbyte*, ``eV/atom`` fails),
so every unit string first goes through :data:`UNIT_ALIASES`; what is not in the table must
parse with pint and is checked against a declared dimension. A conversion is applied only
where a trusted :class:`~schemarouter.contracts.UnitNormalizationSpec` declares it, and the
declared factor must agree with pint's own.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import OutputField, UnitNormalizationSpec
from schemarouter.errors import UnitError

if TYPE_CHECKING:  # pint loads lazily (it takes ~0.1 s)
    import pint

__all__ = [
    "DIMENSIONS",
    "UNIT_ALIASES",
    "check_field_units",
    "check_spec",
    "dimension_of",
    "normalize",
    "parse_unit",
    "pint_factor",
]

#: Provider unit strings -> pint expressions. Keys are matched exactly, then after
#: whitespace removal.
UNIT_ALIASES: dict[str, str] = {
    "Å": "angstrom",
    "Å^2": "angstrom**2",
    "Å^3": "angstrom**3",
    "Å²": "angstrom**2",
    "Å³": "angstrom**3",
    "Å^-1": "1/angstrom",
    "1/Å": "1/angstrom",
    "A^3": "angstrom**3",
    "ang": "angstrom",
    "angstrom^3": "angstrom**3",
    "eV/atom": "eV/atom",
    "meV/atom": "meV/atom",
    "eV/Å": "eV/angstrom",
    "eV/Å^2": "eV/angstrom**2",
    "eV/Å^3": "eV/angstrom**3",
    "eV/A^3": "eV/angstrom**3",
    "μB": "bohr_magneton",
    "µB": "bohr_magneton",  # MICRO SIGN as well as GREEK SMALL LETTER MU
    "mu_B": "bohr_magneton",
    "muB": "bohr_magneton",
    "μB/atom": "bohr_magneton/atom",
    "µB/atom": "bohr_magneton/atom",
    "μB/f.u.": "bohr_magneton",
    "g/cm^3": "g/cm**3",
    "g/cm3": "g/cm**3",
    "g cm^-3": "g/cm**3",
    "kg/m^3": "kg/m**3",
    "g/mol": "g/mol",
    "amu": "dalton",
    "Da": "dalton",
    "GPa": "GPa",
    "MPa": "MPa",
    "Pa": "Pa",
    "kbar": "kilobar",
    "K": "kelvin",
    "°C": "degC",
    "degC": "degC",
    # temperatures as datasheets spell them: pint alone reads "degrees C" as degree (an
    # angle) * coulomb and "deg F" as degree * farad (matched after whitespace removal)
    "degreeC": "degC",
    "degreesC": "degC",
    "℃": "degC",
    "Celsius": "degC",
    "°F": "degF",
    "degF": "degF",
    "degreeF": "degF",
    "degreesF": "degF",
    "℉": "degF",
    "Fahrenheit": "degF",
    "kJ/mol": "kJ/mol",
    "kcal/mol": "kcal/mol",
    "J/mol": "J/mol",
    "J/(mol K)": "J/(mol*K)",
    "J/mol/K": "J/(mol*K)",
    "W/(m K)": "W/(m*K)",
    "W/m/K": "W/(m*K)",
    # as datasheets write them: pint alone reads "W/mK" as watt per millikelvin (a factor of
    # 1000), "at.%" as percent times a technical atmosphere, and knows no "kg/m3" (trial T3)
    "W/mK": "W/(m*K)",
    "W/m·K": "W/(m*K)",
    "W/(m·K)": "W/(m*K)",
    "J/(mol·K)": "J/(mol*K)",
    "kg/m3": "kg/m**3",
    # "k" is the Boltzmann constant and "mK" a millikelvin to pint: as datasheets write a
    # thermal conductivity, "W/mk" is W/(m K) and "mW/mK" mW/(m K) (trial U1)
    "W/mk": "W/(m*K)",
    "mW/mK": "mW/(m*K)",
    "mW/(m K)": "mW/(m*K)",
    "wt%": "percent",
    "wt.%": "percent",
    "at%": "percent",
    "at.%": "percent",
    "mol%": "percent",
    "S/cm": "S/cm",
    "S/m": "S/m",
    "Ohm m": "ohm*m",
    "μV/K": "microvolt/K",
    "µV/K": "microvolt/K",
    "e/Å^3": "elementary_charge/angstrom**3",
    "cm^2/(V s)": "cm**2/(V*s)",
    "cm^-1": "1/cm",
    "nm": "nm",
    "pm": "pm",
    "degree": "degree",
    "degrees": "degree",
    "°": "degree",
    "eV": "eV",
    "meV": "meV",
    "Ry": "rydberg",
    "Ha": "hartree",
    "KRW": "KRW",
    # Korean spellings, as a Korean team's own OpenAPI document writes its x-unit (trial K)
    "₩": "KRW",
    "원": "KRW",
    "일": "day",
    "시간": "hour",
    "분": "minute",
    "킬로그램": "kg",
    "그램": "g",
    "킬로미터": "km",
    "미터": "m",
    "센티미터": "cm",
    "밀리미터": "mm",
    "USD": "USD",
    "EUR": "EUR",
    "€": "EUR",
    "GBP": "GBP",
    "£": "GBP",
    "JPY": "JPY",
    "CNY": "CNY",
    "%": "percent",
    # relative humidity as datasheets write it: pint reads "%RH" as percent * ronnahenry
    "%RH": "percent",
    "% RH": "percent",
    "%rh": "percent",
    "percent": "percent",
    "pct": "percent",  # pint alone: picocarat, a mass
    "ppm": "ppm",
    "mg/L": "mg/L",
    "mg/kg": "mg/kg",
    "s": "second",
    "ms": "millisecond",
    "d": "day",
    "year": "year",
    "count": "count",
    "atoms": "atom",
    "1": "dimensionless",
    "dimensionless": "dimensionless",
}

#: Dimension names a catalog may declare -> pint dimensionality strings.
DIMENSIONS: dict[str, str] = {
    "dimensionless": "dimensionless",
    "length": "[length]",
    "inverse_length": "1/[length]",
    "area": "[length]**2",
    "volume": "[length]**3",
    "mass": "[mass]",
    "time": "[time]",
    "temperature": "[temperature]",
    "pressure": "[mass]/[length]/[time]**2",
    "force": "[mass]*[length]/[time]**2",
    "speed": "[length]/[time]",
    "frequency": "1/[time]",
    "power": "[mass]*[length]**2/[time]**3",
    "voltage": "[mass]*[length]**2/[time]**3/[current]",
    "electric_current": "[current]",
    "energy": "[mass]*[length]**2/[time]**2",
    "energy_per_amount": "[mass]*[length]**2/[time]**2/[substance]",
    "energy_per_length": "[mass]*[length]/[time]**2",
    "energy_per_area": "[mass]/[time]**2",
    "energy_per_volume": "[mass]/[length]/[time]**2",
    "entropy_per_amount": "[mass]*[length]**2/[time]**2/[substance]/[temperature]",
    "thermal_conductivity": "[mass]*[length]/[time]**3/[temperature]",
    "electrical_conductivity": "[current]**2*[time]**3/[mass]/[length]**3",
    "electrical_resistivity": "[mass]*[length]**3/[current]**2/[time]**3",
    "seebeck_coefficient": "[mass]*[length]**2/[current]/[time]**3/[temperature]",
    "magnetic_moment": "[current]*[length]**2",
    "magnetic_moment_per_amount": "[current]*[length]**2/[substance]",
    "density": "[mass]/[length]**3",
    "molar_mass": "[mass]/[substance]",
    "charge_density": "[current]*[time]/[length]**3",
    "mobility": "[current]*[time]**2/[mass]",
    "angle": "dimensionless",
    "currency_krw": "[currency_KRW]",
    "currency_usd": "[currency_USD]",
    "currency_eur": "[currency_EUR]",
    "currency_gbp": "[currency_GBP]",
    "currency_jpy": "[currency_JPY]",
    "currency_cny": "[currency_CNY]",
    "concentration": "[mass]/[length]**3",
    "mass_fraction": "dimensionless",
    "count": "dimensionless",
}

_TRUSTED_REL_TOL = 1e-6


@functools.cache
def _registry() -> pint.UnitRegistry[Any]:
    try:
        import pint
    except ImportError as exc:  # pragma: no cover - pint is a core dependency
        raise ImportError("pint is required: pip install pint") from exc
    ureg: pint.UnitRegistry[Any] = pint.UnitRegistry()
    ureg.define("atom = particle = _ = atoms")
    ureg.define("formula_unit = particle = f_u")
    # currencies are their own dimensions: no static exchange rate is ever implied
    ureg.define("KRW = [currency_KRW] = won")
    ureg.define("USD = [currency_USD] = us_dollar")
    ureg.define("EUR = [currency_EUR] = euro")
    ureg.define("GBP = [currency_GBP] = pound_sterling")
    ureg.define("JPY = [currency_JPY] = yen")
    ureg.define("CNY = [currency_CNY] = yuan = renminbi")
    return ureg


class _Refused(ValueError):
    """A unit string refused before pint reads it (the message says why)."""


#: Punctuation no unit holds (a provider's typo: 'eV?', 'GPa!'), refused before pint drops it.
_STRAY = re.compile(r"[?!,;:'\"`~@#$&=|\\<>\[\]{}]")


def _pint_expression(unit: str) -> str:
    text = unit.strip()
    if not text:
        raise ValueError("the unit is empty (omit the unit instead)")
    if text in UNIT_ALIASES:
        return UNIT_ALIASES[text]
    compact = re.sub(r"\s+", "", text)
    if compact in UNIT_ALIASES:
        return UNIT_ALIASES[compact]
    if any(ch in text for ch in "μµÅ"):
        # pint reads μ as micro and has no Å: refuse rather than misread.
        raise ValueError(f"unit {unit!r} is not in the alias table")
    if len(text) > MAX_UNIT_LENGTH:  # pint tries every prefix on every name: minutes
        raise _Refused(f"{len(text)} characters, longer than any unit ({MAX_UNIT_LENGTH} at most)")
    stray = _STRAY.search(text)
    if stray:  # pint's parser drops these: 'eV?' read as eV, 'm?s' as m*s
        raise _Refused(f"{stray.group(0)!r} is no part of a unit (a typo?)")
    expression = _one_denominator(text).replace("^", "**")
    _check_numbers(expression)
    return expression


#: The longest unit string pint is given (an alias of the table may be longer): pint tries
#: each of its prefixes and suffixes on each name, so 40,000 characters ("kilo" * 10,000)
#: took 9 s and a name of 1,000,000 letters more than minutes (fourteenth security review).
MAX_UNIT_LENGTH = 200
#: An exponent as a unit writes one: a plain number, or a fraction in brackets ("m**-3",
#: "m**0.5", "m**(1/2)"); three digits at most before a point.
_EXPONENT = re.compile(
    r"\*\*\s*+(?:[-+]?\s*+\d{1,3}(?:\.\d{1,6})?+"
    r"|\(\s*+[-+]?\s*+\d{1,3}(?:\.\d{1,6})?+(?:\s*+/\s*+\d{1,3})?+\s*+\))(?![\w.])"
)
#: A number standing alone (not a name's digit, as "CO2"'s, nor a sign's after a name, as
#: "cm-3"'s: pint reads "g cm-3" as a difference and refuses it at once, as it always did).
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])(?<![A-Za-z][-+])\d[\d.]*+(?:[eE][-+]?\d++)?+")


def _check_numbers(expression: str) -> None:
    """Refuse numbers pint would compute before it finds that a unit has none: a power of a
    power ("10**10**10 m" ran for ever, pint raising 10 to 10**10 in integers) or an exponent
    that is no plain number, and any number but an exponent or the 1 of "1/s" (pint refuses a
    unit's scaling factor only once it has computed it)."""
    plain = _EXPONENT.sub("**E", expression)
    if re.search(r"\*\*(?!E)", plain):
        raise _Refused("an exponent is no plain number (write m**3, m**-3 or m**(1/2))")
    if re.search(r"\*\*E\s*+\)*+\s*+\*\*", plain):
        raise _Refused("a power of a power (write its exponent as one number)")
    for number in _NUMBER.finditer(plain):
        if number.group() not in ("1", "1.0"):
            raise _Refused(f"{number.group()!r} is no exponent: a unit has no scaling factor")


#: After the one slash of a unit, factors written apart ("mol K", "mol·K", "m.K"), no brackets.
#: In a denominator, two factors written apart ("mol K", "mol·K", "m.K"); spaces are read
#: once (possessive), so a long run of them costs its length, not its square (trial V1).
_APART = re.compile(r"[A-Za-z°](?:\s++|\s*+[·*]\s*+|\.)[A-Za-z°]")
_FACTOR_SEPARATOR = re.compile(r"\s*+[·*]\s*+|\s++|(?<=[A-Za-z])\.(?=[A-Za-z°])")


def _one_denominator(text: str) -> str:
    """``J/mol K`` as a datasheet means it, J/(mol K): pint reads what follows the slash's
    first factor as a factor of the numerator (J K/mol), a conversion off by the
    temperature squared (trial U1: "J/mol K" and "J/mol·K" read so). One slash, no
    brackets, factors written apart after it."""
    if text.count("/") != 1 or "(" in text or ")" in text:
        return text
    numerator, denominator = text.split("/")
    if not numerator.strip() or not _APART.search(denominator):
        return text
    factors = _FACTOR_SEPARATOR.split(denominator.strip())
    return f"{numerator.strip()}/({'*'.join(f for f in factors if f)})"


def parse_unit(unit: str) -> pint.Unit:
    """Parse a provider unit string through the alias table; :class:`UnitError` if unknown."""
    parsed = _parsed(unit)
    if isinstance(parsed, str):
        raise UnitError(
            f"unknown unit {_shown(unit)}: {parsed}",
            hint="Use a unit pint understands (e.g. 'GPa', 'eV/atom', 'angstrom**3') or add "
            "the provider's spelling to schemarouter.units.UNIT_ALIASES",
        )
    return parsed


#: How many unit strings' readings are kept: a unit pint cannot read is kept too (a request
#: of 25,000 "1st" asked pint to read "st" 75,000 times, 6 s: fourteenth security review),
#: and a bound keeps a long-lived router's memory from growing with each request's words.
_PARSED_KEPT = 4096


#: A power written right after its unit's letters, as plants and datasheets write them
#: ("m3/h", "cm2", "ft3"): read as "m**3/h" where pint reads no unit in the text as written
#: (it has no "m3"; "cmH2O" it reads, and is left so). Trial 21: "45 m3/h" was no unit.
_POWER = re.compile(r"(?<![A-Za-z])([A-Za-z]{1,5})([23])(?![\w.*^])")


def _powered(match: re.Match[str]) -> str:
    """A :data:`_POWER` match as pint writes it, where its letters are a length ("m", "cm",
    "ft"): an area or a volume; else as written ("Nm3", a normal cubic metre, is no volume)."""
    letters = _parsed(match.group(1))
    length = not isinstance(letters, str) and str(letters.dimensionality) == "[length]"
    return f"{match.group(1)}**{match.group(2)}" if length else match.group(0)


@functools.lru_cache(maxsize=_PARSED_KEPT)
def _parsed(unit: str) -> pint.Unit | str:
    """``unit`` as pint reads it, or why it cannot (a text: errors are not cached)."""
    ureg = _registry()
    try:
        return ureg.parse_units(_pint_expression(unit))
    except Exception as exc:
        # read only within the bound on a unit's length (each run of letters is parsed)
        powered = _POWER.sub(_powered, unit) if len(unit) <= MAX_UNIT_LENGTH else unit
        if powered != unit and not isinstance(_parsed(powered), str):
            return _parsed(powered)  # "m3/h" as "m**3/h"
        # pint's own errors name a unit it lacks; anything else is its parser failing inside
        # ("unsupported operand type(s) for -: 'ParserHelper' and 'int'" for 'g cm-3')
        own = type(exc).__module__.startswith("pint") or isinstance(exc, _Refused)
        return _shown(str(exc), quoted=False) if own else "pint cannot read it"


def _shown(text: str, *, quoted: bool = True) -> str:
    """``text`` (quoted) for a message, its middle left out past 120 characters."""
    shown = repr(text) if quoted else text
    return shown if len(shown) <= 120 else f"{shown[:80]} ... {shown[-30:]} ({len(text)} chars)"


def dimension_of(unit: str) -> str:
    """The pint dimensionality of ``unit`` as a string (``[length] ** 3``)."""
    return str(parse_unit(unit).dimensionality) or "dimensionless"


def _expected_dimensionality(dimension: str) -> Any:
    ureg = _registry()
    text = DIMENSIONS.get(dimension, dimension)
    if text == "dimensionless":
        return ureg.parse_units("dimensionless").dimensionality
    try:
        return ureg.get_dimensionality(text)
    except Exception:
        raise UnitError(
            f"unknown dimension {dimension!r}",
            hint=f"Use one of: {', '.join(sorted(DIMENSIONS))}, or a pint dimensionality "
            "such as '[mass]/[length]**3'",
        ) from None


def _check_dimension(unit: str, dimension: str) -> None:
    parsed = parse_unit(unit)
    actual = parsed.dimensionality
    expected = _expected_dimensionality(dimension)
    if actual != expected and all("currency_" in str(d) for d in (actual, expected)):
        # trial A: "has dimension [currency_EUR], not the declared 'USD'" read as a typo
        raise UnitError(
            f"unit {unit!r} is another currency than the declared {dimension!r}: currencies "
            "never convert (an exchange rate changes by the minute, and none is declared)",
            hint="Normalize a currency only to itself, or leave the normalization out",
        )
    if actual != expected:
        # how pint read it: 'C' on a datasheet is Celsius, to pint a coulomb
        raise UnitError(
            f"unit {unit!r} has dimension {actual or 'dimensionless'} (read as {parsed}), "
            f"not the declared {dimension!r} ({expected or 'dimensionless'})",
            hint="Fix the declared dimension or the unit (spell it as pint reads it, e.g. "
            "'degC' rather than 'C')",
        )


def pint_factor(source_unit: str, canonical_unit: str) -> tuple[float, float]:
    """``(scale, offset)`` such that canonical = value * scale + offset, per pint."""
    ureg = _registry()
    src, dst = parse_unit(source_unit), parse_unit(canonical_unit)
    zero = ureg.Quantity(0.0, src).to(dst).magnitude
    one = ureg.Quantity(1.0, src).to(dst).magnitude
    return float(one - zero), float(zero)


#: What a percent spelling is a fraction of: all read as ``percent``, but a mass fraction
#: and an amount (atomic, molar) fraction of one alloy differ, and none converts to the other
#: without its composition (Al-4 wt% Cu is about 1.7 at% Cu).
_FRACTION_OF = {
    "wt%": "a mass fraction",
    "wt.%": "a mass fraction",
    "at%": "an atomic or molar fraction",
    "at.%": "an atomic or molar fraction",
    "mol%": "an atomic or molar fraction",
}


def _check_fractions(spec: UnitNormalizationSpec) -> None:
    # as the units are read: "wt %" is wt% (_pint_expression), and no mass fraction either
    source = _FRACTION_OF.get(re.sub(r"\s+", "", spec.source_unit))
    canonical = _FRACTION_OF.get(re.sub(r"\s+", "", spec.canonical_unit))
    if source and canonical and source != canonical:
        raise UnitError(
            f"declared conversion {spec.source_unit!r} -> {spec.canonical_unit!r} reads "
            f"{source} as {canonical}",
            hint="No factor converts one to the other without the material's composition: "
            "declare the field in the unit the provider sends, with no normalization",
        )


def check_spec(spec: UnitNormalizationSpec) -> None:
    """Check a declared normalization against pint; :class:`UnitError` on disagreement
    (and between a mass and an amount fraction, which pint reads as the same percent)."""
    _check_dimension(spec.source_unit, spec.dimension)
    _check_dimension(spec.canonical_unit, spec.dimension)
    _check_fractions(spec)
    scale, offset = pint_factor(spec.source_unit, spec.canonical_unit)
    scale_ok = math.isclose(spec.scale, scale, rel_tol=_TRUSTED_REL_TOL)
    offset_ok = math.isclose(spec.offset, offset, rel_tol=_TRUSTED_REL_TOL, abs_tol=1e-9)
    if not (scale_ok and offset_ok):
        raise UnitError(
            f"declared conversion {spec.source_unit!r} -> {spec.canonical_unit!r} is "
            f"scale={spec.scale!r}, offset={spec.offset!r} but pint gives scale={scale!r}, "
            f"offset={offset!r}",
            hint="Correct the declared scale/offset (canonical = value * scale + offset)",
        )


def _numeric(schema: Any) -> bool:
    """Whether a JSON Schema may hold a number (or a list of them): a declared ``type`` says,
    an ``anyOf`` / ``oneOf`` where a member may, a schema declaring no type may."""
    if not isinstance(schema, dict):
        return True
    members = [m for key in ("anyOf", "oneOf") for m in schema.get(key) or ()]
    if members and any(_numeric(m) for m in members):
        return True
    kind = schema.get("type")
    if kind is None:
        return not members
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if kinds & {"number", "integer"}:
        return True
    return "array" in kinds and _numeric(schema.get("items", {}))


def check_field_units(item: OutputField, *, where: str) -> None:
    """Check one output field's unit, dimension and normalization; errors name ``where``."""
    try:
        if item.unit is not None:
            parse_unit(item.unit)
            if item.dimension is not None:
                _check_dimension(item.unit, item.dimension)
        if item.normalization is not None:
            if not _numeric(item.json_schema):
                raise UnitError(
                    f"declares a normalization {item.normalization.source_unit!r} -> "
                    f"{item.normalization.canonical_unit!r}, but its json_schema "
                    f"(type {item.json_schema.get('type')!r}) holds no number: a normalization "
                    "converts numbers only, so it would never apply",
                    hint="Declare the field's json_schema type as number (or integer) if the "
                    "provider sends numbers, or remove the normalization (the unit alone stays "
                    "as metadata)",
                )
            check_spec(item.normalization)
    except UnitError as exc:
        raise exc.located(f"{where}, field {item.name!r}") from None


def normalize(value: Any, spec: UnitNormalizationSpec) -> Any:
    """Apply a declared spec to a number, or element-wise to a (nested) list of numbers."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return _without_noise(spec.apply(float(value)))
    if isinstance(value, list):
        return [normalize(v, spec) for v in value]
    return value


def _without_noise(value: float) -> float:
    """``value`` at 15 significant digits, the most a float always keeps: -120.5 degC came
    back as 152.64999999999998 K and 2.3 mm as 0.22999999999999998 cm (trial T3): the last
    bit of the arithmetic, not of the measurement. A value whose rounding would pass the
    largest float (1.7976931348623157e308 read inf) stays as computed."""
    if not math.isfinite(value):
        return value
    rounded = float(f"{value:.15g}")
    return rounded if math.isfinite(rounded) else value
