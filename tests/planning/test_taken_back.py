"""A change the request forbids in other words than not / never ("It is forbidden to delete
room R1", "nobody should", "room R1 is off limits", "hands off room R1"), or takes back after
asking for it ("delete room R1? No, wait, don't", "delete room R1 — NOT", "Wait, no! Keep
it."), plans no id for it. Trial Z1 (high): each ran ``DELETE /rooms/R1`` on the loopback
server."""

from __future__ import annotations

import pytest

from helpers import planned_room

_room = planned_room


@pytest.mark.parametrize(
    "request_text",
    [
        "It is forbidden to delete room R1",
        "nobody should delete room R1",
        "room R1 is off limits; delete the others",
        "room R1 is off-limits, delete the rest",
        "hands off room R1, delete everything else",
        "Please refrain from deleting room R1",
        "Deleting room R1 is not permitted; delete the others",
        "delete room R1? No, wait, don't",
        "delete room R1 — actually no, don't",
        "delete room R1... just kidding, do not",
        "delete room R1 — NOT",
        "Delete room R1. Wait, no! Keep it.",
        "Delete room R1... never mind",
        "delete room R1 -- scratch that",
        "delete room R1, but not now",
        "delete room R1? Nah.",
    ],
)
def test_a_change_forbidden_or_taken_back_plans_no_room(request_text: str) -> None:
    assert _room(request_text) is None


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("Delete room R1. Don't ask.", "R1"),
        ("Delete room R1 now, not later", "R1"),
        ("No. Delete room R1.", "R1"),
        ("Delete room R1? No, wait, delete room R2", "R2"),
        ("delete room R1; nobody uses it", "R1"),
        ("delete room R1 — no confirmation needed", "R1"),
        ("delete room R1, not R2", "R1"),
    ],
)
def test_a_change_asked_for_keeps_its_room(request_text: str, room: str) -> None:
    assert _room(request_text) == room


@pytest.mark.parametrize(
    "request_text",
    [
        "delete all rooms save room R1",
        "delete all rooms, room R1 excepted",
        "delete all rooms, room R1 excluded",
        "delete all rooms; room R1 stays",
        "delete all rooms; room R1 remains",
        "delete all rooms, room R1 must be kept",
        "delete all rooms unless it is room R1",
    ],
)
def test_a_room_kept_by_a_word_after_it_or_save_unless_is_not_deleted(request_text: str) -> None:
    """Trial Z1 (high): each ran ``DELETE /rooms/R1``."""
    assert _room(request_text) is None


@pytest.mark.parametrize(
    ("request_text", "room"),
    [
        ("Nobody uses room R1, delete it", "R1"),
        ("Delete room R1; nobody objects", "R1"),  # "if nobody objects" withholds it
        ("delete room R1 so the others stay clean", "R1"),
    ],
)
def test_nobody_or_stay_elsewhere_keeps_the_room_asked_for(request_text: str, room: str) -> None:
    assert _room(request_text) == room


@pytest.mark.parametrize(
    "request_text",
    [
        "room R1 삭제해... 아니 잠깐, 취소",
        "room R1 삭제해 줘. 아니다, 됐어",
        "room R1 삭제해 아니 하지마",
        "room R1 지워. 잠깐만!",
        "room R1은 그대로 두고 나머지 삭제",
        "room R1은 놔두고 나머지 삭제",
    ],
)
def test_a_korean_take_back_or_keep_plans_no_room(request_text: str) -> None:
    """Trial Z1 (high): "room R1 삭제해... 아니 잠깐, 취소" ran ``DELETE /rooms/R1``."""
    assert _room(request_text) is None


@pytest.mark.parametrize(
    "request_text",
    ["아니, room R1 삭제해", "잠깐, room R1 삭제해 줘", "room R1 그대로 삭제해", "room R1 삭제해"],
)
def test_a_korean_interjection_before_the_change_keeps_its_room(request_text: str) -> None:
    assert _room(request_text) == "R1"


@pytest.mark.parametrize(
    "request_text",
    [
        "Nuke all rooms, keep room R1",
        "Get rid of all rooms, keep room R1",
        "Eliminate all rooms; spare room R1",
        "Tear down every room, preserve room R1",
        "Decommission all rooms, keep room R1",
        "방 전부 없애고 room R1은 남겨",
        "방 전부 폐기, room R1은 유지",
        "방 다 날려, room R1은 남기고",
        "room R1은 남기고 다 버려",
    ],
)
def test_a_room_kept_beside_a_change_of_another_verb_is_not_deleted(request_text: str) -> None:
    """Trial Z1 (high): a keep word counts only beside a change, and these changes' verbs
    were none the list knew, so each deleted the room kept."""
    assert _room(request_text) is None


@pytest.mark.parametrize(
    "request_text",
    [
        "Do not, under any circumstances, delete room R3 or room R1",
        "Never, ever, delete room R1 and room R2",
        "delete room R1? Absolutely not.",
        "delete room R1? Of course not!",
        "delete room R1? Hell no.",
    ],
)
def test_an_open_negation_over_a_list_or_an_emphatic_no_plans_no_room(request_text: str) -> None:
    """Trial Z1 (high): the open negation reached the list's first item only (R1, R2 were
    deleted), and an emphatic "Absolutely not." took nothing back."""
    assert _room(request_text) is None


@pytest.mark.parametrize(
    "request_text", ["Delete room R1? Absolutely.", "delete room R1, no exceptions"]
)
def test_an_emphatic_yes_keeps_the_room(request_text: str) -> None:
    assert _room(request_text) == "R1"


@pytest.mark.parametrize(
    "request_text",
    ["Delete the forbidden room R1", "delete the banned room R1", "delete prohibited room R1 now"],
)
def test_forbidden_or_banned_as_an_adjective_keeps_the_room(request_text: str) -> None:
    """A room called forbidden or banned is the one to delete: only "forbidden to",
    "prohibited from", "forbid" or "is forbidden" after it refuse."""
    assert _room(request_text) == "R1"


@pytest.mark.parametrize(
    "request_text", ["I forbid deleting room R1", "You are prohibited from deleting room R1"]
)
def test_forbid_as_a_verb_plans_no_room(request_text: str) -> None:
    assert _room(request_text) is None
