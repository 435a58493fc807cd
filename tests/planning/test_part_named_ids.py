"""A part whose ids the request's best route takes none of: trial 15's held-out "Cancel
shipment S-777, then schedule a pickup for shipment S-205 ..." ranked ``cancel_pickup`` first
(its words from both parts). It served the cancel, took no shipment id, and its
``pickup_id`` was bound to the pickup the plan created: the server saw ``POST /pickups`` then
``DELETE /pickups/PU-1001``, and S-777 was never cancelled. Now the part's own best route,
which takes the id it names, is planned in its place; and a change written before a create is
never bound to what that create makes, the best route's served part included."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.planning.planner import Plan, plan_routes

from helpers import WRITES, ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, Request, json_response

TEXT = {"type": "string"}
PICKUP = {"type": "object", "properties": {"id": TEXT, "shipment_id": TEXT, "pickup_at": TEXT}}
PATHS = {
    "/shipments/{shipment_id}": {
        "get": {
            "operationId": "getShipment",
            "summary": "Get a shipment",
            "parameters": path_id("shipment_id"),
            "responses": ok({"type": "object", "properties": {"id": TEXT, "status": TEXT}}),
        }
    },
    "/shipments/{shipment_id}/cancel": {
        "post": {
            "operationId": "cancelShipment",
            "summary": "Cancel a shipment that has not been picked up",
            "parameters": path_id("shipment_id"),
            "responses": ok({"type": "object", "properties": {"status": TEXT}}),
        }
    },
    "/pickups": {
        "post": {
            "operationId": "schedulePickup",
            "summary": "Schedule a carrier pickup for a shipment",
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "shipment_id": TEXT,
                                "pickup_at": {"type": "string", "format": "date-time"},
                            },
                            "required": ["shipment_id", "pickup_at"],
                        }
                    }
                },
            },
            "responses": ok(PICKUP),
        }
    },
    "/pickups/{pickup_id}": {
        "delete": {
            "operationId": "cancelPickup",
            "summary": "Cancel a scheduled pickup",
            "parameters": path_id("pickup_id"),
            "responses": ok({"type": "object", "properties": {"cancelled": {"type": "boolean"}}}),
        }
    },
}


def _answer(request: Request) -> tuple[int, dict[str, str], bytes]:
    if request.method == "POST" and request.path == "/pickups":
        return json_response({"id": "PU-1001", "shipment_id": "S-205"})
    return json_response({"status": "cancelled", "cancelled": True})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_answer) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Cold chain", PATHS), server, "coldchain")


QUERY = "Cancel shipment S-777, then schedule a pickup for shipment S-205 at 2026-12-09T14:00:00Z"
CANCEL, SCHEDULE = "Cancel shipment S-777", QUERY[len("Cancel shipment S-777, then ") :]
#: the trial's ranking (its encoder's): the best route takes its words from both parts
RANKED = [f"coldchain/rest/{r}" for r in ("cancel_pickup", "schedule_pickup", "cancel_shipment")]


def _plan(
    router: SchemaRouter, parts: list[tuple[str, str]], misses: list[tuple[str, str, str]]
) -> Plan:
    """The plan of :data:`QUERY` on the trial's ranking, ``cancel_pickup`` serving its first part
    (the part reading's ``served_by``)."""
    values = router.ranker.rank(QUERY, 5).analysis.values
    return plan_routes(
        PlanRequest(query=QUERY, allowed_effects=frozenset(Effect)),
        router.snapshot(),
        ranked=RANKED,
        values=values,
        max_calls=3,
        parts=parts,
        part_misses=misses,
        served_by=lambda route_id: CANCEL if route_id == RANKED[0] else None,
    )


def _sent(router: SchemaRouter, server: LoopbackServer, plan: Plan) -> list[tuple[str, str]]:
    server.requests.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.method, r.path) for r in server.requests]


def test_the_cancel_takes_its_own_id_and_nothing_created_is_deleted(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    # before: POST /pickups, then DELETE /pickups/PU-1001; S-777 never cancelled
    parts = [(CANCEL, RANKED[2]), (SCHEDULE, RANKED[1])]
    plan = _plan(router, parts, [])
    assert _sent(router, server, plan) == [
        ("POST", "/shipments/S-777/cancel"),
        ("POST", "/pickups"),
    ], plan.warnings
    assert json.loads(server.requests[1].body) == {
        "shipment_id": "S-205",
        "pickup_at": "2026-12-09T14:00:00Z",
    }
    assert any("names S-777, which the request's best route" in w for w in plan.warnings)


def test_a_change_written_before_the_create_is_not_bound_to_it(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """The best route kept for the part it serves (no route of the part's own takes S-777):
    its ``pickup_id`` is not the pickup created after it, so nothing is deleted."""
    plan = _plan(router, [(SCHEDULE, RANKED[1])], [(CANCEL, RANKED[0], "weak")])
    assert [s.route_id for s in plan.steps] == [RANKED[0], RANKED[1]]
    assert plan.missing_arguments == {RANKED[0]: ("pickup_id",)}
    server.requests.clear()
    with pytest.raises(ParameterValidationError, match="pickup_id"):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert server.requests == []  # before: POST /pickups, then DELETE /pickups/PU-1001
