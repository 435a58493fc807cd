"""A Python callable whose value is optional gets the number a request sets, and the id of the
thing its name names (twelfth security review: ``set_thermostat(device_id, temperature=None)``
asked "set thermostat T-1 to 21 degrees" got neither: a number was read only for a required
parameter, "degrees" fit only a parameter that says degrees or Celsius, and "thermostat T-1"
bound no ``device_id``, the request naming a thermostat's id and the parameter a device's).
Now the change's one optional number takes "to N" where no number is required, "degrees"
fits a temperature, and the route's one required id of a thing neither its name nor its
docstring names takes the id given after the thing its name names. The callables are real
and record the calls they receive."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES

CALLS: list[tuple[str, dict[str, Any]]] = []


def set_thermostat(device_id: str, temperature: float | None = None) -> dict[str, Any]:
    """Set a thermostat's target temperature."""
    CALLS.append(("set_thermostat", {"device_id": device_id, "temperature": temperature}))
    return {"ok": True}


def set_fan(fan_id: str, speed: int | None = None) -> dict[str, Any]:
    """Set a fan's speed, from 1 to 5."""
    CALLS.append(("set_fan", {"fan_id": fan_id, "speed": speed}))
    return {"ok": True}


def set_heater(heater_id: str, level: Optional[float] = None) -> dict[str, Any]:  # noqa: UP045
    """Set a heater's power level."""
    CALLS.append(("set_heater", {"heater_id": heater_id, "level": level}))
    return {"ok": True}


def update_firmware(device_id: str, version: str | None = None) -> dict[str, Any]:
    """Install a firmware update on a device (the latest version unless one is given)."""
    CALLS.append(("update_firmware", {"device_id": device_id, "version": version}))
    return {"ok": True}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(
        [set_thermostat, set_fan, set_heater, update_firmware], provider="home", effect="write"
    )
    return router


def _called(router: SchemaRouter, query: str) -> list[tuple[str, dict[str, Any]]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, (plan.steps, plan.warnings)
    CALLS.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return list(CALLS)


@pytest.mark.parametrize(
    ("query", "call"),
    [
        (
            "set thermostat T-1 to 21 degrees",
            ("set_thermostat", {"device_id": "T-1", "temperature": 21.0}),
        ),
        (
            "set the thermostat T-1 to 21.5",
            ("set_thermostat", {"device_id": "T-1", "temperature": 21.5}),
        ),
        ("Set fan F-2 to 3", ("set_fan", {"fan_id": "F-2", "speed": 3})),
        ("Set heater H-1 to 2.5", ("set_heater", {"heater_id": "H-1", "level": 2.5})),
    ],
)
def test_an_optional_number_set_is_sent(
    router: SchemaRouter, query: str, call: tuple[str, dict[str, Any]]
) -> None:
    assert _called(router, query) == [call]


def test_what_the_request_does_not_give_stays_open(router: SchemaRouter) -> None:
    """No number: the update changes nothing and is held; a number in a unit the parameter
    does not name ("to 3 kg" for a fan's speed) is not taken; the firmware's ``device_id`` is
    the device's, its docstring says so: "firmware F-1" is no device id."""
    plan = router.plan(PlanRequest(query="set thermostat T-1", allowed_effects=WRITES))
    step = plan.steps[0]
    assert (step.route_id, step.arguments) == ("home/python/set_thermostat", {"device_id": "T-1"})
    assert plan.missing_arguments == {"home/python/set_thermostat": ("temperature",)}
    plan = router.plan(PlanRequest(query="Set fan F-2 to 3 kg", allowed_effects=WRITES))
    assert plan.steps[0].arguments == {"fan_id": "F-2"}
    plan = router.plan(PlanRequest(query="Update firmware F-1", allowed_effects=WRITES))
    step = plan.steps[0]
    assert step.route_id == "home/python/update_firmware" and "device_id" not in step.arguments
