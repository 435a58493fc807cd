"""A question about a change, not a request for it: "Can I cancel appointment A-1001?",
"Should I refund order O-1?", "Why delete customer C-1?", "Do we need to close ticket T-1?",
"주문 O-1 환불할까?", "예약 A-1 취소해도 돼?". The asker wants to know whether, or why, before
anything changes; "Can you cancel ...?" and "Could you ...?" ask the change politely and stay
requests for it.

Trial Z3: "Can I cancel appointment A-1001?" planned ``cancel_appointment`` (no body to
withhold, its id the request's), and ``execute`` sent ``POST /appointments/A-1001/cancel``;
:func:`asks_whether` makes the request one that asks no change, so a read of the same thing is
planned in its place (:func:`~schemarouter.planning.asked_changes.no_change_asked`).
"""

from __future__ import annotations

import re

from schemarouter.planning.refusals import unquoted

__all__ = ["asks_whether"]

#: The opening of an English question about doing a change oneself, or why it is done.
_EN = re.compile(
    r"^\W*(?:(?:can|could|may|might|should|shall|must|do|does)\s+(?:i|we)\b"
    r"|(?:do|does|did)\s+(?:i|we)\s+(?:need|have|want)\s+to\b"
    r"|(?:is|would)\s+it\s+(?:be\s+)?(?:possible|ok|okay|alright|allowed|safe|wise)\b"
    r"|am\s+i\s+allowed\b|why\b|whether\b|what\s+happens\s+if\b)",
    re.I,
)
#: A Korean question about doing a change: "환불할까?", "취소해도 돼?", "삭제해야 해?",
#: "취소해도 되나요?", "취소하면 어떻게 돼?" (the question's last word, read by :func:`_korean`);
#: "왜 취소해?".
_KO_ENDING = re.compile(
    r"(?:할까|될까|해도\s?(?:돼|되|될)|해야\s?(?:해|하|돼|될|할)|하면\s?(?:어떻게|뭐가))\S*$"
)
_KO_WHY = re.compile(r"^\W*왜\s")
_LAST_SPACE = re.compile(r"\s\S*$")
#: A sentence end before the last: a request of several sentences is read whole elsewhere.
_INNER_END = re.compile(r"[.!?？。]\s+\S")


def asks_whether(query: str) -> bool:
    """Whether ``query``, one sentence ending in a question mark, asks whether or why to make
    a change rather than for it (module docstring)."""
    text = unquoted(query).strip()
    if not re.search(r"[?？]\s*$", text) or _INNER_END.search(text):
        return False
    return bool(_EN.search(text) or _KO_WHY.search(text) or _korean(text))


def _korean(question: str) -> bool:
    """Whether the last word of ``question`` (before its question mark) ends a Korean question
    about a change. The ending is sought only there and in the three characters before it (an
    ending may span one space, "해도 돼"): sought anywhere, each 할까 of a long word with no
    spaces read the rest of it (20,003 characters: 2.0 s; review 16)."""
    body = question.rstrip()[:-1].rstrip()
    last = _LAST_SPACE.search(body)
    return _KO_ENDING.search(body, max(0, last.start() - 3) if last else 0) is not None
