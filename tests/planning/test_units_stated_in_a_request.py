"""A quantity a request states in another unit than the one a parameter declares is converted
by pint, and the plan says so; one of another dimension, or in no unit pint reads, is refused
with its reason and never sent (helper ``units``).

Before: "set the thermostat T-1 to 68°F" on ``target`` (``x-unit: degC``) left it missing, "ship
a 12 lb parcel" left ``weight_kg`` missing, "irrigate field F-7 with 0.5 inches" left
``depth_mm`` missing, each with no word of why; "set thermostat T-1 to 68, in Fahrenheit" sent
68 to a parameter in °C. A real server on loopback, and a typed callable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES, ok, openapi_document, path_id, sent_bodies, served_router
from servers.loopback import LoopbackServer, json_response


def _body(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _change(operation: str, summary: str, thing: str, properties: dict[str, Any]) -> Any:
    return {
        "operationId": operation,
        "summary": summary,
        "parameters": path_id(f"{thing}_id"),
        "requestBody": _body(properties),
        "responses": ok({"type": "object"}),
    }


PATHS = {
    "/thermostats/{thermostat_id}/setpoint": {
        "put": _change(
            "setThermostat",
            "Set a thermostat's target temperature",
            "thermostat",
            {"target": {"type": "number", "x-unit": "degC"}},
        )
    },
    "/heaters/{heater_id}/setpoint": {
        "put": _change(
            "setHeater",
            "Set a heater's target temperature",
            "heater",
            {"target": {"type": "number", "description": "Target temperature in °C"}},
        )
    },
    "/ovens/{oven_id}/setpoint": {
        "put": _change(
            "setOven",
            "Set an oven's temperature",
            "oven",
            {"temperature": {"type": "integer", "x-unit": "degC", "maximum": 300}},
        )
    },
    "/fields/{field_id}/irrigate": {
        "post": _change(
            "irrigateField", "Irrigate a field", "field", {"depth_mm": {"type": "number"}}
        )
    },
    "/shipments": {
        "post": {
            "operationId": "createShipment",
            "summary": "Ship a parcel",
            "requestBody": _body({"weight_kg": {"type": "number"}}),
            "responses": ok({"type": "object"}),
        }
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"ok": True})) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Farm and home", PATHS), server, "home")


@pytest.mark.parametrize(
    ("text", "path", "body"),
    [
        ("set the thermostat T-1 to 68°F", "/thermostats/T-1/setpoint", {"target": 20.0}),
        (
            "set thermostat T-1 to 68 degrees Fahrenheit",
            "/thermostats/T-1/setpoint",
            {"target": 20.0},
        ),
        ("set thermostat T-1 to 300 K", "/thermostats/T-1/setpoint", {"target": 26.85}),
        ("set heater H-1 to 68 °F", "/heaters/H-1/setpoint", {"target": 20.0}),  # its description
        ("ship a 12 lb parcel", "/shipments", {"weight_kg": 5.44310844}),  # its name
        ("irrigate field F-7 with 0.5 inches", "/fields/F-7/irrigate", {"depth_mm": 12.7}),
        ("irrigate field F-7 with 0.5 in.", "/fields/F-7/irrigate", {"depth_mm": 12.7}),
        # a whole number where rounding moves it by a tenth of a degree at most: 356 °F is 180 °C
        ("set oven O-1 to 356 °F", "/ovens/O-1/setpoint", {"temperature": 180}),
    ],
)
def test_a_quantity_in_another_unit_is_sent_converted(
    router: SchemaRouter, server: LoopbackServer, text: str, path: str, body: Any
) -> None:
    assert sent_bodies(router, server, text) == [(path, body)]


def test_the_plan_says_what_it_converted(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="set the thermostat T-1 to 68°F", allowed_effects=WRITES))
    (note,) = [w for w in plan.warnings if w.startswith("converted")]
    assert note.startswith("converted 68 degF -> 20.0 degC ('68 °F' in the request)")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("set thermostat T-1 to 12 kg", "'12 kg' is [mass], not [temperature]"),
        ("set thermostat T-1 to 68 blorps", "'68 blorps' names no unit pint reads"),
        ("raise thermostat T-1 by 9 °F", "'9 °F' is a difference (after 'by')"),
        ("irrigate field F-7 with 5 kg", "'5 kg' is [mass], not [length]"),
        # 350 °F is 176.67 °C: 177 would be off by a third of a degree
        ("set oven O-1 to 350 °F", "takes a whole number: 177 would be off"),
        ("set oven O-1 to 716 °F", "380 degC, which temperature's schema refuses"),
        # a bare number beside another unit of its dimension, or taken by its name unconverted
        ("set thermostat T-1 to 68, in Fahrenheit", "68 with no unit and states Fahrenheit"),
        ("set thermostat T-1 target: 68 °F", "the request writes 68 °F, not in degC"),
    ],
)
def test_a_quantity_that_does_not_convert_is_refused_with_its_reason(
    router: SchemaRouter, server: LoopbackServer, text: str, why: str
) -> None:
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=1)
    assert any(why in w for w in plan.warnings), plan.warnings
    assert plan.missing_arguments
    assert sent_bodies(router, server, text) == []


def test_a_bare_number_is_sent_as_written(router: SchemaRouter, server: LoopbackServer) -> None:
    assert sent_bodies(router, server, "set thermostat T-1 to 21") == [
        ("/thermostats/T-1/setpoint", {"target": 21.0})
    ]
    assert sent_bodies(router, server, "set thermostat T-1 to 21 degrees") == [
        ("/thermostats/T-1/setpoint", {"target": 21.0})
    ]


CALLS: list[tuple[str, float]] = []


def set_room_temperature(room_id: str, temp_c: float) -> dict[str, float]:
    """Set the target temperature of a room."""
    CALLS.append(("set", temp_c))
    return {"temp_c": temp_c}


def calibrate_sensor(sensor_id: str, offset_c: float) -> dict[str, float]:
    """Calibrate a temperature sensor by an offset."""
    CALLS.append(("calibrate", offset_c))
    return {"offset_c": offset_c}


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("set the temperature of room R-1 to 68°F", ("set", 20.0)),
        ("set the temperature of room R-1 to 293.15 K", ("set", 20.0)),
        # a difference converts by the scale alone: 9 °F of difference is 5 °C, not -12.8 °C
        ("calibrate sensor S-1 with an offset of 9 °F", ("calibrate", 5.0)),
    ],
)
def test_a_callables_parameter_named_for_its_unit_takes_the_converted_value(
    text: str, call: tuple[str, float]
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([set_room_temperature, calibrate_sensor], provider="lab", effect="write")
    CALLS.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES), max_calls=1)
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [call] == CALLS
