"""Where what a message says starts in a request: one reading for retrieval's parts and
planning's message text.

Two readings of the same words had drifted apart: retrieval's split of a request into parts
stopped at "saying", "with the message", "text:" and at "that" after a recipient when the
request opens with a sending verb (``intents._unsaid_end``), and planning's message text
read those and "telling them (that)" as well (``planning.message_text._starts``): "Notify
everyone telling them that the build and the deploy are done" was one message to planning
and two parts to retrieval. A message starts after a word that introduces it
(:data:`INTRO`), or after "that" right after the recipient (an id, them, him, her,
everyone, us, me): "Notify the customer that owns account AC-1" names no message ("that"
after a noun is a relative clause).
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["INTRO", "said_starts"]

#: Where the message starts: a word that introduces it ...
INTRO = re.compile(
    r"\b(?:saying|that\s+says|with\s+(?:the\s+|a\s+)?(?:message|text|note|body)(?:\s+that)?|"
    r"telling\s+(?:them|him|her|everyone)(?:\s+that)?)\s+"
    r"|\b(?:message|text|note|body)\s*:\s*",
    re.IGNORECASE,
)
#: ... or "that" after the recipient (:data:`_RECIPIENT`, the word before it).
_THAT = re.compile(r"(?<!\s)\s+that\s+", re.IGNORECASE)
_RECIPIENT = re.compile(
    r"(?:them|him|her|everyone|us|me)|(?=[\w-]*\d)[A-Za-z0-9][\w-]*[A-Za-z0-9]", re.IGNORECASE
)
#: The word before "that" (an id is short: the last 64 characters hold it).
_LAST_WORD = re.compile(r"[A-Za-z0-9][\w-]*\Z")


def said_starts(query: str, *, told: bool = True) -> list[int]:
    """Where each message ``query`` writes starts, in order: after a word that introduces it,
    or (``told``) after "that" right after the recipient. Each "that" is read once, its word
    before it from the 64 characters there: the one pattern that held both scanned the rest
    of a word from each of its letters (20,000 letters: 2.6 s)."""
    intros = list(INTRO.finditer(query))
    starts = [m.end() for m in intros]
    if not told:
        return starts
    opens = [m.start() for m in intros]
    for match in _THAT.finditer(query):
        at = bisect_right(opens, match.start()) - 1  # the introductions do not overlap
        if at >= 0 and match.start() < intros[at].end():
            continue  # "telling them that ...": read as the introduction's
        word = _LAST_WORD.search(query, max(0, match.start() - 64), match.start())
        if word is not None and _RECIPIENT.fullmatch(word.group(0)):
            starts.append(match.end())
    return sorted(starts)
