"""A read's optional filter whose pattern names its ids takes the one token that fits it
(user trial 21).

"list open work orders for P-101" sent ``GET /work-orders?status=open``, every open work order
of the plant: ``equipment_tag`` (optional, ``pattern: ^[A-Z]{1,3}-[0-9]{1,4}$``) was left out,
as only a required parameter bound by its pattern, and "show active alarms on boiler B-2"
listed every active alarm ("the request names boiler id 'B-2', which no step takes"). A read's
optional parameter now binds by its pattern as a required one does: one token, fitting no
other open parameter, that no argument holds. A change's optional parameters do not."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

_TAG = {"type": "string", "pattern": "^[A-Z]{1,3}-[0-9]{1,4}$"}
_ITEMS = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object"}}}}
_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": _ITEMS}}}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema}


def _document(base_url: str) -> dict[str, Any]:
    status = {"type": "string", "enum": ["open", "closed"]}
    state = {"type": "string", "enum": ["active", "acknowledged", "shelved"]}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant Maintenance", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/work-orders": {"get": {
                "operationId": "listWorkOrders", "summary": "List work orders",
                "parameters": [_query("status", status), _query("equipment_tag", _TAG)],
                "responses": _OK}},
            "/alarms": {"get": {
                "operationId": "listAlarms", "summary": "List alarms",
                "parameters": [_query("state", state), _query("equipment_tag", _TAG)],
                "responses": _OK}},
        },
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({"items": []})


def _sent(query: str) -> list[tuple[str, dict[str, list[str]]]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="plant")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        router.execute(plan)
        return [(r.path, r.query) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("list open work orders for P-101",
         [("/work-orders", {"status": ["open"], "equipment_tag": ["P-101"]})]),
        ("show active alarms on boiler B-2",
         [("/alarms", {"state": ["active"], "equipment_tag": ["B-2"]})]),
        ("list open work orders", [("/work-orders", {"status": ["open"]})]),
        ("show alarms on B-2 or 7", [("/alarms", {"equipment_tag": ["B-2"]})]),
    ],
)  # fmt: skip
def test_the_filter_takes_the_tag(query: str, sent: list[Any]) -> None:
    assert _sent(query) == sent
