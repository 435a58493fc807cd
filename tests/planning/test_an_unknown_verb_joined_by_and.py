"""A change of a verb no table knows, joined by "and" to another change, is a part of its own
(review 17): "Refund order O-1 and delete customer C-1" and "Refund order O-1 and delete
customer C-1 after the refund" planned the refund only (the deletion named in a warning, "no
step takes customer id 'C-1'"): the split of two changes joined by "and" wanted a verb its
table knows on each side, and "refund" is in none; and "Refund the order O-1 and delete
customer C-1" (an article between the verb and its thing) still did (helper wrongdebit).
The server is real (loopback) and records
what it is sent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter.retrieval.intents import split_intents

from helpers import desk_paths


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(desk_paths(answering_op)) as served:
        yield served


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        ("Refund order O-1 and delete customer C-1",
         [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")]),
        ("Refund order O-1 and delete customer C-1 after the refund",
         [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")]),
        ("Delete customer C-1 and refund order O-1",
         [("DELETE", "/customers/C-1"), ("POST", "/orders/O-1/refund")]),
        # refused: the deletion is not sent
        ("Refund order O-1 and don't delete customer C-1", [("POST", "/orders/O-1/refund")]),
        # an article between the verb and its thing: one part, the refund only (helper
        # wrongdebit)
        ("Refund the order O-1 and delete customer C-1",
         [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")]),
        ("Refund an order O-1 and delete the customer C-1",
         [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")]),
        ("Refund the order O-1 and don't delete customer C-1", [("POST", "/orders/O-1/refund")]),
    ],
)  # fmt: skip
def test_both_changes_are_sent(desk: Served, query: str, calls: list[tuple[str, str]]) -> None:
    assert sent(desk, query)[1] == calls


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1 and O-2",  # one change of two ids
        "Refund order O-1 and refund order O-2",  # the same change twice
        "Refund the order O-1 and O-2",
    ],
)
def test_what_joins_no_two_changes_splits_nothing(query: str) -> None:
    assert split_intents(query) == [query]
