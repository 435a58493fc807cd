"""A phone number the request writes fills the one phone parameter open (trial 13: "Cancel
booking B-1001, then send an SMS to 010-1111-2222 with the message 'Booking B-1001
cancelled'" left ``send_sms``'s ``phone`` open, the number read only as an id of no
parameter, and the plan was refused; nothing was sent)."""

from __future__ import annotations

import json

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, sms_document
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
