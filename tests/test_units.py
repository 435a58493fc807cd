"""Units: alias table, pint checks, declared normalization only."""

from __future__ import annotations

import contextlib
import math
import sys

import pytest

from schemarouter.contracts import OutputField, UnitNormalizationSpec
from schemarouter.errors import UnitError
from schemarouter.units import (
    check_field_units,
    check_spec,
    dimension_of,
    normalize,
    parse_unit,
    pint_factor,
)


@pytest.mark.parametrize(
    ("unit", "dimension"),
    [
        ("Å", "[length]"),
        ("Å^3", "[length] ** 3"),
        ("eV/atom", "[mass] * [length] ** 2 / [time] ** 2 / [substance]"),
        ("μB", "[current] * [length] ** 2"),
        ("µB", "[current] * [length] ** 2"),
        ("g/cm^3", "[mass] / [length] ** 3"),
        ("GPa", "[mass] / [length] / [time] ** 2"),
        ("g/mol", "[mass] / [substance]"),
        ("°C", "[temperature]"),
        ("KRW", "[currency_KRW]"),
        ("€", "[currency_EUR]"),
        # Korean spellings (trial K: x-unit '원' was left off as unknown)
        ("원", "[currency_KRW]"),
        ("₩", "[currency_KRW]"),
        ("일", "[time]"),
        ("킬로그램", "[mass]"),
        ("센티미터", "[length]"),
        ("JPY", "[currency_JPY]"),
        ("kW", "[mass] * [length] ** 2 / [time] ** 3"),
    ],
)
def test_alias_table(unit: str, dimension: str) -> None:
    assert dimension_of(unit) == dimension


@pytest.mark.parametrize(
    ("unit", "canonical", "factor"),
    [
        ("W/mK", "W/(m*K)", 1.0),  # pint alone: watt per millikelvin, 1000x
        ("W/(m·K)", "W/(m*K)", 1.0),
        ("W/m·K", "W/(m*K)", 1.0),
        ("kg/m3", "g/cm**3", 0.001),
        ("at.%", "percent", 1.0),  # pint alone: percent * technical atmosphere
        ("wt%", "percent", 1.0),
        # trial U1 (low): pint reads what follows a slash's first factor into the numerator
        # ("J/mol K" as J K/mol), "W/mk" as watt per milli-Boltzmann-constant and "mW/mK"
        # as milliwatt per millikelvin
        ("J/mol K", "J/(mol*K)", 1.0),
        ("J/mol·K", "J/(mol*K)", 1.0),
        ("J/kg K", "J/(g*K)", 0.001),
        ("W/m K", "W/(m*K)", 1.0),
        ("W/m.K", "W/(m*K)", 1.0),
        ("W/mk", "W/(m*K)", 1.0),
        ("mW/mK", "W/(m*K)", 0.001),
        ("cal/g °C", "J/(g*K)", 4.184),
    ],
)
def test_datasheet_spellings_read_as_written(unit: str, canonical: str, factor: float) -> None:
    """Trial T3 (low): "W/mK" read as watt per millikelvin and "at.%" as percent times a
    technical atmosphere; "kg/m3" and "wt%" were unknown."""
    assert pint_factor(unit, canonical) == pytest.approx((factor, 0.0))


def test_pint_alone_would_misread_mu_b() -> None:
    import pint

    assert str(pint.UnitRegistry().parse_units("μB")) == "microbyte"  # why the table exists
    assert str(parse_unit("μB")) == "bohr_magneton"


@pytest.mark.parametrize("unit", ["%RH", "% RH", "%rh", "% rh"])
def test_relative_humidity_is_a_percent(unit: str) -> None:
    """pint alone reads ``%RH`` as percent * ronnahenry (an inductance) and ``%rh`` as
    percent * rontohour (trial N §3)."""
    assert parse_unit(unit) == parse_unit("%")
    assert dimension_of(unit) == "dimensionless"
    humidity = OutputField(name="humidity", unit=unit, dimension="dimensionless")
    check_field_units(humidity, where="telemetry.yaml")  # refused before: [mass] * [length] ...


