"""A change the request makes on a condition about the world is not sent as if it held (the
tenth security review).

"Delete customer C-1 once order O-1 is refunded", "If order O-1 is refunded, delete customer
C-1", "Cancel appointment A-1 unless the patient confirms", "주문 O-1이 환불되면 고객 C-1을
삭제해줘": each planned the change at once, ready to send ("once" was read as no condition at
all; the others said so in a warning only), and ``execute`` with writes allowed sent it. A
router cannot check what the user says about the world: the change is withheld and named, and
a read of what the condition is about is planned in its place, where a route serves it."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from helpers import desk_paths, ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}


def _op(op: str, summary: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": _S, "status": _S, "balance": _S}}
    return {"operationId": op, "summary": summary, "responses": ok(schema)}


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            **desk_paths(_op),
            "/appointments/{appointment_id}": {
                "parameters": path_id("appointment_id"),
                "get": _op("get_appointment", "Get an appointment"),
            },
            "/appointments/{appointment_id}/cancel": {
                "parameters": path_id("appointment_id"),
                "post": _op("cancel_appointment", "Cancel an appointment"),
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "x", "status": "open", "balance": "0"})


def _run(query: str, max_calls: int = 3) -> tuple[Any, list[tuple[str, str]]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="desk")
        request = PlanRequest(query=query, allowed_effects=frozenset(Effect))
        plan = router.plan(request, max_calls=max_calls)
        if plan.steps:
            router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
        sent = [(r.method, r.path) for r in server.requests]
    return plan, sent


@pytest.mark.parametrize(
    ("query", "condition", "read"),
    [
        (
            "Delete customer C-1 once order O-1 is refunded",
            "once order O-1 is refunded",
            "/orders/O-1",
        ),
        (
            "If order O-1 is refunded, delete customer C-1",
            "If order O-1 is refunded",
            "/orders/O-1",
        ),
        (
            "Delete customer C-1 as soon as order O-1 is refunded",
            "order O-1 is refunded",
            "/orders/O-1",
        ),
        (
            "Delete customer C-1 when its balance is zero",
            "when its balance is zero",
            "/customers/C-1",
        ),
        (
            "Cancel appointment A-1 unless the patient confirms",
            "unless the patient confirms",
            "/appointments/A-1",
        ),
        ("주문 O-1이 환불되면 고객 C-1을 삭제해줘", "환불되면", "/orders/O-1"),
        ("고객 C-1은 주문 O-1이 환불된 경우에만 삭제해줘", "경우에만", "/orders/O-1"),
        # a noun and the copula's -이면 (trial 13: "예약 B-1002가 대기 중이면 취소해줘" cancelled)
        ("예약 A-1이 대기 중이면 취소해줘", "대기 중이면", "/appointments/A-1"),
        ("고객 C-1이 휴면 계정이면 삭제해줘", "계정이면", "/customers/C-1"),
        # beside the courtesies and the concessions below, each still a condition
        ("Delete customer C-1 in case its balance is zero", "in case its", "/customers/C-1"),
        ("Delete customer C-1 as agreed if its balance is zero", "if its", "/customers/C-1"),
        (
            "Delete customer C-1 as requested when its balance is zero",
            "when its balance is zero",
            "/customers/C-1",
        ),
        (
            "Delete customer C-1 as requested when it's closed",
            "when it's closed",
            "/customers/C-1",
        ),
    ],
)
@pytest.mark.parametrize("max_calls", [1, 3])
def test_a_change_on_a_condition_is_not_sent_and_its_condition_is_read(
    query: str, condition: str, read: str, max_calls: int
) -> None:
    plan, sent = _run(query, max_calls)
    assert sent == [("GET", read)], (plan.route_ids, plan.warnings, plan.reason)
    said = [w for w in plan.warnings if "condition" in w]
    assert len(said) == 1 and condition in said[0], plan.warnings
    assert "not planned" in said[0]


@pytest.mark.parametrize(
    ("query", "sent_change"),
    [
        ("Delete customer C-1", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 at once", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 if possible", ("DELETE", "/customers/C-1")),
        # courtesies, as "if possible" (helper overheld: each was withheld as a condition)
        ("Delete customer C-1 when you get a chance", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 when convenient", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 if you have time", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 when it's convenient", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 unless told otherwise", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 unless I say otherwise", ("DELETE", "/customers/C-1")),
        # the change is made whatever holds, or the "when" says when it was agreed
        ("Delete customer C-1 even if it has orders", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 no matter if it has orders", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 just in case", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 as requested when they called", ("DELETE", "/customers/C-1")),
        ("Delete customer C-1 as we agreed when we spoke", ("DELETE", "/customers/C-1")),
        ("Refund order O-1 and let me know when it is done", ("POST", "/orders/O-1/refund")),
        ("주문 O-1 환불해줘, 완료되면 알려줘", ("POST", "/orders/O-1/refund")),
    ],
)
def test_a_change_with_no_condition_on_it_is_sent(query: str, sent_change: tuple[str, str]) -> None:
    plan, sent = _run(query)
    assert sent == [sent_change], (plan.route_ids, plan.warnings)
    assert not [w for w in plan.warnings if "condition" in w], plan.warnings
