"""A change route named only by its method and path (docs read by ``inspect``, an OpenAPI
operation without an ``operationId``) is asked by the action its path ends in after an entry's
id (``POST /valves/{valve_id}/open``) and, for a POST to a collection, by its entry's noun used
as a verb ("schedule ...": ``POST /schedules``). User trial 17: "open valve V-3 for 20 minutes"
read "open" as "open my note" and planned ``GET /valves``; "schedule irrigation for field F-7
..." planned ``DELETE /schedules/{schedule_id}``, ranked above ``POST /schedules``, its id
missing. Neither change was sent. Runs on loopback."""

from __future__ import annotations

import json

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

PAGE = """# FieldNet API

Base URL: https://fieldnet.farm.local/api/v1

## GET /valves

Lists the valves of the farm and whether each is open.

- field_id (string): only valves of this field

## POST /valves/{valve_id}/open

Opens a valve for a fixed time.

Request body:

- duration_min (integer, required): how long to keep it open, in minutes

## POST /valves/{valve_id}/close

Closes a valve now.

## GET /schedules

Lists the irrigation schedules of a field.

- field_id (string): only schedules of this field

## POST /schedules

Request body:

- field_id (string, required): field to irrigate
- depth_mm (number, required): water depth to apply, in mm

## DELETE /schedules/{schedule_id}

Cancels a planned irrigation schedule.
"""

ALL = {Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE}


def _api(request: Request) -> Response:
    if request.method == "GET":
        return json_response([])
    return json_response({"status": "ok"})


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("open valve V-3 for 20 minutes", ("POST", "/valves/V-3/open", {"duration_min": 20})),
        (
            "Open valve V-3 for 20 minutes please",
            ("POST", "/valves/V-3/open", {"duration_min": 20}),
        ),
        ("close valve V-5", ("POST", "/valves/V-5/close", None)),
        (
            "schedule irrigation for field F-7 with 12 mm",
            ("POST", "/schedules", {"field_id": "F-7", "depth_mm": 12}),
        ),
        (  # GET /schedules ranks first: its read stood in for the create
            "schedule 12 mm on field F-7 in the irrigation schedule",
            ("POST", "/schedules", {"field_id": "F-7", "depth_mm": 12}),
        ),
        ("cancel schedule SCH-19", ("DELETE", "/schedules/SCH-19", None)),
    ],
)
def test_a_change_named_by_its_path_is_sent(query: str, sent: tuple[str, str, object]) -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    with LoopbackServer(_api) as api:
        proposal = router.inspect(PAGE)
        router.approve(proposal, base_url=api.base_url, provider="fieldnet", allow_write=True)
        plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=2)
        router.execute(
            plan, allow_effects=["read", "write", "destructive"], approve=lambda *a: True
        )
        got = [(r.method, r.path, json.loads(r.body) if r.body else None) for r in api.requests]
        assert got == [sent]


@pytest.mark.parametrize(
    "query", ["which valves are open?", "show the open valves of field F-7", "is valve V-3 open?"]
)
def test_open_as_a_state_still_reads(query: str) -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    with LoopbackServer(_api) as api:
        router.approve(router.inspect(PAGE), base_url=api.base_url, provider="f", allow_write=True)
        plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=2)
        router.execute(
            plan, allow_effects=["read", "write", "destructive"], approve=lambda *a: True
        )
        assert [r.method for r in api.requests] == ["GET"]
