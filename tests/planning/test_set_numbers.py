"""A number a change sets is sent (trial 11: "Set thermostat D-201 to 23 degrees" left the
tool's one required number, ``target_celsius``, open, so nothing could be sent; "Turn on light
D-301 at 60% brightness" sent no brightness)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES

_ZONE = {"type": "string", "description": "Heating zone id, e.g. Z-1"}
TOOLS = {
    "tools": [
        {
            "name": "set_heating",
            "description": "Set a heating zone's target temperature.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "zone_id": _ZONE,
                    "target_celsius": {
                        "type": "number",
                        "minimum": 5,
                        "maximum": 30,
                        "description": "Target temperature in degrees Celsius",
                    },
                    "mode": {"type": "string", "enum": ["heat", "cool", "off"]},
                },
                "required": ["zone_id", "target_celsius"],
            },
        },
        {
            "name": "switch_on_lamp",
            "description": "Switch a lamp on, optionally dimmed.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "lamp_id": {"type": "string"},
                    "brightness": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 100,
                        "description": "Brightness in percent",
                    },
                },
                "required": ["lamp_id"],
            },
        },
    ]
}


def _arguments(query: str, tool: str) -> dict[str, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    listed = {"tools": [t for t in TOOLS["tools"] if t["name"] == tool]}
    router.add_mcp_tools(listed, provider="home")
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    step = next(s for s in plan.steps if s.route_id == f"home/mcp/{tool}")
    return dict(step.arguments)


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("Set the heating of zone Z-1 to 23 degrees", 23),
        ("set heating zone Z-1 to 21.5", 21.5),
        ("Lower the heating in zone Z-1 to 18 degrees Celsius, thanks", 18),
        ("난방 구역 Z-1 온도를 22도로 설정해줘", 22),
        # another unit of temperature: converted to the parameter's (Celsius, its description)
        ("Set the heating of zone Z-1 to 70 °F", 21.11111111),
        ("Set the heating of zone Z-1 to 70 fahrenheit", 21.11111111),
        # another dimension, two values, or one said not to use: none
        ("Set the heating of zone Z-1 to 70 kg", None),
        ("set heating zone Z-1 to 20, or maybe to 22", None),
        ("don't set the heating of zone Z-1 to 25", None),
    ],
)
def test_a_change_takes_the_number_it_is_set_to(query: str, value: float | None) -> None:
    arguments = _arguments(query, "set_heating")
    assert arguments.get("target_celsius") == value
    if value is not None and query.isascii():  # (구역, zone, is no word the glossary knows)
        assert arguments["zone_id"] == "Z-1"


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("Switch on lamp L-1 at 60% brightness", 60),
        ("switch on lamp L-1 at 60 percent brightness", 60),
        ("switch on lamp L-1", None),
        ("switch on lamp L-1 at 2 lumens brightness", None),
    ],
)
def test_a_number_written_before_its_parameter_name(query: str, value: int | None) -> None:
    arguments = _arguments(query, "switch_on_lamp")
    assert arguments.get("brightness") == value
    assert arguments["lamp_id"] == "L-1"


@pytest.mark.parametrize(
    ("query", "value"),
    [  # twelfth security review: the first number was sent where the user corrected it
        ("Set the heating of zone Z-1 to 25 degrees, actually make it 23", None),
        ("Set the heating of zone Z-1 to 25 degrees, I mean 23", None),
        ("Set the heating of zone Z-1 to 25, no wait, 23 degrees", None),
        # a number said against, or in another unit, is no second value
        ("Set the heating of zone Z-1 to 23 degrees, not 25", 23),
        ("Set the heating of zone Z-1 to 23 degrees instead of 25", 23),
        ("Set the heating of zone Z-1 to 23 degrees rather than 25 degrees", 23),
        ("Set the heating of zone Z-1 to 23 degrees for 10 minutes", 23),
        # ("... in 10 minutes" is a later time: the change is withheld, see
        # tests/planning/test_a_change_asked_for_later.py)
    ],
)
def test_a_number_corrected_after_it_is_set_is_not_guessed(query: str, value: float | None) -> None:
    assert _arguments(query, "set_heating").get("target_celsius") == value
