"""An id the request writes on with a full-width or look-alike path, list or query sign
("R1／..／admin", "R1∕..∕admin", "R1？x=1", "R1＆R2", "R1，R2", "R1、R2") binds nowhere, as
its ASCII form does. Trial Z1 (high): each ran ``DELETE /rooms/R1`` on the loopback server,
a room the request did not name."""

from __future__ import annotations

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder


def delete_room(room: str) -> dict[str, bool]:
    """Delete a hotel room and its bookings."""
    return {"deleted": True}


_WRITES = frozenset({Effect.READ, Effect.WRITE, Effect.DESTRUCTIVE})


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("delete room R1／..／admin", None),
        ("delete room R1∕..∕admin", None),
        ("delete room R1⁄..", None),
        ("delete room R1＼..", None),
        ("delete room R1？x=1", None),
        ("delete room R1＆R2", None),
        ("delete room R1＋R2", None),
        ("delete room R1，R2", None),
        ("delete room R1、R2", None),
        ("delete room R1％2F", None),
        ("can you delete room R1？", "R1"),
        ("delete room R1。", "R1"),
    ],
)
def test_an_id_written_on_with_a_look_alike_sign_binds_nowhere(
    request_text: str, room: str | None
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(delete_room, provider="hotel", effect="destructive")
    (step,) = router.plan(PlanRequest(query=request_text, allowed_effects=_WRITES)).steps
    assert dict(step.arguments).get("room") == room
