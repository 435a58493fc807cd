"""A terse part of a request is planned by its best route where that does the part's verb
(user trial 21).

"close WO-1182 and also assign WO-1190 to Lena" assigned nothing: the part "assign WO-1190
to Lena" fell under the part similarity floor (a cosine), though ``assignWorkOrder`` was its
best route and does just that. "acknowledge AL-81 and shelve it for 2 hours" shelved nothing:
its right side, too short for a plain "and" and naming no id, was never a part, and
"shelve" is a verb no table knows. A change a part opens with, its best route doing it, is
planned; "it" after a change verb joined by "and" is the thing before ("shelve AL-81 for 2
hours"), up to a preposition ("assign WO-1182 to Marco then schedule it ..." schedules
WO-1182, not "WO-1182 to Marco"). What the server receives is checked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.retrieval.intents import split_intents

from servers.loopback import LoopbackServer, Request, Response, json_response


def _id(name: str, prefix: str) -> list[dict[str, Any]]:
    schema = {"type": "string", "pattern": f"^{prefix}-[0-9]+$"}
    return [{"name": name, "in": "path", "required": True, "schema": schema}]


def _body(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _op(op: str, summary: str, params: list[Any], body: Any = None) -> dict[str, Any]:
    out = {"operationId": op, "summary": summary, "parameters": params,
           "responses": {"200": {"description": "ok"}}}  # fmt: skip
    return {**out, "requestBody": body} if body else out


_MINUTES = {"type": "integer", "minimum": 1, "x-unit": "min", "description": "in minutes"}


def _document(base_url: str) -> dict[str, Any]:
    wo, al = _id("wo_id", "WO"), _id("alarm_id", "AL")
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant Maintenance", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/work-orders": {"get": _op("listWorkOrders", "List work orders", [])},
            "/work-orders/{wo_id}": {"get": _op("getWorkOrder", "Get a work order", wo)},
            "/work-orders/{wo_id}/close": {"post": _op("closeWorkOrder", "Close a work order", wo)},
            "/work-orders/{wo_id}/cancel": {"post": _op("cancelWorkOrder", "Cancel a work order", wo)},
            "/work-orders/{wo_id}/assign": {"post": _op(
                "assignWorkOrder", "Assign a work order to a technician", wo,
                _body({"assignee": {"type": "string"}}, ["assignee"]))},
            "/alarms": {"get": _op("listAlarms", "List alarms", [])},
            "/alarms/{alarm_id}/acknowledge": {"post": _op("acknowledgeAlarm", "Acknowledge an alarm", al)},
            "/alarms/{alarm_id}/shelve": {"post": _op(
                "shelveAlarm", "Shelve (suppress) an alarm for a number of minutes", al,
                _body({"duration_minutes": _MINUTES}, ["duration_minutes"]))},
        },
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({})


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return SchemaRouter()  # the shipped encoder: the floor is its cosine


def _sent(router: SchemaRouter, query: str) -> list[tuple[str, Any]]:
    with LoopbackServer(_app) as server:
        router.add_openapi(_document(server.base_url), provider="plant", replace=True)
        request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
        plan = router.plan(request, max_calls=3)
        if plan.steps and all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.path, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("close WO-1182 and also assign WO-1190 to Lena",
         [("/work-orders/WO-1182/close", None),
          ("/work-orders/WO-1190/assign", {"assignee": "Lena"})]),
        ("acknowledge AL-81 and shelve it for 2 hours",
         [("/alarms/AL-81/acknowledge", None),
          ("/alarms/AL-81/shelve", {"duration_minutes": 120})]),
    ],
)  # fmt: skip
def test_each_change_is_sent(router: SchemaRouter, query: str, sent: list[Any]) -> None:
    assert _sent(router, query) == sent


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        ("acknowledge AL-81 and shelve it for 2 hours", ["acknowledge AL-81", "shelve AL-81 for 2 hours"]),
        ("assign WO-1182 to Marco then schedule it for Friday",
         ["assign WO-1182 to Marco", "schedule WO-1182 for Friday"]),
        ("show ticket T-1 and close it", ["show ticket T-1 and close it"]),  # a read first
        ("search and replace it", ["search and replace it"]),
        # a sentence before that names no id gives "them" no thing (MetaTool's own request)
        ("I need to search for specific posts on my WordPress website. Fetch them for me!",
         ["I need to search for specific posts on my WordPress website.", "Fetch them for me!"]),
        # an -ing form continues the clause; "need" is no change of the thing before
        ("put 8005550100 on our do-not-contact list so we stop calling and texting it",
         ["put 8005550100 on our do-not-contact list so we stop calling and texting it"]),
        ("Spin up i-0a1b2c3d4e5f67890 again, I stopped it last night and need it for the 3pm demo",
         ["Spin up i-0a1b2c3d4e5f67890 again, I stopped it last night",
          "need it for the 3pm demo"]),
    ],
)  # fmt: skip
def test_it_is_the_thing_before(query: str, parts: list[str]) -> None:
    assert split_intents(query) == parts
