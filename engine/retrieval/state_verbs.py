"""A change named by a verb that reads as often ("return"), or by the state it leaves a thing in
("mark ... as returned").

"return" reads in most requests and summaries ("return the list of loans", "Returns a page
of ..."), and changes where what follows it is a thing and its id: "Return loan L-88",
"return book BK-55" give the thing back (trial 13: "Return loan L-88 and then renew loan
L-90" read the return as a read, and ``return_book`` lost to ``renew_loan``). A route's name
that leads with "return" changes where its method is no read (``POST /loans/{loan_id}/return``
as ``return_book``). "Mark loan L-88 as returned" asks the change whose state it names, not
any change: "mark" names its change by the word after "as" where that word is a change's
("as returned": return, "as closed": close, "as paid": pay; trial 13 sent ``renew_loan``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["RETURN", "marked_change", "returns_a_thing", "route_returns"]

#: The change of giving a thing back.
RETURN = "return"

#: "return", a determiner, a word for the thing, and its id (letters and digits: "L-88",
#: "BK-55"), not followed by "'s" ("Return user U-1's details" reads).
_GIVEN_BACK = re.compile(
    r"\breturn\s+(?:(?:the|my|this|that|our|his|her|their)\s+)?(?:[A-Za-z]+\s+)?"
    r"[A-Za-z]+[-_]?\d[\w-]*(?![\w'’-])",
    re.IGNORECASE,
)
#: "mark" (or "flag", "set") a thing "as" a state, within one clause.
_MARKED = re.compile(r"\b(?:mark|flag)(?:ed|s|ing)?\b[^.;!?]{0,60}?\bas\s+([A-Za-z]+)", re.I)
#: Past forms of changes that do not end in -ed.
_IRREGULAR = {"paid": "pay", "sent": "send", "done": "complete"}


def returns_a_thing(clause: str) -> bool:
    """Whether ``clause`` asks to give a thing back: "return" before a thing and its id."""
    return _GIVEN_BACK.search(clause) is not None


def marked_change(clause: str, change_of: Callable[[str], str | None]) -> str | None:
    """The change "mark ... as <state>" in ``clause`` asks: the change ``change_of`` (the
    verb table's reading of a word) gives the state's word or its base ("returned":
    ``"return"``, "closed": ``"close"``), else ``None`` (the state names no change: "as
    read", "as urgent")."""
    match = _MARKED.search(clause)
    if match is None:
        return None
    state = match.group(1).lower()
    if state in _IRREGULAR:
        return change_of(_IRREGULAR[state]) or _IRREGULAR[state]
    for base in (state[:-2], state[:-1], state) if state.endswith("ed") else (state,):
        if base == RETURN:
            return RETURN
        change = change_of(base) if len(base) > 2 else None
        if change is not None:
            return change
    return None


def route_returns(word: str, index: int, method: str | None) -> bool:
    """Whether ``word``, at ``index`` of a route's name, makes it one that gives a thing back:
    a name that leads with "return" on a method that is no read (``POST .../return``)."""
    return (
        index == 0
        and word == RETURN
        and method is not None
        and method.upper() not in ("GET", "HEAD", "OPTIONS")
    )
