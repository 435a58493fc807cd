"""A condition in a sentence or clause of its own holds the change before it; a lower-case
"if" after an id's stop starts a sentence; "when" that asks a question is no condition.

"Refund order O-1. Only if it has shipped.", "Refund order O-1, but only if it has shipped.",
"..., but only once it is returned" and "주문 O-1을 환불해줘. 배송되지 않았으면." sent the
refund: the condition held only its own words (the Korean one, before a stop, was not even
read). Each refund is now withheld, named and its order read. "Refund order O-1. if C-1 has no open orders, delete C-1." withheld the
refund asked outright: "O-1." before a lower-case word ended no sentence, and the condition
held both; it now holds the deletion only, as with a capital "If" ("e.g. if" and "approx.
if" go on in their sentence). "When was order O-1 created? Refund it." withheld the refund on
the question's "when".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter.planning.conditions import condition_scopes

from helpers import desk_paths


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(desk_paths(answering_op)) as served:
        yield served


@pytest.mark.parametrize(
    ("query", "condition"),
    [
        ("Refund order O-1. Only if it has shipped.", "'Only if it has shipped'"),
        ("Refund order O-1. only if it has shipped.", "'only if it has shipped'"),
        ("Refund order O-1, but only if it has shipped.", "'only if it has shipped'"),
        ("Refund order O-1. But only if it has shipped.", "'only if it has shipped'"),
        ("Refund order O-1, but only once it is returned", "'once it is returned'"),
        ("주문 O-1을 환불해줘. 배송되지 않았으면.", "'배송되지 않았으면'"),
        ("주문 O-1을 환불해줘, 배송되지 않았으면.", "'배송되지 않았으면'"),
    ],
)
@pytest.mark.parametrize("max_calls", [1, 3])
def test_a_condition_of_its_own_holds_the_change_before_it(
    desk: Served, query: str, condition: str, max_calls: int
) -> None:
    plan, got = sent(desk, query, max_calls)
    assert got == [("GET", "/orders/O-1")], (got, plan.warnings)
    said = [w for w in plan.warnings if "condition" in w]
    assert len(said) == 1 and condition in said[0], plan.warnings
    assert "refund_order with order_id='O-1'" in said[0]


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1. if C-1 has no open orders, delete C-1.",
        "Refund order O-1. If C-1 has no open orders, delete C-1.",
        "Refund order O-1 in full. if C-1 has no open orders, delete C-1.",
        "Refund order O-1. and if C-1 has no open orders, delete C-1.",
        "When was order O-1 created? Refund it.",
    ],
)
def test_a_change_asked_outside_the_condition_is_sent(desk: Served, query: str) -> None:
    plan, got = sent(desk, query)
    assert ("POST", "/orders/O-1/refund") in got, (got, plan.warnings)
    assert ("DELETE", "/customers/C-1") not in got, (got, plan.warnings)


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1, e.g. if it shipped",
        "Refund approx. half of order O-1 if it shipped",
        "Refund order O-1 approx. if it shipped, in full",
        "When was order O-1 created? Refund it if it shipped.",
        "Refund order O-1 when it is shipped?",
        "Refund order O-1 when you have the tracking number",
    ],
)
def test_a_change_the_condition_holds_stays_withheld(desk: Served, query: str) -> None:
    plan, got = sent(desk, query)
    assert all(method == "GET" for method, _ in got), (got, plan.warnings)


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Refund order O-1. if C-1 is idle, delete C-1.", "if C-1 is idle, delete C-1."),
        ("Refund order O-1, e.g. if it shipped", "Refund order O-1, e.g. if it shipped"),
        ("Refund order O-1. Only if it shipped.", "Refund order O-1. Only if it shipped."),
        ("When did O-1 ship? Refund it.", None),
    ],
)
def test_condition_scopes(text: str, held: str | None) -> None:
    assert [text[a:b] for _, _, a, b in condition_scopes(text)] == ([held] if held else [])