@pytest.mark.parametrize(
    ("unit", "reads_as"),
    [
        ("degrees C", "degC"),
        ("degree C", "degC"),
        ("deg C", "degC"),
        ("Celsius", "degC"),
        ("℃", "degC"),
        ("degrees F", "degF"),
        ("degree F", "degF"),
        ("deg F", "degF"),
        ("°F", "degF"),
        ("Fahrenheit", "degF"),
        ("℉", "degF"),
        ("pct", "percent"),
    ],
)
def test_temperatures_and_percent_as_datasheets_spell_them(unit: str, reads_as: str) -> None:
    """pint alone reads ``degrees C`` as degree * coulomb, ``deg F`` as degree * farad and
    ``pct`` as picocarat: an OpenAPI ``x-unit`` with no dimension registered as a charge, and
    a declared ``temperature`` was refused as "[current] * [time]" (an energy trial)."""
    assert parse_unit(unit) == parse_unit(reads_as)
    dimension = "dimensionless" if reads_as == "percent" else "temperature"
    check_field_units(OutputField(name="t", unit=unit, dimension=dimension), where="plant.yaml")
    if reads_as == "degF":
        spec = UnitNormalizationSpec(
            source_unit=unit,
            canonical_unit="degC",
            dimension="temperature",
            scale=5 / 9,
            offset=-160 / 9,
        )
        check_spec(spec)
        assert normalize(212.0, spec) == pytest.approx(100.0)


def test_unknown_units_are_refused() -> None:
    for bad in ("furlongz", "μQ", "Å^x", ""):
        with pytest.raises(UnitError):
            parse_unit(bad)


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (
            UnitNormalizationSpec(
                source_unit="GPa", canonical_unit="Pa", dimension="pressure", scale=1e9
            ),
            2.5,
            2.5e9,
        ),
        (
            UnitNormalizationSpec(
                source_unit="°C", canonical_unit="K", dimension="temperature", offset=273.15
            ),
            25.0,
            298.15,
        ),
        (
            UnitNormalizationSpec(
                source_unit="eV/atom",
                canonical_unit="kJ/mol",
                dimension="energy_per_amount",
                scale=96.48533212331002,
            ),
            -1.0,
            -96.48533212331002,
        ),
        (
            UnitNormalizationSpec(
                source_unit="Å^3", canonical_unit="nm^3", dimension="volume", scale=1e-3
            ),
            40.0,
            0.04,
        ),
        (
            UnitNormalizationSpec(
                source_unit="g/cm^3", canonical_unit="kg/m^3", dimension="density", scale=1000.0
            ),
            2.33,
            2330.0,
        ),
    ],
)
def test_declared_specs_agree_with_pint_and_apply(
    spec: UnitNormalizationSpec, value: float, expected: float
) -> None:
    check_spec(spec)
    assert math.isclose(normalize(value, spec), expected, rel_tol=1e-12)
    one = normalize(value, spec)
    assert normalize([value, [value]], spec) == [one, [one]]
    assert normalize(None, spec) is None and normalize("n/a", spec) == "n/a"


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (
            UnitNormalizationSpec(
                source_unit="degC", canonical_unit="K", dimension="temperature", offset=273.15
            ),
            -120.5,
            152.65,
        ),
        (
            UnitNormalizationSpec(
                source_unit="GPa", canonical_unit="kbar", dimension="pressure", scale=10.0
            ),
            0.029,
            0.29,
        ),
        (
            UnitNormalizationSpec(
                source_unit="mm", canonical_unit="cm", dimension="length", scale=0.1
            ),
            2.3,
            0.23,
        ),
    ],
)
def test_a_converted_value_carries_no_float_noise(
    spec: UnitNormalizationSpec, value: float, expected: float
) -> None:
    """Trial T3 (low): -120.5 degC came back as 152.64999999999998 K."""
    assert spec.apply(value) != expected  # the arithmetic's last bit
    assert normalize(value, spec) == expected


def test_rounding_never_makes_the_largest_float_infinite() -> None:
    """Trial U1 (low): 15 significant digits of 1.7976931348623157e308 read inf."""
    spec = UnitNormalizationSpec(
        source_unit="GPa", canonical_unit="GPa", dimension="pressure", scale=1.0
    )
    largest = sys.float_info.max
    assert normalize(largest, spec) == largest and normalize(-largest, spec) == -largest
    assert normalize(math.inf, spec) == math.inf


