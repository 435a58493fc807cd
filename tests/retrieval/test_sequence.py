"""A request that orders its parts with "after" / "before" and a verb's -ing form (trial Z2:
"Delete customer C-1 after refunding order O-1" planned the deletion alone, silent on the
refund)."""

from __future__ import annotations

import pytest

from schemarouter.retrieval.actions import request_verbs
from schemarouter.retrieval.intents import split_intents
from schemarouter.retrieval.sequence import sequenced, where_written, written_key


@pytest.mark.parametrize(
    ("clause", "pieces"),
    [
        (
            "Delete customer C-1 after refunding order O-1",
            ["Delete customer C-1", "refunding order O-1"],
        ),
        (
            "Close ticket T-1 after cancelling the order",
            ["Close ticket T-1", "cancelling the order"],
        ),
        ("delete the branch after merging it", ["delete the branch", "merging it"]),
        (
            "After refunding order O-1, delete customer C-1",
            ["refunding order O-1", "delete customer C-1"],
        ),
        # an -ing word before no thing opens no part
        ("Show me all sales after marketing campaign launch", None),
        ("the day before opening hours", None),
        ("orders placed after morning 9am", None),
    ],
)
def test_an_ing_clause_after_after_or_before_is_a_part(
    clause: str, pieces: list[str] | None
) -> None:
    assert [p.strip(" ,") for p in sequenced(clause)] == (pieces or [clause])


@pytest.mark.parametrize(
    ("query", "order"),
    [
        # the part after "after" happens first; "before" keeps the written order
        ("Delete customer C-1 after refunding order O-1", ["refunding", "Delete"]),
        ("Cancel order O-1 before closing ticket T-1", ["Cancel", "closing"]),
        ("After refunding order O-1, delete customer C-1", ["refunding", "delete"]),
        ("Before closing ticket T-1, cancel order O-1", ["cancel", "closing"]),
    ],
)
def test_the_parts_happen_in_the_order_the_request_says(query: str, order: list[str]) -> None:
    parts = split_intents(query)
    assert len(parts) == 2
    keys = written_key(query, [query.find(p) for p in parts])
    happens = [p for _, p in sorted(zip(keys, parts, strict=True))]
    assert [p.split()[0] for p in happens] == order


def test_the_change_after_after_is_a_change_asked() -> None:
    assert request_verbs("Close ticket T-1 after cancelling order O-1") == {"close", "cancel"}
    assert request_verbs("Close ticket T-1 after cancelling the order") == {"close", "cancel"}


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        # a verb and a pronoun does that to the thing of the part before (trial Z1: "then
        # delete it" joined the part before as too short, and the deletion went unplanned)
        ("Close ticket T-1, then delete it", ["Close ticket T-1", "delete ticket T-1"]),
        (
            "Stop application web-metrics, then delete it",
            ["Stop application web-metrics", "delete application web-metrics"],
        ),
        ("Close ticket T-1 and then archive them", ["Close ticket T-1", "archive ticket T-1"]),
        # no part before it: the request as written
        ("Delete it", ["Delete it"]),
    ],
)
def test_a_verb_and_a_pronoun_is_a_part_on_the_thing_before(query: str, parts: list[str]) -> None:
    assert split_intents(query) == parts
    # and it is placed where its verb is written
    keys = written_key(query, [where_written(query, p) for p in parts])
    assert keys == sorted(keys) and min(keys) >= 0
