"""A request that orders its parts with "after" or "before" and a verb's -ing form.

"Delete customer C-1 after refunding order O-1" asks for the refund, then the deletion;
"Cancel order O-1 before closing ticket T-1" for the cancellation, then the close. Read as
one clause, the words after "after" named no change: the plan did the deletion alone and
said nothing of the refund (trial Z2). :func:`sequenced` cuts such a clause into its parts
(for the request's verbs and for its parts), and :func:`written_key` places each part where
the request says it happens (a part after "after" before the one it follows; a leading
"Before ..., " part after the one that follows it).

Korean writes "before" and "after" after the verb of the part they order ("삭제하기 전에",
"환불한 후에": :func:`korean_afters` tells such a part from a condition, "환불된 후에"), and
"first" as 그 전에, 먼저 or -되 먼저 ("고객 C-1을 삭제하되 먼저 주문 O-1을 환불해줘").

An -ing word opens a part where what follows it is a thing: a determiner or a pronoun
("after refunding the order", "before closing it"), or a word and an id ("after refunding
order O-1"); "sales after marketing campaign launch" and "the day before opening hours"
stay whole.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

__all__ = [
    "LAST_FIRST",
    "buts_before_first",
    "korean_afters",
    "sequenced",
    "where_written",
    "written_key",
]

#: A lead starts at a comma or at a run's first space (``,?\s+`` tried every space of a run:
#: time quadratic in it, as :data:`.intents._LEAD` says).
#: The word after it: an -ing verb, or a subject that opens a clause ("after you refund order
#: O-1", "Before we delete ...": the ninth review found each planned the deletion alone).
_MARK = re.compile(
    r"(?:^|(?:,|(?<![\s,]))\s+)(after|before)\s+(?=[A-Za-z]+ing\b|(?:you|we|i|they)\s+[A-Za-z])",
    re.IGNORECASE,
)
#: "but first" (and "but before that", "but beforehand"): the part after it comes before the
#: one before it ("Delete customer C-1, but first refund order O-1": the tenth review found
#: the "but" read as taking the refund back, and the deletion planned alone).
_FIRST_WORDS = r"but\s+(?:first(?:\s+of\s+all)?|before\s+(?:that|this|then)|beforehand)"
_FIRST = re.compile(rf"(?:^|(?:,|(?<![\s,]))\s+){_FIRST_WORDS}\b[\s,]*", re.IGNORECASE)
#: "first" that ends a part ("Delete customer C-1. Refund order O-1 first.", "Delete customer
#: C-1 but refund order O-1 first"): that part, too, comes before the one before it (each sent
#: the deletion alone). Not an ordinal ("but the first", "its first") nor a sort order ("newest
#: first", "most recent first", "unpaid ones first"). Its word is read first, so a request is
#: read once.
LAST_FIRST = (
    r"\b(?=first\b)(?<!\bthe\s)(?<!\ba\s)(?<!\bits\s)(?<!\bmy\s)(?<!\byour\s)(?<!\bour\s)"
    r"(?<!\btheir\s)(?<!est\s)(?<!\brecent\s)(?<!\bones\s)(?<!\bone\s)(?<!\blisted\s)"
    r"(?<!\bshown\s)(?<!\bsorted\s)(?<!\bcome\s)(?<!\bcomes\s)(?<!\bcame\s)"
    r"first(?:\s+of\s+all)?(?=\s*(?:[,;.!?]|$))"
)
_FIRST_WORD = re.compile(LAST_FIRST, re.IGNORECASE)
_LAST_FIRST = re.compile(rf"{LAST_FIRST}[\s.!]*$", re.IGNORECASE)
_BUT = re.compile(r"(?:,|(?<![\s,]))\s+(but)\s+", re.IGNORECASE)
_STOP = re.compile(r"[,.;:!?\n]")
_TAIL = re.compile(r"[\s.!]*")


def buts_before_first(text: str, *, at_end: bool = False) -> list[re.Match[str]]:
    """Each "but" of ``text`` before a part that ends in "first" (:data:`LAST_FIRST`) within 80
    characters and no stop ("Delete customer C-1 but refund order O-1 first"): the match of its
    lead, its word ``group(1)``; ``at_end``: only before a part that ends ``text``. Read from each
    "first" back, not from each "but" on (a request of 30,000 "but" read 80 characters after
    each: 0.7 s)."""
    out = []
    for first in _FIRST_WORD.finditer(text):
        if at_end and _TAIL.match(text, first.end()).end() != len(text):  # type: ignore[union-attr]
            continue
        buts = list(_BUT.finditer(text, max(0, first.start() - 80), first.start()))
        if (
            buts
            and buts[-1].end() < first.start()
            and not _STOP.search(text, buts[-1].end(), first.start())
        ):
            out.append(buts[-1])
    return out


_SUBJECTS = frozenset(("you", "we", "i", "they"))
_DETERMINERS = frozenset(
    ("the", "a", "an", "my", "our", "your", "their", "his", "her", "its", "this", "that")
) | frozenset(("these", "those", "all", "every", "each", "it", "them"))
_WORD = re.compile(r"[^\s,.;]+")


def _opens_part(rest: str) -> bool:
    """Whether ``rest`` (the words after "after" / "before") opens a part: an -ing word before
    a thing (see the module docstring)."""
    words = _WORD.findall(rest)[:4]
    if words and words[0].lower() in _SUBJECTS:  # "after you refund order O-1"
        words = words[1:]
    words = words[:3]
    after = [w.lower() for w in words[1:]]
    if after and after[0] in _DETERMINERS:
        return True
    return len(after) == 2 and after[0].isalpha() and any(c.isdigit() for c in after[1])


#: Korean writes "before" after the verb of the part it orders: "고객 C-1을 삭제하기 전에 주문
#: O-1을 환불해줘" (before deleting customer C-1, refund order O-1) asks for the refund first,
#: and planned it alone (the ninth review). A part ends there; only after a verb's -기 form,
#: so "회의 전에" (before the meeting) stays whole.
_KO_MARK = re.compile(r"(?<=[\uac00-\ud7a3]기)\s*전에?\s+")
_KO_BEFORE = re.compile(r"기\s*전에?\s*$")


#: Korean writes "after" after the verb of the part it follows, in the verb's -ㄴ form: "주문
#: O-1을 환불한 후에 고객 C-1을 삭제해줘" (after refunding order O-1, delete customer C-1) asks
#: for the refund, then the deletion, and planned the deletion alone. Only after a verb's -ㄴ
#: form (한, 된, 난, 낸, 친, 은, 온), so "주문 후에" (after ordering, a noun) and "2시간 후에"
#: (two hours later) stay whole.
_KO_AFTER = re.compile(
    r"(?<!\S)\S*?(?:한|된|난|낸|친|은|온)\s*(?:후|뒤|다음)(?:에는|에만|에|부터)?(?=\s|$)"
)
#: Where a Korean clause starts: a sentence's or a comma's end, 그리고, or a -고 ending.
_KO_CLAUSE = re.compile(r"[,.;!?]\s*|(?<!\S)그리고\s+|(?<=[\uac00-\ud7a3]고)\s+")
#: A Korean word that is a clause's object (을 / 를), or its subject (이 / 가).
_KO_OBJECT = re.compile(r"\S(?:을|를)$")
_KO_SUBJECT = re.compile(r"\S(?:이|가)$")


def korean_afters(text: str) -> list[tuple[int, int, int, bool]]:
    """Each Korean "after" clause of ``text`` (:data:`_KO_AFTER`): where its clause starts,
    where its verb starts and its "after" ends, and whether it states a condition about the
    world, not a part the request asks for: a passive verb ("주문 O-1이 환불된 후에": once order
    O-1 is refunded), or a subject and no object ("고객이 결제한 후에": after the customer
    pays); "주문 O-1을 환불한 후에" (after refunding order O-1) asks for the refund."""
    # read once: each clause's start found among the clause ends before it, and its words
    # read on from the last "after" of the same clause (each "after" reread them all from the
    # clause's start: a request of 1,600 "환불한 후에" took 23 s to plan)
    ends = [m.end() for m in _KO_CLAUSE.finditer(text)]
    out: list[tuple[int, int, int, bool]] = []
    start = read = -1
    subject = obj = False
    for match in _KO_AFTER.finditer(text):
        at = bisect_right(ends, match.start())
        if (clause := ends[at - 1] if at else 0) != start:
            start = read = clause
            subject = obj = False
        for word in text[read : match.start()].split():
            subject = subject or _KO_SUBJECT.search(word) is not None
            obj = obj or _KO_OBJECT.search(word) is not None
        read = match.start()
        passive = re.match(r"\S*된", match.group().split()[0]) is not None
        condition = passive or (subject and not obj)
        out.append((start, match.start(), match.end(), condition))
    return out


#: Korean's "but first" ("고객 C-1을 삭제하되 먼저 주문 O-1을 환불해줘": delete customer C-1,
#: but first refund order O-1): a -되 clause with "first" after it.
_KO_FIRST_CUT = re.compile(
    r"(?<=[\uac00-\ud7a3]되),?\s+(?=(?:먼저|우선|그\s*전에|그보다\s*먼저)[\s,])"
)
#: A Korean part said to come before the one written before it: opening with "before that"
#: or "first" ("고객 C-1을 삭제해줘. 그 전에 주문 O-1을 환불해줘"), or with 먼저 ("first") in
#: it ("... 주문 O-1을 먼저 환불해줘"); the Korean twin of "but first".
_KO_FIRST = re.compile(
    r"\s*(?:그리고\s+|그런데\s+|하지만\s+)?(?:그\s*전에|그보다\s*먼저|우선|먼저)(?=[\s,])"
    r"|[^.;!?\n]*?(?<!\S)먼저(?=[\s,])"
)


def _korean(clause: str) -> list[str]:
    """``clause`` cut after each Korean "before" (:data:`_KO_MARK`), kept at the end of its
    part for :func:`written_key` to read; after each Korean "after" that follows a part the
    request asks for (:func:`korean_afters`); and before a -되 clause's "first"
    (:data:`_KO_FIRST_CUT`)."""
    if clause.isascii():
        return [clause]
    cuts = [m.end() for m in _KO_MARK.finditer(clause)]
    cuts += [end for _, _, end, condition in korean_afters(clause) if not condition]
    cuts += [m.end() for m in _KO_FIRST_CUT.finditer(clause)]
    pieces, start = [], 0
    for cut in sorted(set(cuts)):
        pieces.append(clause[start:cut].strip())
        start = cut
    pieces.append(clause[start:])
    return pieces


def sequenced(clause: str) -> list[str]:
    """``clause`` cut before each "after" / "before" that opens a part (the word itself left
    out): "Delete customer C-1 after refunding order O-1" -> "Delete customer C-1",
    "refunding order O-1"; a leading "After refunding order O-1, delete ..." is cut at its
    comma and loses its "After"; else ``[clause]``."""
    found = [*_FIRST.finditer(clause), *buts_before_first(clause, at_end=True)]
    found = sorted((m for m in found if m.end() < len(clause)), key=lambda m: m.start())
    first = [m.end() for m in found]
    if first:  # "Delete customer C-1, but first refund order O-1", "... but refund O-1 first"
        cuts = [m.start() for m in found]
        bounds = zip([0, *first], [*cuts, len(clause)], strict=True)
        return [k for a, b in bounds for k in sequenced(clause[a:b]) if clause[a:b].strip(" ,")]
    pieces: list[str] = []
    start = 0
    for match in _MARK.finditer(clause):
        if not _opens_part(clause[match.end() :]):
            continue
        pieces.append(clause[start : match.start()])
        start = match.end()
        comma = clause.find(",", start)
        if not clause[: match.start()].strip() and comma > 0:  # "After ..., delete ..."
            pieces.append(clause[start:comma])
            start = comma + 1
    pieces.append(clause[start:])
    pieces = [k for piece in pieces for k in _korean(piece)]
    return [p for p in pieces if p.strip(" ,")] or [clause]


_SAID = re.compile(rf"\b(after|before|{_FIRST_WORDS})[\s,]*$", re.IGNORECASE)


def _said_before(query: str, at: int, end: int) -> str:
    """The sequence word right before ``at`` in ``query`` ("after", "before" or ""; "but
    first" says what "after" says: this part comes before the one before it, and so does a
    Korean part from ``at`` to ``end`` said to come first: :data:`_KO_FIRST`)."""
    said = _SAID.search(query, 0, at)
    word = said.group(1).lower() if said else ""
    if not word and _LAST_FIRST.search(query[at:end].rstrip(" ,;")):
        return "after"  # "Delete customer C-1. Refund order O-1 first."
    if not word and not query.isascii() and _KO_FIRST.match(query[at:end]):
        return "after"
    return "after" if word.startswith("but") else word


def written_key(query: str, positions: Sequence[int]) -> list[float]:
    """The order in which the parts that start at ``positions`` of ``query`` happen: their
    positions, but a part written after "after" goes just before the part before it, and a
    part that opens the request with "Before" just after the part that follows it."""
    keys = [float(p) for p in positions]
    ordered = sorted(set(positions))
    for i, at in enumerate(positions):
        earlier = [p for p in ordered if p < at]
        later = [p for p in ordered if p > at]
        said = _said_before(query, at, later[0] if later else len(query))
        if said == "after" and earlier:
            keys[i] = earlier[-1] - 0.5
        elif later and (
            (said == "before" and not earlier)
            or _KO_BEFORE.search(query, at, later[0])  # "C-1을 삭제하기 전에 ..."
        ):
            keys[i] = later[0] + 0.5
    return keys


def where_written(query: str, part: str) -> int:
    """Where ``part`` starts in ``query``: where it is written, else (a part given the thing of
    the one before: "delete application web-metrics" for "..., then delete it") where its
    first word is written after the start; -1 where neither is."""
    at = query.find(part)
    if at >= 0 or not part.split():
        return at
    found = re.search(rf"(?<=\s){re.escape(part.split()[0])}\b", query, re.IGNORECASE)
    return found.start() if found else -1
