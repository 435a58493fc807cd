""" "Drop" a quantity by or to a number lowers it; it deletes nothing (user trial 21).

"drop the B-2 outlet temperature setpoint by 9 degF" read "drop" as a deletion, so the
plant's ``decommissionEquipment`` (fifth of the five best) was planned before the setpoint
it asked to lower, ranked first, and ``DELETE /equipment/B-2`` was sent: a boiler taken out
of service by a request to lower a number. A number after "by" or "to" in the verb's clause
makes "drop" a change of a value; "drop boiler B-2" still deletes. What the server receives
is checked."""

from __future__ import annotations

import time
from typing import Any

import pytest
from forking import in_child

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.actions import read_request, request_verbs

from servers.loopback import LoopbackServer, Request, Response, json_response

_TAG_SCHEMA = {"type": "string", "pattern": "^[A-Z]{1,3}-[0-9]{1,4}$"}
_TAG = [
    {"name": "equipment_tag", "in": "path", "required": True, "schema": _TAG_SCHEMA,
     "description": "Equipment tag such as P-101 or B-2"}
]  # fmt: skip
_OK = {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
}


def _setpoint(op: str, summary: str, name: str, unit: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {name: {"type": "number", "x-unit": unit}}}
    schema["required"] = [name]
    return {
        "operationId": op,
        "summary": summary,
        "parameters": _TAG,
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": _OK,
    }


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Plant", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/equipment/{equipment_tag}": {
                "get": {"operationId": "getEquipment", "summary": "Get equipment",
                        "parameters": _TAG, "responses": _OK},
                "delete": {"operationId": "decommissionEquipment",
                           "summary": "Decommission equipment (removes it from service)",
                           "parameters": _TAG, "responses": _OK},
            },
            "/equipment/{equipment_tag}/setpoints/temperature": {"put": _setpoint(
                "setTemperatureSetpoint", "Set the outlet temperature setpoint of a boiler",
                "temperature", "degC")},
            "/equipment/{equipment_tag}/setpoints/pressure": {"put": _setpoint(
                "setPressureSetpoint", "Set the steam pressure setpoint of a boiler",
                "pressure_bar", "bar")},
        },
    }  # fmt: skip


def _app(request: Request) -> Response:
    return json_response({"equipment_tag": "B-2"})


def _sent(query: str) -> list[tuple[str, str, bytes]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="plant")
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        if plan.steps and all(not step.missing_parameters for step in plan.steps):
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        return [(r.method, r.path, r.body) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        # a difference fills no absolute setpoint: nothing is sent, nothing decommissioned
        ("drop the B-2 outlet temperature setpoint by 9 degF", []),
        ("Drop the B-2 steam pressure setpoint to 9 bar",
         [("PUT", "/equipment/B-2/setpoints/pressure", b'{"pressure_bar":9}')]),
        ("Decommission equipment B-2", [("DELETE", "/equipment/B-2", b"")]),
    ],
)  # fmt: skip
def test_a_drop_by_a_number_lowers_it(query: str, sent: list[tuple[str, str, bytes]]) -> None:
    assert _sent(query) == sent


@pytest.mark.parametrize(
    ("query", "verbs"),
    [
        ("drop the B-2 outlet temperature setpoint by 9 degF", {"update"}),
        ("Drop the fan speed to 40%", {"update"}),
        ("drop table T-1", {"delete"}),
        ("Drop boiler B-2 from the plant", {"delete"}),
        ("drop the old backups and set the limit to 5", {"delete"}),
    ],
)
def test_the_verb_is_read(query: str, verbs: set[str]) -> None:
    assert request_verbs(query) == verbs


def test_a_long_request_of_drops_is_read_in_time() -> None:
    """The twentieth review: each "drop" scanned lazily on to the next comma, so 100,000
    characters of "drop x " took 227 s of CPU in ``plan`` (time in the square of the text);
    now the numbers after "by" / "to" and the commas are found once. The bound catches the
    blow-up only: a linear reading takes well under a second."""

    def job() -> float:
        start = time.process_time()
        read_request("drop x " * 14_286)
        return time.process_time() - start

    status, spent = in_child(job, wait=120)
    assert status == "ok" and isinstance(spent, float)
    assert spent < 5.0
