"""A side's id written after its thing: "Reroute shipment S-310 to warehouse WH-7" (trial 15, a
cold-chain API on loopback) planned ``reroute_shipment`` with its body's required
``destination_warehouse_id`` missing, so the reroute was never sent: the side's preposition
("to") took an id only right after it, and "warehouse WH-7" bound only a ``warehouse_id``.
Now the thing the parameter's name names may stand between the preposition and the id."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, json_response


def _body(properties: dict[str, object], required: list[str]) -> dict[str, object]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


TEXT = {"type": "string"}
PATHS = {
    "/shipments/{shipment_id}/reroute": {
        "post": {
            "operationId": "rerouteShipment",
            "summary": "Reroute a shipment to another destination warehouse",
            "parameters": path_id("shipment_id"),
            "requestBody": _body(
                {"destination_warehouse_id": TEXT, "reason": TEXT}, ["destination_warehouse_id"]
            ),
            "responses": ok({"type": "object"}),
        }
    },
    "/transfers": {
        "post": {
            "operationId": "createStockTransfer",
            "summary": "Move stock from one warehouse to another",
            "requestBody": _body(
                {"source_warehouse_id": TEXT, "target_warehouse_id": TEXT, "sku": TEXT},
                ["source_warehouse_id", "target_warehouse_id"],
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


@pytest.mark.parametrize(
    ("text", "path", "body"),
    [
        (
            "Reroute shipment S-310 to warehouse WH-7",
            "/shipments/S-310/reroute",
            {"destination_warehouse_id": "WH-7"},
        ),
        (
            "Reroute shipment S-310 to the warehouse WH-7",
            "/shipments/S-310/reroute",
            {"destination_warehouse_id": "WH-7"},
        ),
        (
            "Move stock from warehouse WH-3 to warehouse WH-7",
            "/transfers",
            {"source_warehouse_id": "WH-3", "target_warehouse_id": "WH-7"},
        ),
    ],
)
def test_the_side_takes_the_id_after_its_thing(
    router: SchemaRouter, server: LoopbackServer, text: str, path: str, body: dict[str, str]
) -> None:
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, plan.warnings
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [(r.method, r.path) for r in server.requests] == [("POST", path)]
    assert json.loads(server.requests[0].body) == body


def test_another_things_id_is_no_sides(router: SchemaRouter) -> None:
    """An id after another thing ("to shipment S-9") leaves the destination open."""
    plan = router.plan(
        PlanRequest(query="Reroute shipment S-310 to shipment S-9", allowed_effects=WRITES)
    )
    assert "body.destination_warehouse_id" in plan.missing_arguments.get(
        "coldchain/rest/reroute_shipment", ()
    )
