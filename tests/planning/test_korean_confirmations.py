"""확정 is confirm, as 취소 is cancel: "예약 A-1002 확정해줘" (confirm appointment A-1002).

On an appointment API, the request alone was refused as off the catalog (best relevance 0.02
< 0.03 with the shipped models): no glossary word of it met the catalog's English, and the
verdict refused a change the request asks by name on the id it names, the best-ranked route
``POST /appointments/{appointment_id}/confirm``. With "취소는 하지 마" (don't cancel) after it,
the hashing router planned ``GET /appointments/A-1002``: the cancel, glossed, ranked first
and was refused, and nothing told the confirm from the read. 확정 is now glossed and read as
confirm (``index/gloss.py``, ``retrieval/actions.py``), and a flagged request asking the
change the best-ranked route is named for, on ids it names, is planned, with a warning
(``planning/flagged_changes.py``). The server is real (loopback) and records what it gets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}


def _op(op: str, summary: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "status": _S}}
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {"operationId": op, "summary": summary, "responses": {"200": ok}}


_NAME = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object", "properties": {"name": _S}}}},
    }
}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Clinic desk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/appointments/{appointment_id}": {
                "parameters": path_id("appointment_id"),
                "get": _op("getAppointment", "Get an appointment"),
            },
            "/appointments/{appointment_id}/confirm": {
                "parameters": path_id("appointment_id"),
                "post": _op("confirmAppointment", "Confirm an appointment"),
            },
            "/appointments/{appointment_id}/cancel": {
                "parameters": path_id("appointment_id"),
                "post": _op("cancelAppointment", "Cancel an appointment"),
            },
            "/departments/{department_id}": {
                "parameters": path_id("department_id"),
                "get": _op("getDepartment", "Get a department"),
                "patch": {**_op("updateDepartment", "Rename or update a department"), **_NAME},
                "delete": _op("deleteDepartment", "Delete a department"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "A-1002", "status": "ok"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _sent(router: SchemaRouter, server: LoopbackServer, query: str) -> list[tuple[str, str]]:
    router.add_openapi(_document(server.base_url), provider="clinic")
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.steps, plan.reason
    server.requests.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.method, r.path) for r in server.requests]


CONFIRM = [("POST", "/appointments/A-1002/confirm")]


def test_a_korean_confirm_is_not_refused_as_off_the_catalog(server: LoopbackServer) -> None:
    """With the shipped encoder and abstention model (the verdict flags the request)."""
    router = SchemaRouter(embedding_cache=None)
    assert _sent(router, server, "예약 A-1002 확정해줘") == CONFIRM
    plan = router.plan(PlanRequest(query="예약 A-1002 확정해줘", allowed_effects=WRITES))
    assert any("flagged off the catalog" in w for w in plan.warnings), plan.warnings


@pytest.mark.parametrize(
    "query",
    ["예약 A-1002 확정해줘", "예약 A-1002 확정해줘. 취소는 하지 마", "Confirm appointment A-1002"],
)
def test_a_korean_confirm_with_a_refused_cancel_is_the_confirm(
    server: LoopbackServer, query: str
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    assert _sent(router, server, query) == CONFIRM


def test_a_flagged_request_of_another_verb_is_still_refused(server: LoopbackServer) -> None:
    """승인 (approve) is no confirm: the verdict stands, nothing is planned or sent."""
    router = SchemaRouter(embedding_cache=None)
    router.add_openapi(_document(server.base_url), provider="clinic")
    plan = router.plan(PlanRequest(query="예약 A-1002 승인해줘", allowed_effects=WRITES))
    assert plan.steps == () and "no registered route may serve" in plan.reason
