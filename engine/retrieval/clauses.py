"""What a request says *not* to use: the clause of each value and whether it says not,
never, except ... before it, or Korean 말고 / 빼고 after it (:class:`Clauses`). Read by the
planner's argument filling (:mod:`schemarouter.planning.arguments`) and by the candidates'
bound parameters (:func:`without_refused`), so neither offers an id the request keeps."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import Any

from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.identifiers import stem
from schemarouter.retrieval.sequence import buts_before_first
from schemarouter.safety.forksafe import cached

__all__ = [
    "CONTINUED",
    "IDS",
    "KO_AGAINST",
    "Clauses",
    "clauses_of",
    "one_each",
    "several_of_a_kind",
    "without_refused",
]

#: Words that turn the rest of their clause against what it names: "do not delete room R1",
#: "every booking except room R1", "not to B2"; Korean writes them after the value ("R1 말고",
#: "R1은 빼고", "R1 제외"). Not "but first", nor "but" before a part that ends in "first" ("Delete
#: customer C-1 but refund order O-1 first": :func:`.sequence.buts_before_first`, read in
#: :class:`Clauses`), which order parts.
_AGAINST = re.compile(
    r"\b(?:not(?!\s+(?:only|just|merely)\b)|never|no|cannot|except|excepting|excluding|without|"
    r"but(?![\s,]+(?:first|before\s+(?:that|this|then)|beforehand)\b)|besides|other\s+than|"
    r"instead\s+of|rather\s+than|apart\s+from|aside\s+from|dont|neither|nor|minus|barring|"
    r"avoid(?:ing)?|exclude|omit(?:ting)?|forbids?|forbidden\s+to|prohibits?|"
    r"prohibited\s+(?:to|from)|unless|"
    r"refrain(?:ing)?|(?:hands|hold)\s+off|nobody\s+(?:should|may|must|can|shall|is\s+to))\b|"
    r"n['’‘ʼ´`]t\b",  # "don’t" as phones write it, and the other apostrophes keyboards give
    re.IGNORECASE,
)
#: Korean's, after the value, 만 ("only") before them too: "R1만 빼고" is all but R1, but
#: "R1만 아니라 R2도" is "not only R1 but R2 too" (both wanted). 말곤 / 빼곤 are 말고는 /
#: 빼고는 run together; 이외 and a lone 외 are "other than" ("R1 외 모두 삭제"), not 외부.
KO_AGAINST = re.compile(
    r"\s*+(?:만(?!\s*+아니[라고]))?(?:을|를|은|는|이|가|도)?\s*+"
    r"(?:말고|말곤|빼고|빼곤|빼놓고|뺀|제외|아닌|아니라|아니고|외에|이외|외(?:의)?(?![가-힣]))"
)
#: "밴드갭뿐만 아니라" written on one word: the value's word ends in 뿐(만) / 만, so the 아니라
#: after it is "not only ... but also" (trial X4: the band gap was read as refused).
_NOT_ONLY = re.compile(r"(?:뿐|만)$")
#: A clause that is only its negation, its verb set apart by a comma: "Do not, under any
#: circumstances, delete room R1"; "never, ever". Its *not* goes on to the clauses after it.
_OPEN_NOT = re.compile(r"(?:\b(?:not|never|dont)|n['’‘ʼ´`]t)\s*$", re.IGNORECASE)
#: What is kept, skipped or spared in a request that also changes or removes: "delete the
#: old bookings; keep room R1", "R1은 남기고 나머지 삭제". A request that changes nothing
#: keeps its values ("keep track of order O-1", "skip track T1", "protect branch main"), and
#: "leave" keeps only with alone / untouched / as is after it.
_KEEP = re.compile(
    r"\b(?:keep(?:ing)?|spar(?:e|ing)|preserv(?:e|ing)|retain(?:ing)?|skip(?:ping)?|"
    r"protect(?:ing)?|(?P<leave>leave|leaving))\b",
    re.IGNORECASE,
)
#: Words that set a value aside only after a change the request asks for: "delete rooms R2
#: and R3, save room R1", "delete every room bar room R1" (trial Z3: R1 was deleted). Before
#: any change they are a verb or a noun of their own ("save draft D-1", "bar chart of S-1"),
#: and "bar" is "except" only after what it excepts from, a plural, "every room" or a comma
#: ("delete the bar B-1", "update the snack bar menu item M-1" keep theirs).
_SET_ASIDE = re.compile(r"\b(?:sav(?:e|ing)|bar)\b", re.IGNORECASE)
_EXCEPTED_FROM = re.compile(
    r"(?:,|\b(?:every|all|each|any)\s+[^\W\d_]+|[^\W\d_]+[^\W\d_siu]s)\s*$", re.IGNORECASE
)
#: A "but" after a negation in its clause starts a clause of what is wanted: "not room R1
#: but room R2: delete it", "not only R1 but also R2" (trial Z3: R2 was read as refused).
_BUT = re.compile(r"\bbut\b", re.IGNORECASE)
_NOT = re.compile(r"\b(?:not|never|dont)\b|n['’‘ʼ´`]t\b", re.IGNORECASE)
#: What keeps a value, written right after it, beside a change: "delete all rooms, room R1
#: excepted", "room R1 stays", "room R1 must be kept" (trial Z1: each deleted R1).
_KEPT_AFTER = re.compile(
    r"\s*+(?:(?:is|are|must|should|will|shall|can|may)\s+)?(?:be\s+)?"
    r"(?:excepted|excluded|stays?|remains?|kept|spared|untouched|left\s+alone)\b",
    re.IGNORECASE,
)
_LEFT_AS_IS = re.compile(r"\b(?:alone|untouched|intact|as\s+is|in\s+place)\b", re.IGNORECASE)
_LEAVE_STOP = re.compile(r"[,;.\n]")


def _kept(text: str) -> list[int]:
    """Where :data:`_KEEP`'s words start in ``text``, "leave" only where alone / untouched /
    as is ... follows it before its clause's comma or stop: each read by bisection, not by a
    look ahead per "leave" to the clause's end (20,000 of them: 68.7 s; trial Z1)."""
    found = list(_KEEP.finditer(text))
    if not any(m.group("leave") for m in found):
        return [m.start() for m in found]
    stops = [m.start() for m in _LEAVE_STOP.finditer(text)]
    as_is = [m.start() for m in _LEFT_AS_IS.finditer(text)]
    out = []
    for m in found:
        if m.group("leave"):
            stop = bisect.bisect_left(stops, m.end())
            until = stops[stop] if stop < len(stops) else len(text)
            after = bisect.bisect_left(as_is, m.end())
            if not (after < len(as_is) and as_is[after] < until):
                continue
        out.append(m.start())
    return out


