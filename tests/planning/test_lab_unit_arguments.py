"""A temperature in °C and a volume in mL bind to the parameter whose name ends with that
unit, as "3 kg" binds ``weight_kg``.

Trial X3 (a lab app's own functions): "log a freezer reading of -79 °C for freezer F-1" left
``temperature_c`` open, and "make 50 mL of a 5 mM solution" left ``final_volume_ml`` open,
where "250 g of glycerol" filled ``mass_g``."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder


def log_freezer_reading(freezer_id: str, temperature_c: float) -> float:
    """Log a manual temperature reading of a freezer."""
    return temperature_c


def dilution_volume(target_mm: float, final_volume_ml: float = 10.0) -> float:
    """Volume of stock solution to dilute."""
    return final_volume_ml


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([log_freezer_reading, dilution_volume], provider="lab")
    return router


def _arguments(router: SchemaRouter, request: str, route: str) -> dict[str, Any]:
    plan = router.plan(PlanRequest(query=request))
    (step,) = [s for s in plan.steps if s.route_id == route] or [None]
    assert step is not None, plan.route_ids
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("request_text", "value"),
    [
        ("log a freezer reading of -79 °C for freezer F-1", -79),
        ("log a freezer reading of -20.5℃ for freezer F-1", -20.5),
        ("log a freezer reading of 4 degrees Celsius for freezer F-1", 4),
        ("log a freezer reading of 4 deg C for freezer F-1", 4),
    ],
)
def test_a_temperature_in_celsius_binds_a_parameter_ending_in_c(
    router: SchemaRouter, request_text: str, value: float
) -> None:
    route = "lab/python/log_freezer_reading"
    assert _arguments(router, request_text, route).get("temperature_c") == value


def test_a_volume_in_ml_binds_a_parameter_ending_in_ml(router: SchemaRouter) -> None:
    route = "lab/python/dilution_volume"
    request = "dilution volume to make 50 mL of a 5 mM solution"
    assert _arguments(router, request, route).get("final_volume_ml") == 50
    # no temperature written: nothing bound
    reading = "log a freezer reading for freezer F-1"
    assert "temperature_c" not in _arguments(router, reading, "lab/python/log_freezer_reading")
