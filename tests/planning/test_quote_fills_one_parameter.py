"""A quoted phrase that a parameter's name already took is that parameter's value only (trial
13: "Cancel booking B-1001, then send an SMS to 010-1111-2222 with the message 'Booking B-1001
cancelled'" sent ``send_sms(phone='Booking B-1001 cancelled', message='Booking B-1001
cancelled')``: ``message`` took the quote written after its name, and then the last rule, a
quoted phrase for the one required text parameter still open, gave the same quote to
``phone``)."""

from __future__ import annotations

import json

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, sms_document
from servers.loopback import LoopbackServer, Request, Response, json_response


def _app(request: Request) -> Response:
    return json_response({"sent": True})


def test_a_named_quote_is_not_given_to_another_parameter() -> None:
    with LoopbackServer(_app) as server:
        router = hashing_router(sms_document(server.base_url), "texts")
        query = "Send an SMS with the message 'Room R-1 is ready'"
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        (step,) = plan.steps
        assert step.arguments["body"] == {"message": "Room R-1 is ready"}
        assert plan.missing_arguments == {step.route_id: ("body.phone",)}
        assert server.requests == []


def test_the_quote_still_fills_the_one_open_text_parameter() -> None:
    with LoopbackServer(_app) as server:
        router = hashing_router(sms_document(server.base_url), "texts")
        query = "Send an SMS 'Room R-1 is ready' with phone: 010-1234-5678"
        plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        (sent,) = [json.loads(r.body) for r in server.requests]
        assert sent == {"phone": "010-1234-5678", "message": "Room R-1 is ready"}
