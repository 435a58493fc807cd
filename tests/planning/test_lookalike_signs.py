"""An id the request writes on with a full-width or look-alike path, list or query sign
("R1／..／admin", "R1∕..∕admin", "R1？x=1", "R1＆R2", "R1，R2", "R1、R2") binds nowhere, as
its ASCII form does. Trial Z1 (high): each ran ``DELETE /rooms/R1`` on the loopback server,
a room the request did not name."""

from __future__ import annotations

import pytest

from helpers import planned_room


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
    assert planned_room(request_text) == room
