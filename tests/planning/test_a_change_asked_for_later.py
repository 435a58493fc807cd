"""A change asked for a later time, or after an event no router sees, is never sent now.

"2시간 후에 주문 O-1을 환불해줘" (refund order O-1 in two hours), "Refund order O-1 in two
hours", "Delete customer C-1 tomorrow", "Cancel subscription S-1 at the end of the month" and
"Delete customer C-1 after the refund of order O-1" each sent the change at once: the router
cannot schedule it. Each is now withheld as a change on a condition is, named in a warning
with its arguments and the time, and what it is about is read in its place. A time that is
the change's own value, for a route that takes a date or a time ("Set the reminder R-1 time
to tomorrow 9am", "Schedule a meeting for tomorrow"), holds nothing back; nor does "now",
"immediately", "today", a deadline ("by tomorrow"), nor a time that says which things a read
lists ("orders created in the last two hours", "tomorrow's batch").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from desk_serving import Served, sent, serving

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.deferred import deferral_spans

from helpers import desk_paths, ok, openapi_document, path_id

_S = {"type": "string"}
_T = {"type": "string", "format": "date-time"}


def _op(
    op: str, summary: str, body: dict[str, Any] | None = None, query: str = ""
) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {"id": _S, "status": _S}})
    if body:
        schema = {"type": "object", "properties": body}
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if query:
        out["parameters"] = [{"name": query, "in": "query", "schema": _S}]
    return out


def _paths() -> dict[str, Any]:
    """The desk, a subscription's cancel, and routes that take a date-time (a reminder's
    time, a meeting's start) beside lists of orders and payments."""
    paths = desk_paths(lambda op, summary: _op(op, summary))
    return paths | {
        "/orders": {"get": _op("list_orders", "List orders", query="created_after")},
        "/payments": {"get": _op("list_payments", "List payments", query="batch")},
        "/subscriptions/{subscription_id}": {
            "parameters": path_id("subscription_id"),
            "get": _op("get_subscription", "Get a subscription"),
        },
        "/subscriptions/{subscription_id}/cancel": {
            "parameters": path_id("subscription_id"),
            "post": _op("cancel_subscription", "Cancel a subscription"),
        },
        "/reminders/{reminder_id}": {
            "parameters": path_id("reminder_id"),
            "patch": _op("update_reminder", "Update a reminder", {"time": _T}),
        },
        "/meetings": {"post": _op("schedule_meeting", "Schedule a meeting", {"start": _T})},
    }


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    """The routes on the packaged encoder (a part's words find their route by meaning)."""
    with serving(_paths()) as served:
        yield served


def _sent(desk: Served, query: str, max_calls: int = 3) -> tuple[Any, list[tuple[str, str]]]:
    return sent(desk, query, max_calls, complete_only=True)


def _later(plan: Any) -> list[str]:
    return [w for w in plan.warnings if "later time" in w]


@pytest.mark.parametrize(
    ("query", "read", "time", "withheld"),
    [
        (
            "2시간 후에 주문 O-1을 환불해줘",
            ("GET", "/orders/O-1"),
            "2시간 후에",
            "refund_order with order_id='O-1'",
        ),
        (
            "Refund order O-1 in two hours",
            ("GET", "/orders/O-1"),
            "in two hours",
            "refund_order with order_id='O-1'",
        ),
        (
            "Delete customer C-1 tomorrow",
            ("GET", "/customers/C-1"),
            "tomorrow",
            "delete_customer with customer_id='C-1'",
        ),
        (
            "Cancel subscription S-1 at the end of the month",
            ("GET", "/subscriptions/S-1"),
            "at the end of the month",
            "cancel_subscription with subscription_id='S-1'",
        ),
        (
            "Delete customer C-1 after the refund of order O-1",
            ("GET", "/orders/O-1"),
            "after the refund of order O-1",
            "delete_customer with customer_id='C-1'",
        ),
        (
            "내일 고객 C-1을 삭제해줘",
            ("GET", "/customers/C-1"),
            "내일",
            "delete_customer with customer_id='C-1'",
        ),
        (
            "Refund order O-1 next week",
            ("GET", "/orders/O-1"),
            "next week",
            "refund_order with order_id='O-1'",
        ),
    ],
)
@pytest.mark.parametrize("max_calls", [1, 3])
def test_a_change_asked_for_later_is_withheld_and_named(
    desk: Served,
    query: str,
    read: tuple[str, str],
    time: str,
    withheld: str,
    max_calls: int,
) -> None:
    plan, sent = _sent(desk, query, max_calls)
    assert sent == [read], (plan.route_ids, plan.warnings)
    said = _later(plan)
    assert len(said) == 1 and repr(time) in said[0] and withheld in said[0], plan.warnings