_KO_KEEP = re.compile(
    r"\s*+(?:만)?(?:을|를|은|는|이|가)?\s*+"
    r"(?:남기|남겨|유지|보존|그대로\s*두|놔\s*두|놓아\s*두|냅\s*두|내버려)"
)
#: Verbs that change or remove (trial Z1: "Nuke all rooms, keep room R1", "Get rid of all
#: rooms, keep room R1", "방 전부 없애고 room R1은 남겨" each deleted R1, their verb unknown).
_CHANGES = re.compile(
    r"\b(?:delete|remove|cancel|drop|purge|erase|wipe|clear|destroy|archive|close|update|"
    r"change|overwrite|replace|reset|revoke|terminate|deactivate|disable|empty|clean|nuke|"
    r"trash|scrap|discard|dispos|eliminat|decommission|kill|ditch|dump|flush|truncat|retire|"
    r"evict|expung|obliterat|uninstall|unregister|deprovision|void|annul|rescind|withdraw|"
    r"suspend|demolish|tear\s+down|shut\s+down|get\s+rid|do\s+away)|"
    r"삭제|취소|제거|지우|지워|변경|수정|비우|비워|없애|없에|폐기|날려|날리|정리|버려|버리|"
    r"해지|말소|파기|초기화",
    re.IGNORECASE,
)
#: A negation written after the value in its clause: a modal's ("room R1 must not be
#: deleted", "shouldn't"), "is not to be", "do not" ("room R1: do not delete"), or Korean's
#: negative imperative and ban ("R1은 삭제하지 마", "R1 삭제 금지", "삭제하면 안 돼", "삭제하지
#: 않기", "삭제 안 됨", "삭제 불가").
_AFTER_AGAINST = re.compile(
    r"\b(?:must|should|shall|may|can|do)(?:\s+not|\s+never|n['’‘ʼ´`]t)\b|"
    r"\b(?:is|are)(?:\s+not|\s+never|n['’‘ʼ´`]t)\s+to\b|\bdont\b|"
    r"\b(?:off[\s-]limits|forbidden|prohibited|disallowed|not\s+(?:allowed|permitted))\b",
    re.IGNORECASE,
)
#: A clause that takes back what the request asked before it, a negation with nothing after
#: it but its clause's end: "delete room R1? No, wait, don't", "delete room R1 — NOT",
#: "Delete room R1. Wait, no! Keep it." (trial Z1: each deleted R1). Read on a clause's last
#: characters only, so a long clause is no longer to read.
#: Also "Actually, hold off.", "... no wait", "(not really)", "Cancel that.", "Ignore that."
#: (trial Y1: each refunded the order).
_TAKEN_BACK = re.compile(
    r"(?:^|[—–…(]|\s-{1,2}\s|\.\.)[\W_]*(?:(?:but|wait|actually|oh|hmm|sorry|stop|well|no|"
    r"nope|absolutely|of\s+course|hell|heck|definitely|certainly|surely|obviously|god|please)"
    r"\W+)*(?:no|nope|nah|not|never|don['’‘ʼ´`]?t|do\s+not|never\s*mind|scratch\s+that|"
    r"forget\s+(?:it|that)|just\s+kidding|(?:keep|leave|spare)\s+(?:it|them|that|those|both)"
    r"(?:\s+be)?|not\s+(?:yet|now|today|really)|wait|hold\s+(?:off|on)|cancel\s+that"
    r"|(?:ignore|disregard)\s+(?:that|this))[\W_]*$",
    re.IGNORECASE,
)
#: A time refused, which takes back its own sentence only (:attr:`Clauses.taken_from`).
_NOT_NOW = re.compile(r"\bnot\s+(?:yet|now|today)\W*$", re.IGNORECASE)
#: Korean's: a clause of 아니 / 잠깐 (and 취소, 됐어, 그만, 하지 마 after them) that takes back
#: what came before: "room R1 삭제해... 아니 잠깐, 취소" (trial Z1: it deleted R1).
_KO_TAKEN_BACK = re.compile(
    r"(?:^|\s)(?:아니|아냐|아니야|아니요|아뇨|잠깐만?)(?:[\W_]+(?:아니|아냐|잠깐만?))*[\W_]*"
    r"(?:취소|됐어|됐다|그만|하지\s*마\w*|말아\w*|말자)?[\W_]*$|"
    r"^[\W_]*(?:됐어|그만해|하지\s*마\w*|말아\w*|말자)[\W_]*$"
)
_TAIL = 80
_KO_AFTER_AGAINST = re.compile(
    r"지\s*(?:마|말|않)|금지|불가|하면\s*안|(?<![가-힣])안\s+(?=[가-힣])"
)
#: Where a clause ends: a comma, a sentence's end, a colon, a line, "and", "then", "or".
_CLAUSE_END = re.compile(r"[,;\n]|[.!?:](?=\s|$)|\b(?:and|then|or)\b", re.IGNORECASE)
#: The ends that join the items of one list ("R1, R2 and R3", "R1 or R2", "the rooms: R1"):
#: what says not to use one item says it of the list ("do not delete room R1 or room R2").
_JOINS = re.compile(r"[,:]|and|or", re.IGNORECASE)
#: An item of a list: one or two words ("R2", "room R2").
_ITEM = re.compile(r"\s*(?:[^\W\d_]+\s+)?[^\s,;]+\s*")
#: The next item of a list after a value, Korean's joined by 이랑 / 와 / 과 / 하고 / 및:
#: "R1이랑 R2 빼고", "room R1, room R2 삭제 금지", "R1 and R2 must not be deleted".
_NEXT_ITEM = re.compile(
    r"(?:\s*+(?:이랑|랑|와|과|하고|및|,|、|&)|\s++(?:and|or|nor)\b)\s*+(?:[^\W\d_]+\s+)?"
    r"[A-Za-z0-9][\w./:@-]*?(?=[^\w./:@-]|[가-힣]|$)",
    re.IGNORECASE,
)
#: A clause's first word, and the space after it (:meth:`Clauses._lead`).
_LEAD = re.compile(r"\s*+(\S*+)\s*+")


