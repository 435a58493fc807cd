"""A change's number parameter whose description or schema declares its unit takes the one
number the request writes in that unit. User trial 17: "open valve V-8 for 45 minutes at 20
L/min" opened the valve at its default flow, ``flow_lpm`` ("Target flow rate (unit: L/min)",
from the docs' unit column) left out. Runs on loopback."""

from __future__ import annotations

import json

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

PAGE = """# Valves

Base URL: https://fieldnet.farm.local/api/v1

## POST /valves/{valve_id}/open

Opens a valve for a fixed time.

Request body:

| Parameter | Type | Unit | Required | Description |
|---|---|---|---|---|
| duration_min | integer | minutes | yes | How long to keep it open |
| flow_lpm | number | L/min | no | Target flow rate |
| pressure_max | number | kPa | no | Highest line pressure |
| pressure_min | number | kPa | no | Lowest line pressure |
"""

ALL = {Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE}


def _api(request: Request) -> Response:
    return json_response({"status": "open"})


def _sent(query: str) -> list[object]:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    with LoopbackServer(_api) as api:
        router.approve(router.inspect(PAGE), base_url=api.base_url, provider="f", allow_write=True)
        plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=1)
        router.execute(plan, allow_effects=["read", "write"], approve=lambda *a: True)
        return [json.loads(r.body) for r in api.requests]


def test_a_number_in_the_declared_unit_fills_its_parameter() -> None:
    sent = _sent("open valve V-8 for 45 minutes at 20 L/min")
    assert sent == [{"duration_min": 45, "flow_lpm": 20}]
    assert _sent("open valve V-8 for 45 minutes at 12.5 l/min") == [
        {"duration_min": 45, "flow_lpm": 12.5}
    ]


def test_a_number_in_another_unit_of_its_dimension_is_converted() -> None:
    """20 L/h is a third of a litre a minute (before: sent without the flow)."""
    assert _sent("open valve V-8 for 45 minutes at 20 L/h") == [
        {"duration_min": 45, "flow_lpm": 0.3333333333}
    ]


@pytest.mark.parametrize(
    "query",
    [
        "open valve V-8 for 45 minutes at 20 L/min or 30 L/min",  # two values
        "open valve V-8 for 45 minutes at 300 kPa",  # two parameters declare kPa
    ],
)
def test_no_number_is_guessed(query: str) -> None:
    assert _sent(query) == [{"duration_min": 45}]
