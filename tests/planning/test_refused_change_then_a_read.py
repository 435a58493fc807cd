"""A read asked right after a refused change is of the thing refused (user trial 21).

"don't touch B-2, just tell me the setpoint" planned ``getSetpoints`` with ``equipment_tag``
missing ("the request names touch id 'B-2' in a clause it says not to use"): every id of a
refusing clause is held back, and only "it" gave one back. "Don't touch" refuses every change,
and a clause opened by "just", "only" or "simply" that asks a read and names no id reads the
one id refused. "don't change B-2, only show the alarms" planned
``setColdStoreAlarmLimit``, a write, ranked first: "only" was read as no word before a verb
(as "just" is), so the read-first rule missed the clause's "show". What the server receives
and what is planned are checked."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter

from servers.loopback import LoopbackServer, Request, Response, json_response

_TAG = {"type": "string", "pattern": "^[A-Z]{1,3}-[0-9]{1,4}$"}
_PATH_TAG = [{"name": "equipment_tag", "in": "path", "required": True, "schema": _TAG}]
_OK = {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
}


def _put(op: str, summary: str, name: str, unit: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {name: {"type": "number", "x-unit": unit}}}
    body = {
        "required": True,
        "content": {"application/json": {"schema": {**schema, "required": [name]}}},
    }
    return {"put": {"operationId": op, "summary": summary, "parameters": _PATH_TAG,
                    "requestBody": body, "responses": _OK}}  # fmt: skip


def _document(base_url: str) -> dict[str, Any]:
    tag_query = {"name": "equipment_tag", "in": "query", "schema": _TAG}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant Maintenance", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/equipment/{equipment_tag}/setpoints": {"get": {
                "operationId": "getSetpoints", "summary": "Get the current setpoints of a piece of equipment",
                "parameters": _PATH_TAG, "responses": _OK}},
            "/equipment/{equipment_tag}/setpoints/pressure": _put(
                "setPressureSetpoint", "Set the steam pressure setpoint of a boiler", "pressure_bar", "bar"),
            "/equipment/{equipment_tag}/setpoints/alarm-limit": _put(
                "setColdStoreAlarmLimit", "Set the low temperature alarm limit of a cold store", "limit_f", "degF"),
            "/alarms": {"get": {
                "operationId": "listAlarms", "summary": "List alarms",
                "parameters": [tag_query], "responses": _OK}},
            "/alarms/{alarm_id}/acknowledge": {"post": {
                "operationId": "acknowledgeAlarm", "summary": "Acknowledge an alarm",
                "parameters": [{"name": "alarm_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": _OK}},
        },
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({})


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return SchemaRouter()  # the shipped encoder ranks the write first for "only show"


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("don't touch B-2, just tell me the setpoint", [("/equipment/B-2/setpoints", {})]),
        ("don't change B-2, only show the alarms", [("/alarms", {"equipment_tag": ["B-2"]})]),
        ("don't touch B-2, just show the setpoint of B-1", [("/equipment/B-1/setpoints", {})]),
        ("don't show B-2, just list the alarms", [("/alarms", {})]),  # a read refused
    ],
)
def test_the_read_is_of_the_refused_thing(
    router: SchemaRouter, query: str, sent: list[tuple[str, dict[str, list[str]]]]
) -> None:
    with LoopbackServer(_app) as server:
        router.add_openapi(_document(server.base_url), provider="plant", replace=True)
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert [router.registry.snapshot().routes[r].endpoint.effect for r in plan.route_ids] == [
            Effect.READ
        ]
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        assert [(r.path, r.query) for r in server.requests] == sent
