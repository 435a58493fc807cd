"""A letter or a number that is no quantity is converted into none (eighteenth security
review).

Before, on a loopback server (every effect allowed, approved): "set the heater H-1 on 2F to
21" sent ``{"target": -16.67}`` (2 °F, the floor read as a temperature, over the 21 asked),
"set heater H-1 on floor 3F" sent -16.11, "set thermostat T-1 to 20, budget is 5K" sent
-268.15 (5 kelvin), "set heater H-1 to 21, the boiler reads 150 °F" sent 65.56 (the reading,
over the 21 set), "irrigate field F-7 now, it was last watered 2 m ago" sent a depth of
2,000 mm (two minutes read as two metres)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter

from helpers import ok, openapi_document, path_id, sent_bodies, served_router
from servers.loopback import LoopbackServer, json_response


def _change(operation: str, summary: str, thing: str, properties: dict[str, Any]) -> Any:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "operationId": operation,
        "summary": summary,
        "parameters": path_id(f"{thing}_id"),
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
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
    "/fields/{field_id}/irrigate": {
        "post": _change(
            "irrigateField", "Irrigate a field", "field", {"depth_mm": {"type": "number"}}
        )
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"ok": True})) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Home", PATHS), server, "home")


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        # a floor, a door, thousands: no scale of temperature
        ("set the heater H-1 on 2F to 21", [("/heaters/H-1/setpoint", {"target": 21.0})]),
        ("set heater H-1 on floor 3F", []),
        (
            "set thermostat T-1 to 20, budget is 5K",
            [("/thermostats/T-1/setpoint", {"target": 20.0})],
        ),
        # the number the verb sets is the value, not a reading beside it: 150 °F (65.56 °C)
        # was sent; 21 beside a request in °F is held for the caller to say
        ("set heater H-1 to 21, the boiler reads 150 °F", []),
        # two minutes ago is when, not a depth
        ("irrigate field F-7 now, it was last watered 2 m ago", []),
    ],
)
def test_a_word_that_is_no_unit_converts_into_nothing(
    router: SchemaRouter, server: LoopbackServer, text: str, sent: list[Any]
) -> None:
    assert sent_bodies(router, server, text) == sent


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("set the thermostat T-1 to 68F", [("/thermostats/T-1/setpoint", {"target": 20.0})]),
        ("set heater H-1 on 2F to 70 °F", [("/heaters/H-1/setpoint", {"target": 21.11111111})]),
        ("irrigate field F-7 with 0.5 inches", [("/fields/F-7/irrigate", {"depth_mm": 12.7})]),
        # the declared unit itself, where only x-unit declares it: was held, nothing sent
        ("set thermostat T-1 to 20 °C", [("/thermostats/T-1/setpoint", {"target": 20.0})]),
        ("set thermostat T-1 to 20degC", [("/thermostats/T-1/setpoint", {"target": 20.0})]),
    ],
)
def test_a_unit_stated_as_one_still_converts(
    router: SchemaRouter, server: LoopbackServer, text: str, sent: list[Any]
) -> None:
    assert sent_bodies(router, server, text) == sent
