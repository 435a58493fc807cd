"""Hostile unit strings are refused before pint computes them (the fourteenth security review).

A unit reaches pint from a registered document (``x-unit`` of a parameter or an output field,
a declared normalization) and from a request ("in km", "300~500 K"). pint evaluates the
numbers of an expression before it finds that a unit has no scaling factor, and tries each of
its prefixes and suffixes on each name: "10**10**10 m" ran for ever (pint raising 10 to
10**10 in integers, its memory growing), "kilo" * 10,000 took 9 s and a name of 1,000,000
letters more than 15 s. Each is now a :class:`UnitError` that says why, at once, in a forked
child that must answer within :data:`WAIT` seconds (a hang fails the test instead of holding
the run); an ``x-unit`` so written is left off with a warning that names the field.
"""

from __future__ import annotations

import warnings

import pytest
from forking import in_child

from schemarouter import SchemaRouter
from schemarouter.errors import UnitError
from schemarouter.index import HashingEncoder
from schemarouter.units import parse_unit

from helpers import ok, openapi_document

#: Seconds each may take in the child (each takes milliseconds; before: for ever).
WAIT = 20.0

HOSTILE = {
    "10**10**10 m": "a power of a power",
    "9**9**9 m": "a power of a power",
    "(2**999*m)**999**9": "a power of a power",
    "m**(10**10)": "no plain number",
    "m**99999999": "no plain number",
    "m ** 1e308": "no plain number",
    "1e308 km": "no scaling factor",
    "kilo" * 10_000: "longer than any unit",
    "a" * 1_000_000: "longer than any unit",
    "*".join(["m"] * 20_000): "longer than any unit",
}


@pytest.mark.parametrize("unit", list(HOSTILE), ids=lambda unit: unit[:20])
def test_a_hostile_unit_is_refused_at_once(unit: str) -> None:
    def job() -> str:
        with pytest.raises(UnitError) as caught:
            parse_unit(unit)
        return str(caught.value)

    answer, message = in_child(job, wait=WAIT)
    assert answer == "ok", (answer, message)
    assert isinstance(message, str) and HOSTILE[unit] in message
    assert len(message) < 600  # the unit's middle left out of the message


@pytest.mark.parametrize(
    ("unit", "reads_as"),
    [
        ("m**-3", "1 / meter ** 3"),
        ("m**(1/2)", "meter ** 0.5"),
        ("m**2.5", "meter ** 2.5"),
        ("1/s", "1 / second"),
        ("(m*s)**2", "meter ** 2 * second ** 2"),
        ("kg*m**2/s**2", "kilogram * meter ** 2 / second ** 2"),
    ],
)
def test_units_with_exponents_read_as_before(unit: str, reads_as: str) -> None:
    assert str(parse_unit(unit)) == reads_as


def test_an_unknown_unit_is_asked_of_pint_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request of 25,000 "1st" asked pint to read "st" 75,000 times (6 s): a unit pint cannot
    read is remembered as one it can."""
    from schemarouter import units

    asked: list[str] = []
    registry = units._registry()
    read = registry.parse_units

    def counted(expression: str) -> object:
        asked.append(expression)
        return read(expression)

    monkeypatch.setattr(registry, "parse_units", counted)
    for _ in range(3):
        with pytest.raises(UnitError, match="'zorkmid' is not defined"):
            parse_unit("zorkmid")
    assert asked == ["zorkmid"]


def test_a_document_with_a_hostile_x_unit_registers_with_a_warning() -> None:
    unit = "10**10**10 m"
    schema = {"type": "object", "properties": {"length": {"type": "number", "x-unit": unit}}}
    depth = {"name": "depth", "in": "query", "schema": {"type": "number", "x-unit": unit}}
    operation = {"operationId": "list_holes", "parameters": [depth], "responses": ok(schema)}
    document = openapi_document("Holes", {"/holes": {"get": operation}})

    def job() -> tuple[str, ...]:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            change = router.add_openapi(document, provider="holes")
        router.plan("list holes deeper than 3 m")  # the parameter's unit read when planning
        return change.warnings

    answer, result = in_child(job, wait=WAIT)
    assert answer == "ok", (answer, result)
    assert isinstance(result, tuple)
    assert any("output field 'length'" in w and "a power of a power" in w for w in result)
