"""A request's word that is a verb or a noun as the word after it says.

"record", "log" and "patch" are nouns as often as verbs (and "text", "message", "email"
after "this", "my", "the" ...) ("the record", "logs of ...", "patch
notes"): each names its change only where what follows it is what it changes ("record a
manual reading", "log the hours", "patch the server"; trial A: the plan ran the meter's read
in place of the write it was asked for). And a change followed by "status", "progress" or
"history" is a noun phrase that asks to read ("cancel status of order O-1", "import
history"; with every effect allowed, the first planned a cancellation ready to send), unless
the change is one done to that state ("update status of T-1 to closed", "clear history",
"delete history", "save progress"). So is a change that ends a thing's course followed by
another noun it heads ("close date of ticket T-1", "order O-1 cancel reason", "start time of
job J-1"; only these changes: "update details of customer C-1", "send receipt to ...", "set
amount ...", "renew policy P-1" and "delete receipts for ..." are commands), a change
followed by "of" ("closes of ticket T-1", "refund of order O-1"), and an -s form followed by
a preposition ("refunds for order O-1"), and a change after an article or a possessive ("the
snooze on alert A-1 expired", "retry count of job J-1": the eighteenth security review's, each
sent): with every effect allowed, each planned the change ready to send.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

#: :data:`.actions.Action`, which imports this module
Action = Literal["read", "write"]

__all__ = ["NOUN_AFTER", "is_noun_form", "noun_or_verb"]

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
#: Nouns a change of :data:`_HEADS` heads as a noun's modifier ("close date", "cancel reason").
_HEADED = (
    frozenset(("date", "dates", "time", "times", "reason", "reasons", "amount", "amounts", "total"))
    | frozenset(
        ("count", "fee", "fees", "policy", "eligibility", "deadline", "window", "details", "detail")
    )
    | frozenset(("info", "information", "summary", "receipt", "receipts", "rate"))
)
#: The changes (canonical, :func:`.actions.verb_of`) that head such a noun rather than take it
#: as their object: what ends or begins a thing's course, and a refund ("refund amount of
#: order O-1", "refund policy").
_HEADS = frozenset(
    ("cancel", "close", "open", "start", "stop", "restart", "deploy", "merge", "refund")
) | frozenset(("retry", "mute", "escalate", "revert", "redeploy", "void", "acknowledge"))
#: Words before a change that make it a noun: "the snooze on alert A-1 expired", "the refund
#: on order O-1 failed" (eighteenth security review: each sent the change). Not "her" ("help
#: her refund it"), nor "that" ("make sure that ...").
_ARTICLES = frozenset(("a", "an", "the", "my", "our", "this", "another", "your", "their", "its"))
_ARTICLES |= frozenset(("these", "those", "his"))
#: Prepositions after an -s form that make it a plural noun ("refunds for order O-1").
_PREPOSITIONS = frozenset(("of", "for", "on", "from", "in", "to", "by", "at", "per"))
#: Words after a change that make it a noun (:func:`is_noun_form` and planning's reading).
NOUN_AFTER = _STATE | _HEADED | frozenset(("of",))
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
    if action == "write" and i > 0 and words[i - 1].lower() in _ARTICLES:
        # "The snooze on alert A-1 expired": a clause opening with the noun asks no change;
        # after another word it is only no verb ("Run the order-fulfillment state machine"
        # read as a read, and its write route lost rank 1 to a describe)
        return ("read", None) if i == 1 else (None, None)
    if low in _RECORDS and after in _RECORDED:
        return "write", _RECORDS[low]
    if action == "write" and after in _STATE and change not in _ON_STATE:
        return "read", None
    headed = after in _HEADED and change in _HEADS
    if action == "write" and (headed or after == "of" or _plural(low, after)):
        return "read", None
    return action, change


def _plural(word: str, after: str) -> bool:
    """Whether ``word``, a change's -s form, is a plural noun: a preposition follows it."""
    return after in _PREPOSITIONS and word.endswith("s") and not word.endswith(("ss", "us", "is"))


_NOUN_ENDING = re.compile(r"l?(?:ation|ion|al|ment)s?|e?s")


def is_noun_form(word: str, verb: str, after: str) -> bool:
    """Whether ``word`` (followed by ``after``) is a noun of the change ``verb`` (a route's
    name's first word, any verb a table knows or not): ``verb`` followed by a noun it heads
    or "of" ("refund of order O-1"), or a noun made of it ("refunds", "cancellations",
    "deletions", "removal")."""
    low, verb = word.lower(), verb.lower()
    if low == verb:
        return after.lower() in NOUN_AFTER
    stem = verb[:-1] if verb.endswith("e") else verb
    return low.startswith(stem) and bool(_NOUN_ENDING.fullmatch(low[len(stem) :]))
