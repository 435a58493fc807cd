"""A question about a change asks none (trial Z3).

With every effect allowed, "Can I cancel appointment A-1001?" planned ``cancel_appointment``
(ranked first; no body to withhold, its id the request's) and ``execute`` sent
``POST /appointments/A-1001/cancel``: the question named the change, and a change named was
planned. A question whether or why to change plans a read of the same thing; "Can you cancel
...?" asks the change politely and still plans it."""

from __future__ import annotations

import pytest
from desk_serving import answering_op, sent, serving

from schemarouter.index import HashingEncoder
from schemarouter.planning.questions import asks_whether

from helpers import path_id

PATHS = {
    "/appointments/{appointment_id}": {
        "parameters": path_id("appointment_id"),
        "get": answering_op("getAppointment", "Get an appointment"),
    },
    "/appointments/{appointment_id}/cancel": {
        "parameters": path_id("appointment_id"),
        "post": answering_op("cancelAppointment", "Cancel an appointment"),
    },
    "/appointments/{appointment_id}/confirm": {
        "parameters": path_id("appointment_id"),
        "post": answering_op("confirmAppointment", "Confirm an appointment"),
    },
}


def _run(query: str) -> tuple[list[str], list[tuple[str, str]]]:
    with serving(PATHS, "clinic", HashingEncoder()) as served:
        plan, requests = sent(served, query)
    return [s.route_id.rsplit("/", 1)[-1] for s in plan.steps], requests


@pytest.mark.parametrize(
    "query",
    [
        "Can I cancel appointment A-1001?",
        "Should I cancel appointment A-1001?",
        "Why cancel appointment A-1001?",
        "Do we need to cancel appointment A-1001?",
        "Is it okay to cancel appointment A-1001?",
    ],
)
def test_a_question_whether_to_change_sends_no_change(query: str) -> None:
    steps, sent = _run(query)
    assert steps[:1] == ["get_appointment"]
    assert sent == [("GET", "/appointments/A-1001")]


@pytest.mark.parametrize(
    "query", ["Can you cancel appointment A-1001?", "Cancel appointment A-1001"]
)
def test_a_polite_request_still_changes(query: str) -> None:
    steps, sent = _run(query)
    assert steps == ["cancel_appointment"]
    assert sent == [("POST", "/appointments/A-1001/cancel")]


@pytest.mark.parametrize(
    ("query", "whether"),
    [
        ("주문 O-1 환불할까?", True),
        ("예약 A-1 취소해도 돼?", True),
        ("예약 A-1 취소해줘", False),
        ("Could you cancel appointment A-1?", False),
        ("Can I cancel appointment A-1? Cancel it.", False),
    ],
)
def test_asks_whether(query: str, whether: bool) -> None:
    assert asks_whether(query) is whether
