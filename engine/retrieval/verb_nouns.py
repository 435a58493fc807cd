"""A request's word that is a verb or a noun as the word after it says.

"record", "log" and "patch" are nouns as often as verbs (and "text", "message", "email"
after "this", "my", "the" ...) ("the record", "logs of ...", "patch
notes"): each names its change only where what follows it is what it changes ("record a
manual reading", "log the hours", "patch the server"; trial A: the plan ran the meter's read
in place of the write it was asked for). And a change followed by "status", "progress" or
"history" is a noun phrase that asks to read ("cancel status of order O-1", "import
history"; with every effect allowed, the first planned a cancellation ready to send), unless
the change is one done to that state ("update status of T-1 to closed", "clear history",
"delete history", "save progress").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schemarouter.retrieval.actions import Action

__all__ = ["noun_or_verb"]

#: Verbs that are nouns as often, and the change they name after :data:`_RECORDED`.
_RECORDS = {"record": "create", "log": "create", "patch": "update"}
_RECORDED = frozenset(("a", "an", "the", "my", "our", "this", "that", "another", "new"))
#: Ways of sending that are as often the thing sent, a noun after :data:`_DETERMINED`
#: ("text Bob" sends; "convert this text to speech", "translate my message" send nothing:
#: trial z1, where ``send`` was read from "this text").
_SENT = frozenset(("text", "message", "email", "mail"))
_DETERMINED = _RECORDED | frozenset(("these", "those", "your", "their", "its", "his", "her"))
#: Words after a change that make the two a noun, and the changes done to them.
_STATE = frozenset(("status", "progress", "history"))
_ON_STATE = frozenset(
    ("update", "post", "send", "share", "submit", "publish", "create", "reset", "clear")
) | frozenset(("save", "delete"))


def noun_or_verb(
    words: Sequence[str], i: int, action: Action | None, change: str | None
) -> tuple[Action | None, str | None]:
    """``words[i]``'s action and change (as read so far: ``action``, ``change``) once the word
    after it is read (see the module docstring)."""
    low = words[i].lower()
    after = words[i + 1].lower() if i + 1 < len(words) else ""
    if low in _SENT and i > 0 and words[i - 1].lower() in _DETERMINED:
        return None, None  # "convert this text to speech": the thing sent, not a sending
    if low in _RECORDS and after in _RECORDED:
        return "write", _RECORDS[low]
    if action == "write" and after in _STATE and change not in _ON_STATE:
        return "read", None
    return action, change
