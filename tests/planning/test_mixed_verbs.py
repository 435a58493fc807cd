"""A Korean request whose verb is English before its ending ("booking create 해줘") plans
the route that does that change, not a better-ranked one doing another (trial Z3:
``delete_booking`` was planned where a booking was to be made; ranking is left as it is)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_ID = [{"name": "booking_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"room_id": {"type": "string"}}}
        }
    },
}
_OK = {"200": {"description": "ok"}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Rooms", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/bookings": {
            "get": {"operationId": "list_bookings", "summary": "List bookings", "responses": _OK},
            "post": {
                "operationId": "add_booking",
                "summary": "Add a booking",
                "requestBody": _BODY,
                "responses": _OK,
            },
        },
        "/bookings/{booking_id}": {
            "delete": {
                "operationId": "delete_booking",
                "summary": "Delete a booking",
                "parameters": _ID,
                "responses": _OK,
            }
        },
    },
}
_WRITES = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="rooms")
    return router


def plan_of(router: SchemaRouter, query: str) -> str:
    return router.plan(PlanRequest(query=query, allowed_effects=_WRITES)).route_ids[0]


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("booking create 해줘", "add_booking"),
        ("booking delete 해줘", "delete_booking"),
        ("delete booking list 해줘", "list_bookings"),
        ("booking create 좀 해 주세요", "add_booking"),
    ],
)
def test_the_english_verb_before_a_korean_ending_is_the_change_planned(
    router: SchemaRouter, query: str, route: str
) -> None:
    plan = router.plan(PlanRequest(query=query, allowed_effects=_WRITES))
    assert plan.route_ids[0] == f"rooms/rest/{route}"


def test_the_ranking_stays_and_the_plan_says_why(router: SchemaRouter) -> None:
    query = "booking create 해줘"
    ranked = [c.route_id for c in router.retrieve(query, k=3).candidates]
    assert ranked[0] == "rooms/rest/delete_booking"  # ranking is not changed
    assert plan_of(router, "booking create 좀 해 주세요") == "rooms/rest/add_booking"
    plan = router.plan(PlanRequest(query=query, allowed_effects=_WRITES))
    assert any("'create' before its Korean ending" in w for w in plan.warnings)
