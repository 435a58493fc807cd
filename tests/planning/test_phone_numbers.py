"""A phone number the request writes fills the one phone parameter open (trial 13: "Cancel
booking B-1001, then send an SMS to 010-1111-2222 with the message 'Booking B-1001
cancelled'" left ``send_sms``'s ``phone`` open, the number read only as an id of no
parameter, and the plan was refused; nothing was sent)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, openapi_document, sms_document
from servers.loopback import LoopbackServer, Request, Response, json_response


def _app(request: Request) -> Response:
    return json_response({"sent": True})


def test_the_phone_number_written_fills_the_phone() -> None:
    with LoopbackServer(_app) as server:
        router = hashing_router(sms_document(server.base_url), "texts")
        query = "Send an SMS to 010-1111-2222 with the message 'Room R-1 is ready'"
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        (sent,) = [json.loads(r.body) for r in server.requests]
        assert sent == {"phone": "010-1111-2222", "message": "Room R-1 is ready"}


def test_a_date_two_numbers_or_a_refused_one_fill_no_phone() -> None:
    router = hashing_router(sms_document("http://127.0.0.1:9"), "texts")
    for query in (
        # ("on 2026-12-15" would be a later time, the SMS withheld: test_a_change_asked_for_later)
        "Send an SMS dated 2026-12-15 with the message 'Room R-1 is ready'",
        "Send an SMS to 010-1111-2222 or 010-3333-4444 with the message 'hi there'",
        "Send an SMS, not to 010-1111-2222, with the message 'hi there'",
    ):
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        assert "phone" not in plan.steps[0].arguments["body"], query


def _texts(base_url: str, to: dict[str, str]) -> dict[str, Any]:
    """A texting API whose body takes the recipient as ``to`` (its schema ``to``) and a
    ``message``."""
    properties = {"to": to, "message": {"type": "string"}}
    body = {"type": "object", "required": ["to", "message"], "properties": properties}
    send = {
        "operationId": "sendText",
        "summary": "Send a text message",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": ok({"type": "object"}),
    }
    return {**openapi_document("Texts", {"/texts": {"post": send}}), "servers": [{"url": base_url}]}


@pytest.mark.parametrize(
    "to",
    [
        {"type": "string", "description": "Recipient phone number"},
        {"type": "string", "description": "The number to text, in E.164"},
        {"type": "string", "description": "Mobile of the recipient"},
    ],
)
def test_an_e164_number_fills_a_recipient_described_as_a_phone(to: dict[str, str]) -> None:
    """Helper wrongdebit: "Send a text to +15551234567 saying shipment S-205 is delayed" left
    ``to`` ("Recipient phone number") open, and with it the message (two text parameters
    open): nothing was sent. A number in one piece after a ``+`` was no phone either."""
    with LoopbackServer(_app) as server:
        router = hashing_router(_texts(server.base_url, to), "texts")
        query = "Send a text to +15551234567 saying shipment S-205 is delayed"
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        (sent,) = [json.loads(r.body) for r in server.requests]
        assert sent == {"to": "+15551234567", "message": "shipment S-205 is delayed"}


@pytest.mark.parametrize(
    "to",
    [
        {"type": "string", "description": "Recipient e-mail address"},
        {"type": "string", "description": "Who it goes to"},  # says no phone
        {"type": "string", "format": "email"},
    ],
)
def test_a_recipient_not_described_as_a_phone_takes_none(to: dict[str, str]) -> None:
    router = hashing_router(_texts("http://127.0.0.1:9", to), "texts")
    query = "Send a text to +15551234567 saying shipment S-205 is delayed"
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert "to" not in plan.steps[0].arguments.get("body", {})
