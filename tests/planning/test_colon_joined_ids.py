"""An id whose parts are joined by colons (a region-scoped one, ``us-east-1:9f8e7d``) is one
id: a change takes it whole. Trial z1 (Cognito Sync): "identity us-east-1:9f8e7d" was read as
``us-east-1``, which a change then refused as an id written on past its end, warning that the
request "says not to use the ids it names", and the identity's id stayed open."""

from __future__ import annotations

import pytest

from helpers import planned_room


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("delete room us-east-1:9f8e7d", "us-east-1:9f8e7d"),
        ("room eu:R1:2 삭제해 줘", "eu:R1:2"),
        ("delete room R1: it is not used", "R1"),
    ],
)
def test_a_change_takes_a_colon_joined_id_whole(request_text: str, room: str) -> None:
    assert planned_room(request_text) == room


def test_a_time_of_day_is_no_id() -> None:
    assert planned_room("delete room 10:30") is None