class Clauses:
    """Where the clauses of ``query`` start and what in them says *not*, read once, so that
    :meth:`against` answers per match by bisection."""

    def __init__(self, query: str) -> None:
        self.query = query
        found = list(_CLAUSE_END.finditer(query))
        ends = [m.end() for m in found]
        nots = [m.span() for m in _NOT.finditer(query)]
        buts = [m for m in _BUT.finditer(query) if _contrasts(query, m.start(), ends, nots)]
        found = sorted([*found, *buts], key=lambda m: m.start())
        self.ends = [m.end() for m in found]
        #: where each end's word starts, and whether it joins the items of a list
        self.starts = [m.start() for m in found]
        self.joins = [bool(_JOINS.fullmatch(m.group())) for m in found]
        #: the ends a negation written after a value reads past: all but a colon's
        self.stops = [m.end() for m in found if m.group() != ":"]
        contrasts = {m.start() for m in buts}
        contrasts |= {m.start(1) for m in buts_before_first(query)}  # "... but ... first"
        words = [m.start() for m in _AGAINST.finditer(query) if m.start() not in contrasts]
        kept = _kept(query)
        if kept and self.changes:
            words = sorted(words + kept)
        if changed := _CHANGES.search(query):
            aside = _SET_ASIDE.finditer(query, changed.end())
            words = sorted(words + [m.start() for m in aside if self._aside(m)])
        self.words = words
        self.after = [m.start() for m in _AFTER_AGAINST.finditer(query)]
        if not query.isascii():  # Korean's, read where the request has more than ASCII
            korean = (m.start() for m in _KO_AFTER_AGAINST.finditer(query))
            self.after = sorted([*self.after, *korean])
        self.carried = self._carried()
        # whether an earlier item of the list clause k continues says not, per clause k (the
        # k-th, after end k-1): one pass, not a walk back per value (20,000 ids: 204 s); a
        # clause an open negation goes on into says it of its list too ("Never, ever, delete
        # room R1 and room R2": trial Z1, R2 was deleted)
        self.listed = [False]
        for at in range(len(found)):
            start, stop = self.ends[at - 1] if at else 0, self.starts[at]
            self.listed.append(
                self.joins[at]
                and (
                    self._has_word(start, stop)
                    or self._in_carried(start)
                    or (bool(_ITEM.fullmatch(query, start, stop)) and self.listed[at])
                )
            )
        #: where a list that goes on after a position ends, and whether a Korean word after
        #: one of its items says not (:meth:`_list_after`), per position asked
        self._walked: dict[int, tuple[bool, int]] = {}
        #: per clause asked: where its first word starts and ends and the next one starts
        #: (:meth:`_lead`), and the last two words before its end (:meth:`_item`)
        self._leads: dict[int, tuple[int, int, int]] = {}
        self._last_words: dict[int, set[str]] = {}
        #: where the last words that take back what came before start (:data:`_TAKEN_BACK`),
        #: and where what they take back starts: the request's start, or for "not now", "not
        #: yet", "not today" (a time refused, :data:`_NOT_NOW`), their own sentence's
        #: ("Refund order O-1; close ticket T-1 tomorrow, not now" refused the refund too:
        #: review 17)
        self.taken_back = 0
        self.taken_from = 0
        for start, end in zip([0, *self.ends], [*self.starts, len(query)], strict=True):
            start = max(start, end - _TAIL)
            taken = _TAKEN_BACK.search(query[start:end])
            if taken is None and not query.isascii():
                taken = _KO_TAKEN_BACK.search(query[start:end])
            if taken:
                self.taken_back = start + taken.start()
                self.taken_from = 0
                if _NOT_NOW.search(taken.group()):
                    self.taken_from = 1 + max(query.rfind(c, 0, self.taken_back) for c in ".;!?")

    def _aside(self, match: re.Match[str]) -> bool:
        """Whether a :data:`_SET_ASIDE` word sets aside: "save" does, "bar" where it
        follows what it excepts from (:data:`_EXCEPTED_FROM`), read in the words right
        before it (the request read again from its start for each "bar" took 50 s for 8,000
        of them: review of trial Z3)."""
        start = max(0, match.start() - 60)
        return match.group().lower() != "bar" or bool(
            _EXCEPTED_FROM.search(self.query, start, match.start())
        )

    @cached  # no lock a fork could copy held (functools' takes one in Python 3.11)
    def changes(self) -> bool:
        """Whether the request changes or removes something, so that what it keeps is not."""
        return bool(_CHANGES.search(self.query))

    def _carried(self) -> list[tuple[int, int]]:
        """The clauses an open negation ("Do not, under any circumstances, delete room R1")
        goes on into: the short asides after it and the first clause with more."""
        spans: list[tuple[int, int]] = []
        starts = [0, *self.ends]
        at = 0
        while at < len(self.ends):
            start, end = starts[at], self.ends[at]
            if self.query[end - 1] != "," or not _OPEN_NOT.search(self.query, start, end - 1):
                at += 1
                continue
            at += 1
            while at < len(starts):
                begin = starts[at]
                stop = self.ends[at] if at < len(self.ends) else len(self.query)
                spans.append((begin, stop))
                text = self.query[begin:stop]
                if len(text.split()) > 4 or any(c.isdigit() for c in text):
                    break
                at += 1
        return spans

    def against(self, match: re.Match[str]) -> bool:
        """Whether the clause of ``match`` says *not* (or *except* ...) before it, or a Korean
        one after it: its value is what the request does not want."""
        return self.against_span(match.start(), match.end())

    def against_span(self, begin: int, end: int) -> bool:
        """:meth:`against` for the value written from ``begin`` to ``end``, and for a value
        in a list (:data:`_JOINS`): what says not to use another item says it of this one
        ("do not delete room R1 or room R2", "room R1 and room R2 must not be deleted",
        Korean "R1이랑 R2 빼고"; trial X1: each planned the deletion of the other item)."""
        if self.taken_from <= begin < self.taken_back or self._before(begin) or self._after(end):
            return True
        return self._in_carried(begin)

    def _in_carried(self, begin: int) -> bool:
        """Whether ``begin`` lies in a clause an open negation goes on into."""
        inside = bisect.bisect_right(self.carried, (begin, len(self.query) + 1)) - 1
        return inside >= 0 and begin < self.carried[inside][1]

    def _has_word(self, start: int, stop: int) -> bool:
        word = bisect.bisect_left(self.words, start)
        return word < len(self.words) and self.words[word] < stop

    def _before(self, begin: int) -> bool:
        at = bisect.bisect_right(self.ends, begin) - 1
        start = self.ends[at] if at >= 0 else 0
        if self._has_word(start, begin):
            return True
        # the earlier items of its list, back to the clause that holds the list's start
        return self.listed[at + 1] and self._item(at, self._lead(at, start, begin))

    def _lead(self, at: int, start: int, begin: int) -> list[str]:
        """The words of ``query[start:begin]`` (``start`` where clause ``at + 1`` starts) as
        :meth:`_item` reads them: none, the one, or the first two (the rest unread). The
        clause's first word is found once per clause: each value of a long clause split it
        again from its start ("Don't cancel appointment A-1001, confirm " + "it " * 33,000:
        35 s, fourteenth security review)."""
        stop = self.starts[at + 1] if at + 1 < len(self.starts) else len(self.query)
        if begin > stop:  # inside the word that ends the clause
            return self.query[start:begin].split()[:2]
        if at not in self._leads:
            lead = _LEAD.match(self.query, start, stop)
            assert lead is not None  # it matches the empty string
            self._leads[at] = (lead.start(1), lead.end(1), lead.end())
        first, last, rest = self._leads[at]
        if begin <= first:
            return []
        if begin <= rest:
            return [self.query[first : min(begin, last)]]
        return [self.query[first:last], self.query[rest]]

    def _item(self, at: int, lead: list[str]) -> bool:
        """Whether a value after end ``at`` with the words ``lead`` before it in its clause is
        an item of a list: nothing before it, or the word before the last item ("room R1 or
        room R2"), not a verb of its own ("don't delete R2 and delete R1"; "no need to
        confirm: delete room R1")."""
        if not lead:
            return True
        if len(lead) > 1 or self.query[self.starts[at]] == ":":
            return False
        if at not in self._last_words:  # the two words before end ``at``, read once
            before = self.query[self.ends[at - 1] if at else 0 : self.starts[at]].split()[-2:]
            self._last_words[at] = {word.casefold() for word in before}
        return lead[0].casefold() in self._last_words[at]

    def _list_after(self, end: int) -> tuple[bool, int]:
        """Whether a Korean word after the value ending at ``end``, or after a later item of
        its list, says not ("R1이랑 R2 빼고"), and where the list ends. Each position is
        walked once (a dict kept per request), so a long list is read in linear time."""
        chain: list[int] = []
        found: tuple[bool, int] | None = None
        while found is None:
            if end in self._walked:
                found = self._walked[end]
            elif self._korean_against(end):
                found = (True, end)
            elif item := _NEXT_ITEM.match(self.query, end):
                chain.append(end)
                end = item.end()
                continue
            else:
                found = (False, end)
            chain.append(end)
        for position in chain:
            self._walked[position] = found
        return found

    def _korean_against(self, end: int) -> bool:
        """Whether a Korean word right after ``end`` says not ("R1 말고"), or keeps it beside
        a change ("R1은 남기고 나머지 삭제"); "밴드갭뿐만 아니라" is "not only"."""
        korean = KO_AGAINST.match(self.query, end)
        if korean and not (
            korean.group().endswith("아니라") and _NOT_ONLY.search(self.query, 0, end)
        ):
            return True
        kept = _KO_KEEP.match(self.query, end) or _KEPT_AFTER.match(self.query, end)
        return bool(kept) and self.changes

    def _after(self, end: int) -> bool:
        said, end = self._list_after(end)
        if said:
            return True
        # a negation after it, before its clause ends ("room R1 must not be deleted", "room
        # R1: do not delete")
        closing = bisect.bisect_right(self.stops, end)
        stop = self.stops[closing] if closing < len(self.stops) else len(self.query)
        later = bisect.bisect_left(self.after, end)
        return later < len(self.after) and self.after[later] < stop

    def only_against(self, value: Any) -> bool:
        """Whether ``value`` (a text or number a step would take) is written in the request
        only inside clauses that say *not*: "do not set the account currency to EUR" names
        EUR as what not to send (trial U1: a write planned ``currency="EUR"``). A value the
        request does not write as such (a coerced amount) is never."""
        if isinstance(value, bool) or not isinstance(value, str | int | float) or value == "":
            return False
        written = rf"(?<![\w-]){re.escape(str(value))}(?![\w-])"
        hits = list(re.finditer(written, self.query, re.IGNORECASE))
        return bool(hits) and all(self.against(m) for m in hits)


