"""A room the request sets aside with "save" or "bar" beside a deletion is never planned
into it, and a "but" after a negation names what is wanted (trial Z3).

"Delete every room bar room R1" planned ``delete_room(room='R1')`` and the loopback server's
access log showed ``DELETE /rooms/R1``; "Delete room R2, bar room R1" and "Not room R1 but
room R2: delete it" left the room open, R2 read as refused by the "but" of "all but R1".
Before any change, "save" and "bar" are words of their own ("save draft D-1", "the bar chart
of sensor S-1"), and "not only R1 but also R2" refuses neither."""

from __future__ import annotations

import re

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.clauses import Clauses

from helpers import planned_room


def delete_room(room: str) -> dict[str, bool]:
    """Delete a meeting room from the catalog."""
    return {"deleted": True}


_WRITES = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(delete_room, provider="rooms", effect="destructive")
    return router


def _room(router: SchemaRouter, request: str) -> str | None:
    return planned_room(request, router)


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("Delete every room bar room R1", None),
        ("Delete rooms R2 and R3, save room R1", None),
        ("Delete room R2, bar room R1", "R2"),
        ("Delete room R2, save R1", "R2"),
        ("Delete room R2 but save room R1", "R2"),
        ("Not room R1 but room R2: delete it", "R2"),
        ("Don't delete room R1 but delete room R2", "R2"),
        ("Delete all rooms but R1", None),
    ],
)
def test_a_room_set_aside_is_never_the_one_deleted(
    router: SchemaRouter, request_text: str, room: str | None
) -> None:
    assert _room(router, request_text) == room


@pytest.mark.parametrize(
    ("query", "value", "refused"),
    [
        ("Save draft D-1 and delete draft D-2", "D-1", False),
        ("Show the bar chart of sensor S-1", "S-1", False),
        ("Delete the bar B-1", "B-1", False),
        ("Update the snack bar menu item M-1", "M-1", False),
        ("Update the status bar widget W-1", "W-1", False),
        ("Delete all rooms bar R1", "R1", True),
        ("Delete room R2, bar room R1", "R1", True),
        ("Delete not only room R1 but also room R2", "R1", False),
        ("Delete not only room R1 but also room R2", "R2", False),
        ("Not room R1 but room R2: delete it", "R1", True),
        ("Delete every room bar room R1", "R1", True),
    ],
)
def test_save_bar_and_but_are_read_by_their_place(query: str, value: str, refused: bool) -> None:
    match = re.search(re.escape(value), query)
    assert match is not None
    assert Clauses(query).against(match) is refused


def test_many_bars_are_read_once() -> None:
    """Each "bar" read the request again from its start for what it excepts from: 8,000 of
    them took 50 s (review of trial Z3); only the words right before it are read now (0.1 s;
    no test here is timed)."""
    query = "delete rooms " + " ".join(f"bar room R{i}" for i in range(20_000))
    clauses = Clauses(query)
    last = re.search(r"R19999\b", query)
    assert last is not None and clauses.against(last)  # set aside, as the first room is
    snack = Clauses("Update the snack bar menu item M-1 " + "and the snack bar " * 20_000)
    item = re.search("M-1", snack.query)
    assert item is not None and not snack.against(item)
