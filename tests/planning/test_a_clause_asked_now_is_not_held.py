"""A later time holds the clauses it is said of, not one asked now, a time a change sets, nor
a read's "after".

"Refund order O-1 now and delete customer C-1 tomorrow" sent only a read of the customer: the
later time held its whole sentence, the refund asked "now" with it (and so in "고객 C-1은 내일
삭제하고 주문 O-1은 지금 환불해줘"). "Refund order O-1 and set
a reminder for tomorrow" and "Change task T-1 due date to next Friday and refund order O-1"
withheld the refund for the time the reminder and the task take as their own value, and
"Refund order O-1 and show invoices after the migration" for the "after" that says which
invoices. Each refund is now sent, and a change the time is said of stays withheld and named.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from desk_serving import Served, answering_op, sent, serving

from helpers import desk_paths, path_id

_S = {"type": "string"}


def _op(op: str, summary: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    out = answering_op(op, summary)
    if body:
        schema = {"type": "object", "properties": body}
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return out


def _paths() -> dict[str, Any]:
    """The desk, invoices to list, and a reminder and a task that take a date or a time."""
    return desk_paths(lambda op, summary: _op(op, summary)) | {
        "/invoices": {"get": _op("list_invoices", "List invoices")},
        "/reminders": {
            "post": _op("create_reminder", "Create a reminder", {"remind_at": _S, "text": _S})
        },
        "/tasks/{task_id}": {
            "parameters": path_id("task_id"),
            "get": _op("get_task", "Get a task"),
            "patch": _op("update_task", "Update a task", {"due_date": _S, "title": _S}),
        },
    }


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(_paths()) as served:
        yield served


def _later(plan: Any) -> list[str]:
    return [w for w in plan.warnings if "later time" in w or "condition" in w]


@pytest.mark.parametrize(
    ("query", "held"),
    [
        ("Refund order O-1 now and delete customer C-1 tomorrow", "'tomorrow'"),
        ("Delete customer C-1 tomorrow and refund order O-1 now", "'tomorrow'"),
        ("Refund order O-1 right away and delete customer C-1 next week", "'next week'"),
        ("Refund order O-1 now and delete customer C-1 if it has no orders", "'if it has no"),
        ("고객 C-1은 내일 삭제하고 주문 O-1은 지금 환불해줘", "'내일'"),
        ("고객 C-1은 내일 삭제하고, 주문 O-1은 바로 환불해줘", "'내일'"),
    ],
)
@pytest.mark.parametrize("max_calls", [2, 3])
def test_a_change_asked_now_is_sent_and_the_later_one_withheld(
    desk: Served, query: str, held: str, max_calls: int
) -> None:
    plan, got = sent(desk, query, max_calls, complete_only=True)
    assert got == [("POST", "/orders/O-1/refund"), ("GET", "/customers/C-1")], plan.warnings
    said = _later(plan)
    assert len(said) == 1 and held in said[0], plan.warnings
    assert "delete_customer with customer_id='C-1'" in said[0]


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1 and set a reminder for tomorrow",
        "Change task T-1 due date to next Friday and refund order O-1",
        "Refund order O-1 and show invoices after the migration",
    ],
)
def test_a_time_no_change_is_asked_for_holds_no_refund(desk: Served, query: str) -> None:
    """The time is the reminder's or the task's own value, or says which invoices."""
    plan, got = sent(desk, query, complete_only=True)
    assert ("POST", "/orders/O-1/refund") in got and not _later(plan), (got, plan.warnings)


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1 and delete customer C-1 tomorrow",
        "Tomorrow, refund order O-1 and delete customer C-1",
        "Refund order O-1 now or tomorrow",
        "Refund order O-1 and schedule it for tomorrow",
        "Refund order O-1 after the migration",
        "Refund order O-1 and show invoices tomorrow",
        "If order O-1 is open, refund it now and delete customer C-1",
        "Refund order O-1 now if it shipped and delete customer C-1",
        "Refund order O-1 today if it has shipped",
        "고객 C-1은 내일 삭제하고 주문 O-1을 환불해줘",
        "주문 O-1을 지금 말고 내일 환불해줘",
    ],
)
@pytest.mark.parametrize("max_calls", [1, 3])
def test_a_change_the_time_or_condition_may_be_said_of_stays_withheld(
    desk: Served, query: str, max_calls: int
) -> None:
    plan, got = sent(desk, query, max_calls, complete_only=True)
    assert all(method == "GET" for method, _ in got), (got, plan.warnings)


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1, and after the refund, delete customer C-1",
        "Refund order O-1. After the refund, delete customer C-1.",
    ],
)
def test_an_event_the_request_asks_is_an_order_of_its_changes(desk: Served, query: str) -> None:
    """ "After the refund" waits for a refund the request itself asks: both are sent, in
    order, as with "after you refund order O-1"."""
    plan, got = sent(desk, query, complete_only=True)
    assert got == [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")], plan.warnings
    assert not _later(plan), plan.warnings


@pytest.mark.parametrize(
    "query",
    [
        # another order's refund, and an event the request does not ask
        "Refund order O-2 and delete customer C-1 after the refund of order O-1",
        "Delete customer C-1 after the migration and refund order O-1",
    ],
)
def test_an_event_the_request_does_not_ask_holds_its_change(desk: Served, query: str) -> None:
    plan, got = sent(desk, query, complete_only=True)
    assert ("DELETE", "/customers/C-1") not in got, (got, plan.warnings)


@pytest.mark.parametrize(
    "query",
    ["Refund order O-1 labelled due-tomorrow", "Refund order O-1 in next week's batch"],
)
def test_a_time_in_a_name_or_a_whose_holds_nothing(desk: Served, query: str) -> None:
    plan, got = sent(desk, query, complete_only=True)
    assert got == [("POST", "/orders/O-1/refund")] and not _later(plan), plan.warnings