def _contrasts(query: str, at: int, ends: Sequence[int], nots: Sequence[tuple[int, int]]) -> bool:
    """Whether the "but" at ``at`` follows a negation in its clause (:data:`_BUT`), or one
    follows it: "Delete department D-30 but don't delete department D-31" keeps D-30 to its
    own clause, where the "don't" after it refused it too, and nothing was deleted. ``ends``
    are the clauses' ends and ``nots`` the negations' spans, in order, found once: each "but"
    read its clause from its start, 16 s for 3,300 "but first" (thirteenth security review)."""
    before = bisect.bisect_right(ends, at)
    start = ends[before - 1] if before else 0
    first = bisect.bisect_left(nots, start, key=lambda span: span[0])  # the first in it
    return (first < len(nots) and nots[first][1] <= at) or bool(_NOT_NEXT.match(query, at + 3))


_NOT_NEXT = re.compile(r"\s+(?:do\s+not|don['’‘ʼ´`]?t|never|not)\b", re.IGNORECASE)


#: The kinds of value that name one thing or day (an id, a repository, a date), left out
#: where the request says not to use them ("do not delete alice/prod", "except 2026-01-05").
IDS = ("identifier.", "repository.", "time.")


#: What an id written on does not end at: a path or an escaped one ("kop-3/../admin",
#: "R1%2F.."), a pattern ("R1*"), a list ("R1,R2", "R1&R2", "R1+R2") or a query ("R1?x=1");
#: the id is the whole, not its first part. Their full-width and look-alike forms too
#: ("R1／..／admin", "R1∕..", "R1？x=1", "R1，R2", "R1、R2"; trial Z1: each deleted R1).
CONTINUED = re.compile(
    r"[/\\%*&+|=／＼％＊＆＋｜＝∕⁄⧸﹨﹪﹠﹡]|"
    r"[,.:;?#，．：；？＃﹐﹒﹕﹔﹖﹟、。](?=[A-Za-z0-9Ａ-Ｚａ-ｚ０-９])"
)


