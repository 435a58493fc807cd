"""A condition written in lower case after an id's full stop starts a part of its own
(review 17): "Refund order O-2. if order O-1 shipped, refund it too." sent nothing, the
refund planned with its order missing (retrieval read one sentence, where planning's
conditions read two: the refund took neither O-2 nor O-1, ids of one thing). The refund of
O-2 is sent now; the refund of O-1 stays held by its condition. The server is real
(loopback) and records what it is sent."""

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
    "query",
    [
        "Refund order O-2. if order O-1 shipped, refund it too.",
        "Refund order O-2. when order O-1 ships, refund it too.",
        "Refund order O-2. once order O-1 ships, refund it too",
    ],
)
def test_the_change_before_a_lower_case_condition_is_sent(desk: Served, query: str) -> None:
    plan, calls = sent(desk, query)
    assert calls == [("POST", "/orders/O-2/refund")]
    assert any("condition" in w for w in plan.warnings), plan.warnings  # O-1's refund held


def test_a_lower_case_word_after_an_id_that_is_no_condition_ends_no_sentence() -> None:
    assert split_intents("Refund order O-2. and refund order O-3 too.") == [
        "Refund order O-2. and refund order O-3 too."
    ]