def test_wrong_factor_names_both_values() -> None:
    spec = UnitNormalizationSpec(
        source_unit="°C", canonical_unit="K", dimension="temperature", offset=273.0
    )
    with pytest.raises(UnitError, match=r"offset=273\.0 but pint gives .*offset=273\.15"):
        check_spec(spec)


def test_dimension_mismatch_and_unknown_dimension() -> None:
    with pytest.raises(UnitError, match="not the declared 'length'"):
        check_spec(
            UnitNormalizationSpec(
                source_unit="GPa", canonical_unit="Pa", dimension="length", scale=1e9
            )
        )
    with pytest.raises(UnitError, match="unknown dimension 'awesomeness'"):
        check_spec(
            UnitNormalizationSpec(
                source_unit="GPa", canonical_unit="Pa", dimension="awesomeness", scale=1e9
            )
        )


def test_a_dimension_mismatch_says_how_the_unit_was_read() -> None:
    """'C' on a datasheet means Celsius; pint reads it as coulomb. The refusal said only
    "has dimension [current] * [time]", which does not say the unit was misread."""
    with pytest.raises(
        UnitError, match=r"'C' has dimension \[current\] \* \[time\] \(read as coulomb\)"
    ) as caught:
        check_field_units(OutputField(name="t", unit="C", dimension="temperature"), where="x")
    assert "not the declared 'temperature'" in str(caught.value)


def test_currencies_never_convert() -> None:
    """Said so (trial A, low): "unit 'USD' has dimension [currency_USD], not the declared
    'currency_krw'" read as a typo to fix, when no exchange is ever declared."""
    with pytest.raises(UnitError, match="another currency than the declared") as caught:
        check_spec(
            UnitNormalizationSpec(
                source_unit="KRW", canonical_unit="USD", dimension="currency_krw", scale=0.00075
            )
        )
    assert "currencies never convert" in str(caught.value)
    with pytest.raises(UnitError, match="'EUR' is another currency than the declared 'USD'"):
        check_field_units(OutputField(name="price", unit="EUR", dimension="USD"), where="x")


def test_field_errors_name_the_field() -> None:
    item = OutputField(name="gap", unit="eV", dimension="volume")
    with pytest.raises(UnitError) as caught:
        check_field_units(item, where="doc.yaml: providers[0]")
    assert caught.value.where == "doc.yaml: providers[0], field 'gap'"


def test_units_are_optional() -> None:
    for item in (
        OutputField(name="formula", json_schema={"type": "string"}),
        OutputField(name="is_stable", json_schema={"type": "boolean"}),
        OutputField(name="nsites", json_schema={"type": "integer"}, unit="dimensionless"),
    ):
        check_field_units(item, where="x")


def test_power_speed_and_more_currencies_a_home_energy_or_travel_app_declares() -> None:
    """A home-energy catalog declared ``dimension: power`` and a travel one ``EUR``: both
    were refused ("unknown dimension 'power'"; only KRW and USD existed; trial M §10)."""
    watts = UnitNormalizationSpec(
        source_unit="kW", canonical_unit="W", dimension="power", scale=1000.0
    )
    check_spec(watts)
    assert normalize(2.5, watts) == pytest.approx(2500.0)
    check_spec(
        UnitNormalizationSpec(
            source_unit="km/h", canonical_unit="m/s", dimension="speed", scale=1 / 3.6
        )
    )
    check_field_units(OutputField(name="fare", unit="EUR", dimension="currency_eur"), where="t")
    with pytest.raises(UnitError):  # a currency never converts into another
        check_spec(
            UnitNormalizationSpec(
                source_unit="EUR", canonical_unit="USD", dimension="currency_eur", scale=1.08
            )
        )


