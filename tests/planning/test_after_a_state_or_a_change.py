""" "After" a state of the world is a condition; "after" a change the user asks is an order.

"Delete customer C-1 after order O-1 is refunded", "After order O-1 is refunded, delete
customer C-1" and "주문 O-1이 환불된 후에 고객 C-1을 삭제해줘" sent ``DELETE /customers/C-1`` at
once, as if the refund had happened (no condition read, no part of its own): each is now a
change withheld on a condition, as "once order O-1 is refunded" is, with a read of the order.
"Delete customer C-1 after you refund order O-1" and "after refunding order O-1" ask for both
and stay a sequence; "주문 O-1을 환불한 후에 고객 C-1을 삭제해줘" (after refunding order O-1,
delete customer C-1) sent the deletion alone, and now refunds, then deletes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter.planning.conditions import condition_spans
from schemarouter.retrieval.intents import split_intents

from helpers import desk_paths


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(desk_paths(answering_op)) as served:
        yield served


_sent = sent


@pytest.mark.parametrize(
    ("query", "condition"),
    [
        ("Delete customer C-1 after order O-1 is refunded", "after order O-1 is refunded"),
        ("After order O-1 is refunded, delete customer C-1", "After order O-1 is refunded"),
        (
            "Delete customer C-1 after order O-1 has been refunded",
            "after order O-1 has been refunded",
        ),
        ("주문 O-1이 환불된 후에 고객 C-1을 삭제해줘", "환불된 후에"),
        ("주문 O-1이 환불되고 나서 고객 C-1을 삭제해줘", "환불되고 나서"),
    ],
)
@pytest.mark.parametrize("max_calls", [1, 3])
def test_after_a_state_of_the_world_withholds_the_change(
    desk: Served, query: str, condition: str, max_calls: int
) -> None:
    plan, sent = _sent(desk, query, max_calls)
    assert sent == [("GET", "/orders/O-1")], (plan.route_ids, plan.warnings)
    said = [w for w in plan.warnings if "condition" in w]
    assert len(said) == 1 and condition in said[0], plan.warnings
    assert "delete_customer with customer_id='C-1'" in said[0]


@pytest.mark.parametrize(
    "query",
    [
        "Delete customer C-1 after you refund order O-1",
        "Delete customer C-1 after refunding order O-1",
        "주문 O-1을 환불한 후에 고객 C-1을 삭제해줘",
        "주문 O-1을 환불한 뒤에 고객 C-1을 삭제해줘",
    ],
)
def test_after_a_change_asked_runs_it_first(desk: Served, query: str) -> None:
    plan, sent = _sent(desk, query)
    assert sent == [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")], (
        plan.route_ids,
        plan.warnings,
    )
    assert not [w for w in plan.warnings if "condition" in w], plan.warnings


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "주문 O-1을 환불한 후에 고객 C-1을 삭제해줘",
            ["주문 O-1을 환불한 후에", "고객 C-1을 삭제해줘"],
        ),
        # a state, a noun or a time before 후에 opens no part
        (
            "주문 O-1이 환불된 후에 고객 C-1을 삭제해줘",
            ["주문 O-1이 환불된 후에 고객 C-1을 삭제해줘"],
        ),
        ("주문 후에 영수증을 보여줘", ["주문 후에 영수증을 보여줘"]),
        ("2시간 후에 보고서를 보여줘", ["2시간 후에 보고서를 보여줘"]),
    ],
)
def test_korean_after_opens_a_part_only_after_a_change_asked(text: str, parts: list[str]) -> None:
    assert split_intents(text) == parts


@pytest.mark.parametrize(
    ("text", "conditions"),
    [
        ("Refund order O-1 after it has shipped", ["after it has shipped"]),
        ("Delete customer C-1 after you refund order O-1", []),
        # a participle before "after" says which things, not when to act
        ("Delete the orders created after order O-1 was refunded", []),
        ("Archive every ticket opened after ticket T-1 was closed", []),
    ],
)
def test_after_a_state_is_a_condition_but_not_after_a_participle(
    text: str, conditions: list[str]
) -> None:
    assert [text[a:b] for a, b in condition_spans(text)] == conditions
