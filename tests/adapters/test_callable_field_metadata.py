"""Units and meanings a Python function's return model declares on its fields (user trial U4):
``Field(json_schema_extra={"x-unit": "meV", "x-semantic-id": "electronic.band_gap"})``, the
keys an OpenAPI response property or an MCP tool's output property declares them with, were
silently dropped: the route's fields had no unit and no semantic id, and a call's typed
fields came back empty, so a value in meV travelled with no unit at all."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from schemarouter import SchemaRouter, capability
from schemarouter.errors import UnitError


class Reading(BaseModel):
    band_gap: float = Field(
        json_schema_extra={
            "x-unit": "meV",
            "x-dimension": "energy",
            "x-semantic-id": "electronic.band_gap",
        }
    )
    temperature: float = Field(json_schema_extra={"x-unit": "K"})
    sample_id: str


def reading(sample_id: str) -> Reading:
    """Latest instrument reading of a sample."""
    return Reading(band_gap=1120.0, temperature=300.0, sample_id=sample_id)


def readings(batch: str) -> list[Reading]:
    """Every reading of a batch."""
    return [Reading(band_gap=1120.0, temperature=300.0, sample_id="S-1")]


@capability(
    fields={
        "band_gap": {
            "unit": "meV",
            "normalization": {
                "source_unit": "meV",
                "canonical_unit": "eV",
                "dimension": "energy",
                "scale": 0.001,
            },
        }
    }
)
def normalized_reading(sample_id: str) -> Reading:
    """Latest instrument reading, its band gap normalized to eV."""
    return Reading(band_gap=1120.0, temperature=300.0, sample_id=sample_id)


def test_a_models_x_unit_and_x_semantic_id_are_its_fields() -> None:
    with SchemaRouter() as router:
        router.add_callable(
            [reading, readings, normalized_reading],
            provider="lab",
            license="CC-BY-4.0",
            source_type="experimental",
        )
        route = router.snapshot().routes["lab/python/reading"]
        gap = route.endpoint.field("band_gap")
        assert (gap.unit, gap.dimension, gap.semantic_id) == (
            "meV",
            "energy",
            "electronic.band_gap",
        )
        assert route.endpoint.field("temperature").unit == "K"
        assert route.endpoint.field("sample_id").unit is None
        # a list of models: the leaves of an item (``*.band_gap``)
        listed = router.snapshot().routes["lab/python/readings"].endpoint.field("band_gap")
        assert (listed.unit, listed.semantic_id) == ("meV", "electronic.band_gap")

        result = router.call("lab/python/reading", {"sample_id": "S-12"})
        value = result.fields["band_gap"]
        assert (value.value, value.unit, value.license) == (1120.0, "meV", "CC-BY-4.0")
        assert result.fields["temperature"].unit == "K"

        # capability(fields=...) is the function's own word: its normalization applies
        result = router.call("lab/python/normalized_reading", {"sample_id": "S-12"})
        value = result.fields["band_gap"]
        assert (value.raw_value, value.value, value.unit) == (1120.0, 1.12, "eV")
        assert value.semantic_id == "electronic.band_gap"


class Odd(BaseModel):
    temp: float = Field(json_schema_extra={"x-unit": "C", "x-dimension": "temperature"})


def odd_reading(sample_id: str) -> Odd:
    """A reading whose unit reads as coulomb."""
    return Odd(temp=25.0)


def test_a_models_x_unit_is_checked_as_a_catalogs_unit_is() -> None:
    with SchemaRouter() as router, pytest.raises(UnitError, match="coulomb") as caught:
        router.add_callable(odd_reading, provider="lab")
    assert "temp" in str(caught.value)
