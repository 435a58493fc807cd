"""A value set by "update ... to N", and one stated as an entry's new state (trial 15, a
cold-chain API on loopback): "Update logger L-3's alarm to 10 °C" left the alarm's required
``max_celsius`` open ("update" was no verb of setting), so nothing was sent; "parcel P-22
weighs 12 lb now" planned the read ``getParcel`` (no verb of change), the update ranked
second. Now "update ... to N" sets the number, and a number stated "now" in a request that
asks no question plans the change that takes it before the read."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, json_response

KG = {"type": "number", "x-unit": "kg"}
CM = {"type": "number", "x-unit": "cm"}
CELSIUS = {"type": "number", "x-unit": "degC"}
PARCEL = {"type": "object", "properties": {"id": {"type": "string"}, "weight_kg": KG}}


def _body(properties: dict[str, object], required: list[str]) -> dict[str, object]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/parcels/{parcel_id}": {
        "get": {
            "operationId": "getParcel",
            "summary": "Get a parcel's weight and dimensions",
            "parameters": path_id("parcel_id"),
            "responses": ok(PARCEL),
        },
        "patch": {
            "operationId": "updateParcel",
            "summary": "Update a parcel's weight or dimensions",
            "parameters": path_id("parcel_id"),
            "requestBody": _body({"weight_kg": KG, "length_cm": CM}, []),
            "responses": ok(PARCEL),
        },
    },
    "/loggers/{logger_id}/alarm": {
        "put": {
            "operationId": "setTemperatureAlarm",
            "summary": "Set the temperature alarm thresholds of a data logger",
            "parameters": path_id("logger_id"),
            "requestBody": _body({"max_celsius": CELSIUS, "min_celsius": CELSIUS}, ["max_celsius"]),
            "responses": ok({"type": "object", "properties": {"max_celsius": CELSIUS}}),
        }
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"id": "P-22", "weight_kg": 4.0})) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Cold chain", PATHS), server, "coldchain")


def _sent(router: SchemaRouter, server: LoopbackServer, text: str) -> list[tuple[str, str, object]]:
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        (
            "Update logger L-3's alarm to 10 °C",
            ("PUT", "/loggers/L-3/alarm", {"max_celsius": 10}),
        ),
        ("update the alarm of logger L-3 to 6", ("PUT", "/loggers/L-3/alarm", {"max_celsius": 6})),
        ("parcel P-22 weighs 12 kg now", ("PATCH", "/parcels/P-22", {"weight_kg": 12})),
        ("Parcel P-22 is now 7.5 kg", ("PATCH", "/parcels/P-22", {"weight_kg": 7.5})),
        # a question, or no number stated "now": the read
        ("What does parcel P-22 weigh now?", ("GET", "/parcels/P-22", None)),
        ("Show parcel P-22", ("GET", "/parcels/P-22", None)),
    ],
)
def test_the_value_set_or_stated_is_sent(
    router: SchemaRouter, server: LoopbackServer, text: str, sent: tuple[str, str, object]
) -> None:
    assert _sent(router, server, text) == [sent]


def test_a_value_in_another_unit_of_its_dimension_is_converted_and_said(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """12 lb is sent as 5.44310844 kg (helper ``units``; before, the body was left missing and
    nothing sent), and the plan says what it converted."""
    plan = router.plan(PlanRequest(query="parcel P-22 weighs 12 lb now", allowed_effects=WRITES))
    assert plan.route_ids == ("coldchain/rest/update_parcel",)
    assert any("converted 12 lb -> 5.44310844 kg" in w for w in plan.warnings)
    assert _sent(router, server, "parcel P-22 weighs 12 lb now") == [
        ("PATCH", "/parcels/P-22", {"weight_kg": 5.44310844})
    ]


def test_a_value_of_another_dimension_changes_nothing(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """12 °C is no weight: no change takes it, and only the read is sent."""
    assert _sent(router, server, "parcel P-22 weighs 12 °C now") == [("GET", "/parcels/P-22", None)]