@functools.lru_cache(maxsize=64)
def clauses_of(query: str) -> Clauses:
    """The :class:`Clauses` of ``query``, read once per request: planning asks for them per
    route and per parameter (named ids, addresses, formats, the values a step keeps), and
    each reading scans the whole request. A :class:`Clauses` is never changed after it is
    made, so one is shared."""
    return Clauses(query)


def without_refused(values: Sequence[BoundValue], query: str) -> list[BoundValue]:
    """``values`` (of ``query``) but an id, repository or date whose clause says not to use
    it, and an id the request writes on past its end (:data:`CONTINUED`). A request naming
    no such value is not read into clauses (``retrieve`` asks this of every request)."""
    if not any(value.kind.startswith(IDS) for value in values):
        return list(values)
    clauses = clauses_of(query)

    def refused(value: BoundValue) -> bool:
        if not value.kind.startswith(IDS):
            return False
        if clauses.against_span(value.start, value.end):
            return True
        return value.kind.startswith("identifier.") and bool(CONTINUED.match(query, value.end))

    return [value for value in values if not refused(value)]


def one_each(values: Sequence[BoundValue], query: str) -> list[BoundValue]:
    """``values`` (of ``query``) but the ids, repositories and dates of a kind (an id: of a
    thing) the request names two or more of, or lists on ("structures kop-1, kop-2": the
    second is read as no id; "T-5, keep T-6" lists none): a change takes none of them rather
    than the first ("delete structure kop-1 or structure kop-2" planned the deletion of
    kop-1, trial X1), as a parameter named by its own name guesses none of two
    (:func:`named_id`)."""
    seen = _named_together(values, query)
    return [v for v in values if not v.kind.startswith(IDS) or len(seen[_key(v)]) == 1]


