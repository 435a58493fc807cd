"""A "first" written at the end of a part puts that part before the one written before it.

"Delete customer C-1. Refund order O-1 first." sent ``DELETE /customers/C-1`` alone (the
request was one sentence to the parts, "C-1." ending none, and the refund was never planned),
and "Delete customer C-1 but refund order O-1 first" sent the deletion alone too (its "but"
read as taking back what follows: O-1 was "in a clause it says not to use"), where "Delete
customer C-1, but first refund order O-1" refunds, then deletes. Each now refunds, then
deletes; "Refund order O-1. Delete customer C-1 first." deletes, then refunds (the refund's
part, "order" read as its verb, had been taken for no part of the refund). "but the first"
and a sort order ("newest first") are no order of parts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.sequence import sequenced, written_key

from helpers import desk_paths


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(desk_paths(answering_op)) as served:
        yield served


def _sent(desk: Served, query: str) -> list[tuple[str, str]]:
    return sent(desk, query)[1]


_REFUND = ("POST", "/orders/O-1/refund")
_DELETE = ("DELETE", "/customers/C-1")


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("Delete customer C-1. Refund order O-1 first.", [_REFUND, _DELETE]),
        ("Delete customer C-1 but refund order O-1 first", [_REFUND, _DELETE]),
        ("Delete customer C-1. Refund order O-1 first of all.", [_REFUND, _DELETE]),
        ("Refund order O-1. Delete customer C-1 first.", [_DELETE, _REFUND]),
        ("Refund order O-1 but delete customer C-1 first", [_DELETE, _REFUND]),
        # as before: "but first", and a "first" that opens its part
        ("Delete customer C-1, but first refund order O-1", [_REFUND, _DELETE]),
        ("Refund order O-1 first, then delete customer C-1", [_REFUND, _DELETE]),
    ],
)
def test_a_part_ending_in_first_is_sent_before_the_one_before_it(
    desk: Served, query: str, sent: list[tuple[str, str]]
) -> None:
    assert _sent(desk, query) == sent


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Delete customer C-1 but refund order O-1 first",
            ["Delete customer C-1", "refund order O-1 first"],
        ),
        # an ordinal and a sort order order nothing
        ("Delete all customers but the first", ["Delete all customers but the first"]),
        ("Archive the tickets but show the newest first", None),
    ],
)
def test_but_before_a_part_ending_in_first_opens_a_part(text: str, parts: list[str] | None) -> None:
    assert sequenced(text) == (parts or [text])


@pytest.mark.parametrize(
    ("query", "later_first"),
    [
        ("Delete customer C-1. Refund order O-1 first.", True),
        ("Delete customer C-1. List the orders, newest first.", False),
        ("Delete customer C-1. Show me the one listed first.", False),
    ],
)
def test_written_key_puts_a_part_ending_in_first_before_the_one_before_it(
    query: str, later_first: bool
) -> None:
    keys = written_key(query, [0, query.index(". ") + 2])
    assert (keys[1] < keys[0]) is later_first


def test_but_before_a_part_ending_in_first_refuses_nothing() -> None:
    text = "Delete customer C-1 but refund order O-1 first"
    at = text.index("O-1")
    assert not Clauses(text).against_span(at, at + 3)
    # an exception still refuses: "every customer but C-2"
    kept = "Delete every customer but customer C-2"
    at = kept.index("C-2")
    assert Clauses(kept).against_span(at, at + 3)
