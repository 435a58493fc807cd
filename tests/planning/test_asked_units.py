"""A unit the request asks for, when the planned field comes in another (trial U).

"energy used by site P-1 in MWh" planned the kWh field and said nothing: the values came in
kWh, correctly labelled, but the unit asked for was dropped without a word. Nothing converts
them (units convert only by a declared spec): the plan's warnings now say what the field
comes in and how to convert it.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from schemarouter import SchemaRouter, capability
from schemarouter.index import HashingEncoder
from schemarouter.planning.asked_units import asked_units


class Usage(BaseModel):
    site: str
    energy_kwh: float
    temperature_c: float


@capability(
    fields={
        "energy_kwh": {"unit": "kWh", "dimension": "energy"},
        "temperature_c": {"unit": "degC", "dimension": "temperature"},
    }
)
def site_usage(site: str) -> Usage:
    """Energy used by a site this month and its mean temperature."""
    return Usage(site=site, energy_kwh=1500.0, temperature_c=20.0)


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_callable(site_usage, provider="meters")
    return router


def test_a_unit_asked_for_is_named_with_the_conversion(router: SchemaRouter) -> None:
    plan = router.plan("energy used by site P-1 in MWh")
    assert (
        "the request asks for MWh; energy_kwh of meters/python/site_usage comes in kWh (its "
        "declared unit) and is not converted: 1 kWh = 0.001 MWh"
    ) in plan.warnings
    assert not any("temperature_c" in w for w in plan.warnings)  # another dimension
    hot = router.plan("mean temperature at site P-1 in Fahrenheit")
    assert any(
        "temperature_c of meters/python/site_usage comes in degC" in w
        and "x degC = x * 1.8 + 32 Fahrenheit" in w
        for w in hot.warnings
    ), hot.warnings
    korean = router.plan("P-1 사이트 전력 사용량을 MWh로")
    assert any(w.startswith("the request asks for MWh;") for w in korean.warnings)
    # the unit it comes in, or none asked: nothing said
    for request in ("energy used by site P-1 in kWh", "energy used by site P-1"):
        assert not any("asks for" in w for w in router.plan(request).warnings)


def test_angstrom_asked_of_a_field_in_nm_is_named(router: SchemaRouter) -> None:
    lattice = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )

    @capability(fields={"result": {"unit": "nm", "dimension": "length"}})
    def lattice_a(formula: str) -> float:
        """Lattice parameter a of a crystal in our group's database."""
        return 0.5431

    lattice.add_callable(lattice_a, provider="grp")
    plan = lattice.plan("lattice parameter a of Si in Å")
    assert any(
        w.startswith("the request asks for Å; result of grp/python/lattice_a comes in nm")
        and "1 nm = 10 Å" in w
        for w in plan.warnings
    ), plan.warnings


@pytest.mark.parametrize(
    ("request_text", "units"),
    [
        ("pressure of line 4 in bar", ["bar"]),
        ("flow in L/min, and the head in psi", ["L/min", "psi"]),
        ("show the readings in a chart", []),
        ("what did the meter read in March", []),
        ("export it as CSV", []),
        ("answer in Korean", []),
        ("the share in percent", []),  # a ratio: nothing to convert between
        # lengths of crystal structures (trial O: "in Å" was read as no unit)
        ("lattice parameter a of Si in Å", ["Å"]),
        ("lattice parameter a of Si in \u212b", ["\u212b"]),
        ("the cell volume in Å^3", ["Å^3"]),
        ("lattice constants in angstrom", ["angstrom"]),
        ("bond lengths in Angstroms", ["angstroms"]),
        ("thickness in nanometers", ["nanometers"]),
    ],
)
def test_only_a_word_that_is_plainly_a_unit_is_read(request_text: str, units: list[str]) -> None:
    assert asked_units(request_text) == units


@pytest.mark.parametrize(
    ("request_text", "units"),
    [
        # Korean units by name (trial X4: only "eV로" was read, "전자볼트로" was not)
        ("km-101의 최대 포논 진동수를 전자볼트로 알려줘", ["eV"]),
        ("GaN의 밴드갭을 밀리전자볼트로", ["meV"]),
        ("시료 S-13의 경도를 기가파스칼로 알려줘", ["GPa"]),
        ("디바이 온도를 켈빈으로", ["K"]),
        ("phonon frequency of km-102 in 전자볼트", ["eV"]),
        ("바로 알려줘", []),  # "at once", no bar
        ("밴드갭이 2 전자볼트 이상인 소재", []),  # a bound, not a unit asked for
    ],
)
def test_a_korean_unit_name_asked_for_is_read(request_text: str, units: list[str]) -> None:
    assert asked_units(request_text) == units


def test_a_unit_asked_for_by_its_korean_name_is_named_with_the_conversion(
    router: SchemaRouter,
) -> None:
    plan = router.plan("P-1 사이트 전력 사용량을 메가와트시로")
    assert (
        "the request asks for MWh; energy_kwh of meters/python/site_usage comes in kWh (its "
        "declared unit) and is not converted: 1 kWh = 0.001 MWh"
    ) in plan.warnings
    hot = router.plan("P-1 사이트의 평균 온도를 화씨로")
    assert any("comes in degC" in w and "x degC = x * 1.8 + 32 degF" in w for w in hot.warnings)


def test_every_korean_unit_name_reads_as_a_unit_pint_knows() -> None:
    from schemarouter.planning.asked_units import KOREAN_UNIT_NAMES
    from schemarouter.units import parse_unit

    for name, symbol in KOREAN_UNIT_NAMES.items():
        particle = "으로" if name == "켈빈" else "로"
        assert asked_units(f"값을 {name}{particle} 알려줘") == [symbol], name
        assert parse_unit(symbol).dimensionality, symbol


@pytest.mark.parametrize(
    ("request_text", "units"),
    [
        # trial X3: "in degrees Fahrenheit" was read as no unit, and the plan fetched degC
        # (normalized to K) saying nothing of the Fahrenheit asked for
        ("freezer F-1 temperature in degrees Fahrenheit", ["degF"]),
        ("freezer F-1 temperature in degrees Celsius", ["degC"]),
        ("mean temperature in degree F", ["degF"]),
        ("mean temperature in deg. C, please", ["degC"]),
        ("mean temperature in degrees kelvin", ["K"]),
        ("turn the valve by 30 degrees", []),  # an angle, nothing asked
        ("rotate it in degrees", []),
    ],
)
def test_a_temperature_asked_for_in_degrees_is_read(request_text: str, units: list[str]) -> None:
    assert asked_units(request_text) == units


def test_a_temperature_asked_for_in_degrees_is_named(router: SchemaRouter) -> None:
    hot = router.plan("mean temperature at site P-1 in degrees Fahrenheit")
    assert any(
        "temperature_c of meters/python/site_usage comes in degC" in w
        and "x degC = x * 1.8 + 32 degF" in w
        for w in hot.warnings
    ), hot.warnings
