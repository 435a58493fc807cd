"""Pressures in bar and volumes written "m3" are units a request states (user trial 21).

A plant's pump trip declared in psi: "set the discharge pressure trip on pump P-101 to 8 bar"
left it missing, "'8 bar' names no unit pint reads" (no spelling of the request's units
read "bar"), so the write asked was never sent; "set the flow setpoint on P-101 to 45 m3/h"
likewise (pint knows "m**3/h", not the "m3/h" plants write), and a document declaring
``x-unit: m3/h`` had its unit refused. "bar", "mbar" and "atm" are read after a number,
and a power written after a length ("m3", "cm2", "ft3") is that power. And "to 0.75 m3/min"
bound 0.75 to ``equipment_tag`` as a version (a "tag"), though its pattern refuses it, so
P-101 was never bound: a version the parameter's schema refuses is none. What the server
receives is checked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.errors import UnitError
from schemarouter.index import HashingEncoder
from schemarouter.units import parse_unit

from servers.loopback import LoopbackServer, Request, Response, json_response

_TAG = [
    {"name": "equipment_tag", "in": "path", "required": True,
     "schema": {"type": "string", "pattern": "^[A-Z]{1,3}-[0-9]{1,4}$"}}
]  # fmt: skip


def _setpoint(op: str, summary: str, name: str, unit: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {name: {"type": "number", "x-unit": unit}}}
    schema["required"] = [name]
    return {
        "operationId": op,
        "summary": summary,
        "parameters": _TAG,
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": {"200": {"description": "ok"}},
    }


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/equipment/{equipment_tag}/setpoints/trip-pressure": {"put": _setpoint(
                "setTripPressure", "Set the discharge pressure trip of a pump", "limit_psi", "psi")},
            "/equipment/{equipment_tag}/setpoints/flow": {"put": _setpoint(
                "setFlowSetpoint", "Set the flow setpoint of a pump", "flow", "m3/h")},
            "/equipment/{equipment_tag}/setpoints/pressure": {"put": _setpoint(
                "setPressureSetpoint", "Set the steam pressure setpoint of a boiler",
                "pressure_bar", "bar")},
        },
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({})


def _sent(query: str) -> list[tuple[str, dict[str, Any]]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="plant")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        if plan.steps and all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.path, json.loads(r.body)) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "path", "name", "value"),
    [
        ("set the discharge pressure trip on pump P-101 to 8 bar",
         "/equipment/P-101/setpoints/trip-pressure", "limit_psi", 116.0301902),
        ("set the flow setpoint on P-101 to 45 m3/h",
         "/equipment/P-101/setpoints/flow", "flow", 45),
        ("set the flow setpoint on P-101 to 0.75 m3/min",
         "/equipment/P-101/setpoints/flow", "flow", 45),
        ("set the steam pressure setpoint of B-2 to 1500 mbar",
         "/equipment/B-2/setpoints/pressure", "pressure_bar", 1.5),
        ("set the steam pressure setpoint of B-2 to 145 psi",
         "/equipment/B-2/setpoints/pressure", "pressure_bar", 9.99739),
    ],
)  # fmt: skip
def test_the_stated_unit_is_converted(query: str, path: str, name: str, value: float) -> None:
    ((sent_path, body),) = _sent(query)
    assert sent_path == path
    assert body[name] == pytest.approx(value, rel=1e-6)


def test_a_power_after_a_length_is_read() -> None:
    assert str(parse_unit("m3/h")) == "meter ** 3 / hour"
    assert str(parse_unit("ft3/min")) == "foot ** 3 / minute"
    assert str(parse_unit("cm2")) == "centimeter ** 2"
    assert str(parse_unit("cmH2O")) == "centimeter_H2O"  # a unit pint reads as written
    with pytest.raises(UnitError):
        parse_unit("Nm3/h")  # a normal cubic metre is no volume: still refused
