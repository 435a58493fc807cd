"""A range of times whose end is not after its start ends the next day (user trial 21).

"schedule WO-1175 for Thursday 22:00-06:00" (a night shift, Europe/Berlin) sent
``{"start": "2026-12-10T22:00:00+01:00", "end": "2026-12-10T06:00:00+01:00"}``: a window that
ends sixteen hours before it starts. The end of a range written with clock times ("22:00",
"10pm") that is not after its start is on the next day; one written as bare hours ("from 10
to 2", which may mean the afternoon) fills nothing, and nothing is sent. What the server
receives is checked."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_TIME = {"type": "string", "format": "date-time"}
_BERLIN_MONDAY = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


def _document(base_url: str) -> dict[str, Any]:
    body = {
        "type": "object",
        "properties": {"start": _TIME, "end": _TIME},
        "required": ["start", "end"],
    }
    wo = {
        "name": "wo_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^WO-[0-9]+$"},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant Maintenance", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {"/work-orders/{wo_id}/schedule": {"post": {
            "operationId": "scheduleWorkOrder", "summary": "Schedule a work order into a shift window",
            "parameters": [wo],
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {"200": {"description": "ok"}}}}},
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({})


def _sent(query: str) -> list[Any]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="plant")
        request = PlanRequest(
            query=query,
            allowed_effects=frozenset(Effect),
            timezone="Europe/Berlin",
            now=_BERLIN_MONDAY,
        )
        plan = router.plan(request)
        if plan.steps and all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [json.loads(r.body) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("schedule WO-1175 for Thursday 22:00-06:00",
         [{"start": "2026-12-10T22:00:00+01:00", "end": "2026-12-11T06:00:00+01:00"}]),
        ("schedule WO-1175 for Thursday from 10pm to 6am",
         [{"start": "2026-12-10T22:00:00+01:00", "end": "2026-12-11T06:00:00+01:00"}]),
        ("schedule WO-1175 for Thursday 14:00-22:00",
         [{"start": "2026-12-10T14:00:00+01:00", "end": "2026-12-10T22:00:00+01:00"}]),
        ("schedule WO-1175 for Thursday from 10 to 2", []),
    ],
)  # fmt: skip
def test_the_end_follows_the_start(query: str, sent: list[Any]) -> None:
    assert _sent(query) == sent