def several_of_a_kind(values: Sequence[BoundValue], query: str) -> dict[str, tuple[str, ...]]:
    """Each id, repository or date of ``values`` that ``query`` names beside others of its
    kind (:func:`one_each`'s reading) -> all of them, in the order written: "the tickets of
    customers C-1 and C-2" gives ``{"C-1": ("C-1", "C-2")}``."""
    together = {key: tuple(items) for key, items in _named_together(values, query).items()}
    return {
        v.value: together[_key(v)]
        for v in values
        if v.kind.startswith(IDS) and len(together[_key(v)]) > 1
    }


def _key(value: BoundValue) -> tuple[str, str]:
    """An id's kind and the thing it is of ("customers": ``customer``)."""
    thing = stem(value.of) if value.kind == NAMED_IDENTIFIER and value.of else ""
    return value.kind, thing


def _named_together(
    values: Sequence[BoundValue], query: str
) -> dict[tuple[str, str], dict[str, None]]:
    """The ids, repositories and dates of ``values`` by :func:`_key`, and the items the
    request lists on after each by their place."""
    seen: dict[tuple[str, str], dict[str, None]] = {}
    listed = 0  # where the list read so far ends: each part of the request is read once
    for value in values:
        if not value.kind.startswith(IDS):
            continue
        items = seen.setdefault(_key(value), {})
        items[value.value] = None
        at = max(value.end, listed)
        while item := _NEXT_ITEM.match(query, at):
            # "T-5, not T-6" and (beside this change) "T-5, keep T-6" list no second id
            said = _AGAINST.search(item.group()) or _kept(item.group())
            if said or _SET_ASIDE.search(item.group()) or not _DIGIT.search(item.group()):
                break
            # another of its kind, by its place ("and C-2": the id, not the word)
            items[item.group().split()[-1].lstrip(",、&")] = None
            at = listed = item.end()
    return seen


_DIGIT = re.compile(r"\d")
