"""A time refused ("not now", "not yet", "not today") takes back its own sentence, not the
request before it (review 17): "Refund order O-1; close ticket T-1 tomorrow, not now" sent
nothing, its "not now" read as taking back every id written before it, the refund's O-1 too
(and "Refund order O-1. Close ticket T-1 later, not now." the same). The refund asked in a
sentence of its own is sent now; the close stays unsent. "Refund order O-1, not now" and a
"not now" in the refund's own sentence still hold the refund back, and "no, wait" still
takes back all before it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from desk_serving import Served, answering_op, sent, serving

from schemarouter.errors import ParameterValidationError

from helpers import desk_paths, path_id


def _paths() -> dict[str, Any]:
    return desk_paths(answering_op) | {
        "/tickets/{ticket_id}": {
            "parameters": path_id("ticket_id"),
            "get": answering_op("get_ticket", "Get a ticket"),
        },
        "/tickets/{ticket_id}/close": {
            "parameters": path_id("ticket_id"),
            "post": answering_op("close_ticket", "Close a ticket"),
        },
    }


@pytest.fixture(scope="module")
def desk() -> Iterator[Served]:
    with serving(_paths()) as served:
        yield served


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1; close ticket T-1 tomorrow, not now",
        "Refund order O-1. Close ticket T-1 later, not now.",
        "Refund order O-1. Close ticket T-1 tomorrow, not yet",
    ],
)
def test_a_change_of_another_sentence_is_sent(desk: Served, query: str) -> None:
    _, calls = sent(desk, query)
    assert calls == [("POST", "/orders/O-1/refund")]


@pytest.mark.parametrize(
    "query",
    [
        "Refund order O-1, not now",
        "Refund order O-1 and close ticket T-1 tomorrow, not now",
        "Refund order O-1; close ticket T-1. Actually, no, wait",
    ],
)
def test_a_change_taken_back_is_not_sent(desk: Served, query: str) -> None:
    _, server = desk
    with contextlib.suppress(ParameterValidationError):  # the refund's order held back
        sent(desk, query)
    assert server.requests == []
