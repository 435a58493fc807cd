"""An id the request writes after its thing in one part is not another part's argument: the
request's best route, planned for its own part, takes no id written only in a later part.
User trial 17: "schedule 8 mm of irrigation on field F-12 at 2026-06-18T04:30:00Z, then open
valve V-8 for 10 minutes" sent the schedule with ``valve_id="V-8"`` (the create takes an
optional valve), an id the request gave the opening only. Runs on loopback."""

from __future__ import annotations

import json

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

PAGE = """# FieldNet API

Base URL: https://fieldnet.farm.local/api/v1

## POST /schedules

Plans an irrigation schedule of a field.

Request body:

- field_id (string, required): field to irrigate
- depth_mm (number, required): water depth to apply, in mm
- valve_id (string): valve to use; default: the field's main valve

## POST /valves/{valve_id}/open

Opens a valve for a fixed time.

Request body:

- duration_min (integer, required): how long to keep it open, in minutes
"""

ALL = {Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE}


def _api(request: Request) -> Response:
    return json_response({"status": "ok"})


def _sent(query: str) -> list[tuple[str, object]]:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    with LoopbackServer(_api) as api:
        router.approve(router.inspect(PAGE), base_url=api.base_url, provider="f", allow_write=True)
        plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=3)
        router.execute(plan, allow_effects=["read", "write"], approve=lambda *a: True)
        return [(r.path, json.loads(r.body) if r.body else None) for r in api.requests]


def test_an_id_of_a_later_part_is_not_the_first_parts() -> None:
    sent = _sent("schedule 8 mm of irrigation on field F-12, then open valve V-8 for 10 minutes")
    # the schedule takes no valve; the opening, under the part similarity floor of the test's
    # hashing encoder, was left for its own request until trial 21's parts planned by their
    # verb (planning/weak_parts: "open" is the route's, and its words fill every argument)
    assert sent == [
        ("/schedules", {"field_id": "F-12", "depth_mm": 8}),
        ("/valves/V-8/open", {"duration_min": 10}),
    ]


@pytest.mark.parametrize(
    "query",
    [
        "schedule 8 mm of irrigation on field F-12 with valve V-8, then open valve V-8 for 10 minutes",
        "schedule 8 mm of irrigation on field F-12 using valve V-8",
    ],
)
def test_an_id_its_own_part_writes_is_kept(query: str) -> None:
    sent = _sent(query)
    assert sent[0] == ("/schedules", {"field_id": "F-12", "depth_mm": 8, "valve_id": "V-8"})