def test_a_normalization_on_a_field_that_holds_no_number_is_refused() -> None:
    """Trial Q §6: a string field with unit eV and a normalization eV -> meV registered
    silently, and execution returned '3.4' eV, normalized False."""
    spec = UnitNormalizationSpec(
        source_unit="eV", canonical_unit="meV", dimension="energy", scale=1000.0
    )
    for schema in ({"type": "string"}, {"type": "array", "items": {"type": "string"}}):
        item = OutputField(name="gap", json_schema=schema, unit="eV", normalization=spec)
        with pytest.raises(UnitError, match="holds no number") as caught:
            check_field_units(item, where="lab.yaml: providers[0]")
        assert caught.value.where == "lab.yaml: providers[0], field 'gap'"
        assert "json_schema type as number" in str(caught.value.hint)
    # numbers, lists of numbers, nullable numbers and undeclared types still normalize
    for schema in (
        {"type": "number"},
        {"type": ["number", "null"]},
        {"type": "array", "items": {"type": "integer"}},
        {"anyOf": [{"type": "number"}, {"type": "null"}]},
        {},
    ):
        item = OutputField(name="gap", json_schema=schema, unit="eV", normalization=spec)
        check_field_units(item, where="x")
    # a unit alone on a string stays metadata
    check_field_units(OutputField(name="f", json_schema={"type": "string"}, unit="eV"), where="x")


def test_stray_punctuation_in_a_unit_is_refused() -> None:
    """Trial Q §8: pint's parser dropped it: 'eV?' read as electron_volt, 'GPa!' as
    gigapascal, 'm?s' as meter*second, so a provider's typo registered silently."""
    for bad in ("eV?", "GPa!", "K?", "m?s", "eV,", "kJ/mol;", "g/cm^3'"):
        with pytest.raises(UnitError, match="is no part of a unit") as caught:
            parse_unit(bad)
        assert repr(bad) in caught.value.what
    for good in ("eV", "GPa", "J/(mol*K)", "g/cm^3", "m s^-1", "%RH", "°C", "1/s"):
        parse_unit(good)


@pytest.mark.parametrize(
    ("source", "canonical"),
    [("at%", "wt%"), ("wt%", "at.%"), ("wt.%", "mol%"), ("at.%", "wt.%")],
)
def test_a_mass_fraction_never_converts_to_an_atomic_one(source: str, canonical: str) -> None:
    """Trial U1 (medium): with "wt%" and "at%" both read as percent (since e1ee955), a
    declared normalization from at% to wt% at scale 1 passed the check against pint, and
    its values (1.7 at% Cu in Al) were served labelled 1.7 wt% (4 wt%, in truth)."""
    spec = UnitNormalizationSpec(
        source_unit=source, canonical_unit=canonical, dimension="dimensionless", scale=1.0
    )
    with pytest.raises(UnitError, match="without the material's composition"):
        check_spec(spec)
    field = OutputField(
        name="cu_content", unit=source, dimension="dimensionless", normalization=spec
    )
    with pytest.raises(UnitError, match=r"reads .* fraction as .* fraction"):
        check_field_units(field, where="catalog alloys")
    # the same basis, or plain percent, converts as before
    check_spec(spec.model_copy(update={"canonical_unit": "percent"}))
    check_spec(spec.model_copy(update={"canonical_unit": source}))


@pytest.mark.parametrize(
    ("source", "canonical"),
    [("wt %", "at %"), ("wt. %", "mol%"), ("wt %", "at%"), ("at %", "wt.%")],
)
def test_a_mass_fraction_written_with_a_space_never_converts_to_an_atomic_one(
    source: str, canonical: str
) -> None:
    """Trial V1 (medium): "wt %" and "at %" (as datasheets space them) are read as wt% and
    at%, but the check that refuses a conversion between a mass and an atomic fraction
    compared the spellings as written: "wt %" -> "at %" at scale 1 was accepted, its values
    served labelled in the other basis."""
    spec = UnitNormalizationSpec(
        source_unit=source, canonical_unit=canonical, dimension="dimensionless", scale=1.0
    )
    with pytest.raises(UnitError, match="without the material's composition"):
        check_spec(spec)


def test_a_long_unit_with_a_slash_is_read_in_linear_time() -> None:
    """Trial V1 (low/medium): the split-denominator rule of 8c9c595 matched in quadratic
    time ("J/" + "a " * 4000: 0.12 s; reached at registration through units an upstream or a
    document declares). 200,000 factors now take milliseconds; the bound is generous."""
    import time

    from schemarouter.units import _pint_expression

    started = time.process_time()  # CPU: other jobs' load is not ours
    for unit in ("J/" + "a " * 200_000 + "(", "J/a" + " " * 400_000 + "x"):
        with contextlib.suppress(ValueError):
            _pint_expression(unit)  # what reads the unit before pint does
    assert time.process_time() - started < 1.0