def test_a_change_asked_now_beside_one_asked_for_later_is_sent(
    desk: Served,
) -> None:
    query = "Refund order O-1 now, and delete customer C-1 tomorrow"
    plan, sent = _sent(desk, query)
    assert sent == [("POST", "/orders/O-1/refund"), ("GET", "/customers/C-1")], plan.warnings
    assert "delete_customer with customer_id='C-1'" in _later(plan)[0]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("Show orders created in the last two hours", [("GET", "/orders")]),
        ("List payments from tomorrow's batch", [("GET", "/payments")]),
        ("Refund order O-1 now", [("POST", "/orders/O-1/refund")]),
        ("Refund order O-1 immediately", [("POST", "/orders/O-1/refund")]),
        ("Refund order O-1 today", [("POST", "/orders/O-1/refund")]),
        ("Refund order O-1 by tomorrow", [("POST", "/orders/O-1/refund")]),
        (
            "Refund order O-1. After that, delete customer C-1.",
            [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")],
        ),
        (
            "고객 C-1을 삭제하고 그 후에 주문 O-1을 환불해줘",
            [("DELETE", "/customers/C-1"), ("POST", "/orders/O-1/refund")],
        ),
        (
            "Delete customer C-1 after you refund order O-1",
            [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")],
        ),
    ],
)
def test_no_later_time_holds_nothing_back(
    desk: Served, query: str, sent: list[tuple[str, str]]
) -> None:
    plan, got = _sent(desk, query)
    assert got == sent and not _later(plan), (plan.route_ids, plan.warnings)


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("Set the reminder R-1 time to tomorrow 9am", "desk/rest/update_reminder"),
        ("Schedule a meeting for tomorrow", "desk/rest/schedule_meeting"),
        ("Schedule a meeting next week", "desk/rest/schedule_meeting"),
    ],
)
def test_a_time_that_is_the_change_own_value_holds_nothing_back(
    desk: Served, query: str, route: str
) -> None:
    """The route takes a date-time: the time is what it sets, and the change stays planned
    (its body, which "tomorrow" does not fill, is the caller's to give)."""
    router, _ = desk
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    assert plan.route_ids == (route,) and not _later(plan), plan.warnings


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("Refund order O-1 in 2 hours", ["in 2 hours"]),
        ("Refund order O-1 at 5pm on Friday", ["at 5pm", "on Friday"]),
        ("주문 O-1을 3일 뒤에 환불해줘", ["3일 뒤에"]),
        ("Refund order O-1 later than planned", []),
        ("Refund order O-1 until Friday", []),
        ("Delete room R1 now, not later", []),
        ("Refund order O-1 today instead of tomorrow", []),
        ("Delete the orders created after the launch", []),
        ("Delete customer C-1 after the first refund", []),
        ("고객 C-1을 삭제하고 그 후에 주문 O-1을 환불해줘", []),
        ("주문 O-1을 환불한 후에 고객 C-1을 삭제해줘", []),
        ("Refund the order 'in two hours'", []),
        ("Close ticket T-1 in next week's release", []),
        ("Close ticket T-1 labelled due-tomorrow", []),
        ("Tag ticket T-1 follow-up-later, then close it tonight", ["tonight"]),
    ],
)
def test_deferral_spans(text: str, times: list[str]) -> None:
    assert [text[a:b] for a, b in deferral_spans(text)] == times


def test_a_dated_create_beside_a_change_no_verb_names_plans_without_error() -> None:
    """User trial 13's "Book room R-201 for member M-17 on 2026-12-15" raised IndexError out
    of ``plan`` once later times were read: "on 2026-12-15" is a time, the booking takes a
    date (its own value), and a loan planned beside it, whose change no verb of the request
    names, counted as held by no condition at all (an empty set of conditions held it), so
    the warning looked for a condition that was not there. Nothing holds a change where no
    condition or time does; the booking is planned with its date."""
    member = {"member_id": _S, "room_id": _S, "date": {"type": "string", "format": "date"}}
    paths = {
        "/bookings": {"post": _op("create_booking", "Book a room", member)},
        "/loans": {"post": _op("borrow_book", "Borrow a book", {"book_id": _S, "member_id": _S})},
        "/books/{book_id}": {"parameters": path_id("book_id"), "get": _op("get_book", "A book")},
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Library", paths), provider="library")
    query = "Book room R-201 for member M-17 on 2026-12-15"
    for max_calls in (1, 2, 3):
        plan = router.plan(
            PlanRequest(query=query, allowed_effects=set(Effect)), max_calls=max_calls
        )
        assert plan.route_ids and plan.route_ids[0] == "library/rest/create_booking"
        assert plan.steps[0].arguments["body"]["date"] == "2026-12-15"
