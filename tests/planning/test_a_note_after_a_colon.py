"""A change's note written after its word and a colon is the note it sends.

"add a note to deployment D-3: rolled back checkout" and "add a note: rolled back checkout to
deployment D-3" planned ``add_deployment_note`` with its ``note`` missing (a helper's trial),
so nothing was sent: what a request says was read only for a route that sends (notify, text,
e-mail), and "note: ..." only as a bare word ("rolled", with more words after it, refused).
The server is real (loopback) and records what it is sent."""

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


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/deployments/{deployment_id}": {
        "parameters": path_id("deployment_id"),
        "get": {"operationId": "getDeployment", "summary": "Get a deployment",
                "responses": ok({"type": "object"})},
    },
    "/deployments/{deployment_id}/notes": {
        "parameters": path_id("deployment_id"),
        "post": {"operationId": "addDeploymentNote", "summary": "Add a note to a deployment",
                 "requestBody": _body({"note": _S}, ["note"]),
                 "responses": ok({"type": "object"})},
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"ok": True})) as running:
        yield running


@pytest.fixture(scope="module")
def router(server: LoopbackServer) -> SchemaRouter:
    return served_router(openapi_document("Deploys", PATHS), server, "deploys")


@pytest.mark.parametrize(
    "query",
    [
        "add a note to deployment D-3: rolled back checkout",
        "add a note: rolled back checkout to deployment D-3",
        "Add a note on deployment D-3. note: rolled back checkout",
    ],
)
def test_the_words_after_the_notes_colon_are_sent(
    router: SchemaRouter, server: LoopbackServer, query: str
) -> None:
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    router.execute(plan, allow_effects=list(Effect), approve=lambda *_: True)
    sent = [(r.method, r.path, json.loads(r.body)) for r in server.requests if r.method == "POST"]
    assert sent == [("POST", "/deployments/D-3/notes", {"note": "rolled back checkout"})]


def test_a_note_with_no_deployment_is_kept_and_nothing_is_sent(router: SchemaRouter) -> None:
    plan = router.plan(
        PlanRequest(query="note: rolled back checkout", allowed_effects=frozenset(Effect))
    )
    assert plan.route_ids == ("deploys/rest/add_deployment_note",)
    assert plan.steps[0].arguments == {"body": {"note": "rolled back checkout"}}
    assert plan.steps[0].missing_parameters == ("deployment_id",)


@pytest.mark.parametrize(
    "query",
    [
        "add a note to deployment D-3",  # no words after a colon
        "add a note to deployment D-3 at 10:30",  # a time's colon, no note's
        "note: a. note: b. add it to deployment D-3",  # two notes: which one?
    ],
)
def test_no_note_is_guessed(router: SchemaRouter, query: str) -> None:
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert "note" not in plan.steps[0].arguments.get("body", {}), plan.steps[0].arguments


def test_a_long_note_is_read_in_linear_time(router: SchemaRouter) -> None:
    import time

    for query in (
        # where the note ends read the blanks from each of their places (16,000: 4.6 s)
        "add a note to deployment D-3: " + "x" + " " * 60_000 + "to deployment D-3",
        "add a note: " + "note to " * 12_000 + "deployment D-3",
    ):
        began = time.perf_counter()
        router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert time.perf_counter() - began < 20  # a hang, not a speed
