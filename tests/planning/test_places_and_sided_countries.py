"""Places and countries the request writes for a side of a move, or for where a thing
happened (trial 15, a cold-chain API on loopback): "Compare shipping rates from FR to DE for
250 kg" left ``origin_country`` and ``destination_country`` open (each saw two codes), "...
from warehouse WH-3 to Lyon, FR" left ``destination_city`` and ``destination_country`` open,
so neither was sent, and "Record a delay event for shipment S-310 in Dijon" dropped its
``location``. What the server receives is checked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, json_response

TEXT = {"type": "string"}
CODE = {"type": "string", "pattern": "^[A-Z]{2}$"}
KG = {"type": "number", "x-unit": "kg"}


def _body(properties: dict[str, object], required: list[str]) -> dict[str, object]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": True, "schema": schema}


PATHS = {
    "/rates": {
        "get": {
            "operationId": "compareRates",
            "summary": "Compare carrier shipping rates between two countries",
            "parameters": [
                _query("origin_country", CODE),
                _query("destination_country", CODE),
                _query("weight_kg", KG),
            ],
            "responses": ok({"type": "object", "properties": {"rates": TEXT}}),
        }
    },
    "/shipments": {
        "post": {
            "operationId": "createShipment",
            "summary": "Create a shipment from a warehouse to a destination",
            "requestBody": _body(
                {
                    "origin_warehouse_id": TEXT,
                    "destination_city": TEXT,
                    "destination_country": CODE,
                },
                ["origin_warehouse_id", "destination_city", "destination_country"],
            ),
            "responses": ok({"type": "object", "properties": {"id": TEXT}}),
        }
    },
    "/shipments/{shipment_id}/events": {
        "post": {
            "operationId": "addTrackingEvent",
            "summary": "Record a tracking event (scan) for a shipment",
            "parameters": path_id("shipment_id"),
            "requestBody": _body(
                {
                    "event_type": {"type": "string", "enum": ["scan", "delay", "damage"]},
                    "location": TEXT,
                },
                ["event_type"],
            ),
            "responses": ok({"type": "object", "properties": {"id": TEXT}}),
        }
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"id": "S-1"})) as running:
        yield running


def _sent(server: LoopbackServer, path: str, text: str) -> list[tuple[str, str, Any, Any]]:
    router = served_router(openapi_document("Cold chain", {path: PATHS[path]}), server, "coldchain")
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, plan.warnings
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [
        (r.method, r.path, r.query, json.loads(r.body) if r.body else None) for r in server.requests
    ]


def test_each_side_takes_its_country() -> None:
    with LoopbackServer(lambda request: json_response({"rates": "x"})) as server:
        sent = _sent(server, "/rates", "Compare shipping rates from FR to DE for 250 kg")
    query = {"origin_country": ["FR"], "destination_country": ["DE"], "weight_kg": ["250"]}
    assert sent == [("GET", "/rates", query, None)]


@pytest.mark.parametrize(
    ("text", "city", "country"),
    [
        ("Create a shipment from warehouse WH-3 to Lyon, FR", "Lyon", "FR"),
        ("Create a shipment to New York, US from warehouse WH-3", "New York", "US"),
    ],
)
def test_the_destination_takes_its_city_and_country(
    server: LoopbackServer, text: str, city: str, country: str
) -> None:
    body = {"origin_warehouse_id": "WH-3", "destination_city": city, "destination_country": country}
    assert _sent(server, "/shipments", text) == [("POST", "/shipments", {}, body)]


@pytest.mark.parametrize(
    ("text", "body"),
    [
        (
            "Record a delay event for shipment S-310 in Dijon",
            {"event_type": "delay", "location": "Dijon"},
        ),
        ("Record a delay event for shipment S-310", {"event_type": "delay"}),
        # a month, or two places, is no one location
        ("Record a delay event for shipment S-310 in January", {"event_type": "delay"}),
        ("Record a delay event for shipment S-310 in Dijon or in Lyon", {"event_type": "delay"}),
    ],
)
def test_where_an_event_happened_is_its_location(
    server: LoopbackServer, text: str, body: dict[str, str]
) -> None:
    assert _sent(server, "/shipments/{shipment_id}/events", text) == [
        ("POST", "/shipments/S-310/events", {}, body)
    ]
