"""A sentence that refuses a change, then "it" in the next sentence for another change.

"Don't cancel shipment S-205. Reroute it to depot D-4" sent nothing (a helper's trial; with
a comma in place of the stop the reroute was sent): the two sentences were two parts, the
first part's best route, ``cancel_shipment``, was planned though the request says not to
cancel (with its id held back, so ``execute`` refused the whole plan), and the reroute's step
was filled from its own part's words, where S-205 is not written, so "it" had nothing to
take. Now the refused part plans nothing and the reroute takes S-205; the cancel is never
sent. The server is real (loopback) and records what it is sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import ok, openapi_document, path_id, served_router
from servers.loopback import LoopbackServer, json_response

_S = {"type": "string"}
_DEPOT = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"depot_id": _S}, "required": ["depot_id"]}
        }
    },
}


def _op(operation_id: str, summary: str, **more: Any) -> dict[str, Any]:
    answer = ok({"type": "object", "properties": {"id": _S, "status": _S}})
    return {"operationId": operation_id, "summary": summary, "responses": answer, **more}


PATHS = {
    "/shipments/{shipment_id}": {
        "parameters": path_id("shipment_id"),
        "get": _op("getShipment", "Get a shipment"),
    },
    "/shipments/{shipment_id}/cancel": {
        "parameters": path_id("shipment_id"),
        "post": _op("cancelShipment", "Cancel a shipment"),
    },
    "/shipments/{shipment_id}/reroute": {
        "parameters": path_id("shipment_id"),
        "post": _op("rerouteShipment", "Reroute a shipment to another depot", requestBody=_DEPOT),
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"id": "S-205", "status": "ok"})) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Cold chain", PATHS), server, "coldchain")


def _sent(router: SchemaRouter, server: LoopbackServer, query: str) -> list[tuple[str, Any]]:
    """What the server receives once the plan of ``query`` runs, every effect allowed and
    every change approved; a plan with an argument missing sends nothing."""
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    if not plan.missing_arguments:
        router.execute(plan, allow_effects=list(Effect), approve=lambda *_: True)
    return [(r.path, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.mark.parametrize(
    "query",
    [
        "Don't cancel shipment S-205. Reroute it to depot D-4",
        "Don't cancel shipment S-205. Reroute it to depot D-4 instead.",
        "Do not cancel shipment S-205. Please reroute it to depot D-4.",
        "Don't cancel shipment S-205, reroute it to depot D-4",  # one sentence: sent before
    ],
)
def test_the_change_asked_of_it_is_sent_and_the_refused_one_never(
    router: SchemaRouter, server: LoopbackServer, query: str
) -> None:
    assert _sent(router, server, query) == [("/shipments/S-205/reroute", {"depot_id": "D-4"})]


@pytest.mark.parametrize(
    "query",
    [
        "Don't cancel shipment S-205. Cancel it later.",  # the refused change again
        "Don't cancel shipment S-205. Don't reroute it either.",
    ],
)
def test_nothing_is_sent_where_it_is_refused_again(
    router: SchemaRouter, server: LoopbackServer, query: str
) -> None:
    assert [path for path, _ in _sent(router, server, query) if "/cancel" in path] == []
    assert [path for path, _ in _sent(router, server, query) if "/reroute" in path] == []
