"""A change that would send nothing the request said, where the request gave content (trial
15's request 25: "Send a text to +15551234567 saying shipment S-205 is delayed" sent CallFire's
``POST /v2/calls`` with no body and no parameter, its body an optional array of recipients).
Now such a step lists its body as missing, the plan says what was placed nowhere, and
``execute`` sends nothing until it is given; a create the request gives nothing for is still
sent, and one given its body by hand goes out with it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError

from helpers import WRITES, ok, openapi_document, served_router
from servers.loopback import LoopbackServer, json_response

TEXT = {"type": "string"}
RECIPIENT = {"type": "object", "properties": {"phoneNumber": TEXT, "liveMessage": TEXT}}


def _optional_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": False, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/calls": {
        "post": {
            "operationId": "sendCalls",
            "summary": "Send calls to recipients",
            "parameters": [
                {"name": "campaignId", "in": "query", "required": False, "schema": TEXT},
                {"name": "defaultVoice", "in": "query", "required": False, "schema": TEXT},
            ],
            "requestBody": _optional_body({"type": "array", "items": RECIPIENT}),
            "responses": ok({"type": "object", "properties": {"id": TEXT}}),
        }
    },
    "/playlists": {
        "post": {
            "operationId": "createPlaylist",
            "summary": "Create a playlist",
            "requestBody": _optional_body(
                {"type": "object", "properties": {"name": TEXT, "public": {"type": "boolean"}}}
            ),
            "responses": ok({"type": "object", "properties": {"id": TEXT, "name": TEXT}}),
        }
    },
}


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(lambda request: json_response({"id": "X-1"})) as running:
        yield running


def _router(server: LoopbackServer, path: str) -> SchemaRouter:
    return served_router(openapi_document("Sender", {path: PATHS[path]}), server, "sender")


@pytest.mark.parametrize(
    ("text", "unplaced"),
    [
        (
            "Send a text to +15551234567 saying shipment S-205 is delayed",
            ["'S-205'", "'+15551234567'", "'shipment S-205 is delayed'"],
        ),
        ("Send a call to 555-123-4567", ["'555-123-4567'"]),
        ('Send calls with the message "the truck is late"', ["'the truck is late'"]),
    ],
)
def test_a_send_that_would_carry_nothing_the_request_gives_is_not_sent(
    server: LoopbackServer, text: str, unplaced: list[str]
) -> None:
    router = _router(server, "/calls")
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.route_ids == ("sender/rest/send_calls",)
    assert plan.missing_arguments == {"sender/rest/send_calls": ("body",)}
    (note,) = [w for w in plan.warnings if "would be sent with nothing" in w]
    assert all(value in note for value in unplaced), note
    server.requests.clear()
    with pytest.raises(ParameterValidationError, match="'body' is missing"):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert server.requests == []  # before: POST /calls, no body, no query


def test_given_its_body_it_is_sent(server: LoopbackServer) -> None:
    router = _router(server, "/calls")
    text = "Send a text to +15551234567 saying shipment S-205 is delayed"
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    body = [{"phoneNumber": "15551234567", "liveMessage": "shipment S-205 is delayed"}]
    server.requests.clear()
    router.execute(
        plan.with_arguments(0, {"body": body}), allow_effects=WRITES, approve=lambda *_: True
    )
    assert [(r.method, r.path) for r in server.requests] == [("POST", "/calls")]
    assert json.loads(server.requests[0].body) == body


@pytest.mark.parametrize("text", ["Create a new playlist", "Create a new empty playlist"])
def test_a_create_the_request_gives_nothing_for_is_still_sent(
    server: LoopbackServer, text: str
) -> None:
    router = _router(server, "/playlists")
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.missing_arguments == {}
    server.requests.clear()
    router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    assert [(r.method, r.path) for r in server.requests] == [("POST", "/playlists")]
