"""A number in one unit fills only the setting it is written for (trial 15, a cold-chain API on
loopback): "set the alarm for logger L-7 to 46 °F" sent ``min_celsius=-13.9`` beside the asked
``max_celsius``, the id's 7 read as a range "7 to 46 °F"; "Set the temperature alarm of logger
L-3 to 8 °C" sent ``min_celsius=3``; "Set the length of parcel P-9 to 60 cm" sent
``width_cm=60`` and ``height_cm=60`` beside ``length_cm``. Now an id's digits bound nothing,
and of several numbers in one unit only the one the request names takes the quantity."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, Request, json_response

DEGC = {"type": "number", "x-unit": "degC"}
CM = {"type": "number", "x-unit": "cm"}


def _body(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"required": True, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/loggers/{logger_id}/alarm": {
        "put": {
            "operationId": "setTemperatureAlarm",
            "summary": "Set a temperature logger's alarm thresholds",
            "parameters": path_id("logger_id"),
            "requestBody": _body(
                {
                    "max_celsius": dict(DEGC, description="Alarm above this, in degrees Celsius"),
                    "min_celsius": dict(DEGC, description="Alarm below this, in degrees Celsius"),
                },
                ["max_celsius"],
            ),
            "responses": ok({"type": "object"}),
        }
    },
    "/parcels/{parcel_id}": {
        "patch": {
            "operationId": "updateParcel",
            "summary": "Update a parcel's weight or dimensions",
            "parameters": path_id("parcel_id"),
            "requestBody": _body(
                {
                    "weight_kg": {"type": "number", "x-unit": "kg"},
                    "length_cm": dict(CM, description="Length in centimetres"),
                    "width_cm": dict(CM, description="Width in centimetres"),
                    "height_cm": dict(CM, description="Height in centimetres"),
                }
            ),
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
    return served_router(openapi_document("Cold chain", PATHS), server, "coldchain")


def _sent(router: SchemaRouter, server: LoopbackServer, text: str) -> list[Request]:
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return list(server.requests)


@pytest.mark.parametrize(
    ("text", "path", "body"),
    [
        (
            "Set the temperature alarm of logger L-3 to 8 °C",
            "/loggers/L-3/alarm",
            {"max_celsius": 8},
        ),
        ("set the alarm for logger L-7 to 5 °C", "/loggers/L-7/alarm", {"max_celsius": 5}),
        ("Set the length of parcel P-9 to 60 cm", "/parcels/P-9", {"length_cm": 60}),
        ("Set the weight of parcel P-9 to 7.5 kg", "/parcels/P-9", {"weight_kg": 7.5}),
    ],
)
def test_only_the_setting_asked_is_sent(
    router: SchemaRouter, server: LoopbackServer, text: str, path: str, body: dict[str, Any]
) -> None:
    sent = _sent(router, server, text)
    assert [(r.method in ("PUT", "PATCH"), r.path) for r in sent] == [(True, path)]
    assert json.loads(sent[0].body) == body


def test_a_range_written_between_plain_numbers_still_bounds_both_sides(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """The ids' digits were the fault, not ranges: "between 2 and 8 °C" still fills both."""
    sent = _sent(router, server, "Set the alarm of logger L-12 to between 2 and 8 °C")
    assert [r.path for r in sent] == ["/loggers/L-12/alarm"]
    assert json.loads(sent[0].body) == {"min_celsius": 2, "max_celsius": 8}


def test_a_size_naming_no_dimension_is_left_to_give(router: SchemaRouter) -> None:
    """ "Resize parcel P-9 to 60 cm" says no dimension: none of the three takes 60."""
    plan = router.plan(PlanRequest(query="Resize parcel P-9 to 60 cm", allowed_effects=WRITES))
    body = plan.steps[0].arguments.get("body") or {}
    assert not {"length_cm", "width_cm", "height_cm"} & set(body)
