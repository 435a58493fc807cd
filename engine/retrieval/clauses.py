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

from schemarouter.retrieval.analysis import BoundValue

__all__ = ["CONTINUED", "IDS", "Clauses", "clauses_of", "without_refused"]

#: Words that turn the rest of their clause against what it names: "do not delete room R1",
#: "every booking except room R1", "not to B2"; Korean writes them after the value ("R1 말고",
#: "R1은 빼고", "R1 제외").
_AGAINST = re.compile(
    r"\b(?:not|never|no|cannot|except|excluding|without|but|besides|other\s+than|"
    r"instead\s+of|rather\s+than|apart\s+from|dont)\b|n['’]t\b",  # "don’t" as phones write it
    re.IGNORECASE,
)
#: Korean's, after the value, 만 ("only") before them too: "R1만 빼고" is all but R1, but
#: "R1만 아니라 R2도" is "not only R1 but R2 too" (both wanted).
_KO_AGAINST = re.compile(
    r"\s*+(?:만(?!\s*+아니라))?(?:을|를|은|는|이|가)?\s*+(?:말고|빼고|제외|아닌|아니라|외에)"
)
#: "밴드갭뿐만 아니라" written on one word: the value's word ends in 뿐(만) / 만, so the 아니라
#: after it is "not only ... but also" (trial X4: the band gap was read as refused).
_NOT_ONLY = re.compile(r"(?:뿐|만)$")
#: A negation written after the value in its clause: a modal's ("room R1 must not be
#: deleted", "shouldn't"), or Korean's negative imperative and ban ("R1은 삭제하지 마",
#: "R1 삭제 금지", "삭제하면 안 돼").
_AFTER_AGAINST = re.compile(
    r"\b(?:must|should|shall|may|can)(?:\s+not|\s+never|n['’]t)\b|"
    r"지\s*(?:마|말)|금지|하면\s*안",
    re.IGNORECASE,
)
#: Where a clause ends: a comma, a sentence's end, a line, "and", "then", "or".
_CLAUSE_END = re.compile(r"[,;\n]|[.!?](?=\s|$)|\b(?:and|then|or)\b", re.IGNORECASE)
#: A clause that is only its negation, its verb set apart by a comma: "Do not, under any
#: circumstances, delete room R1"; "never, ever". Its *not* goes on to the clauses after it.
_OPEN_NOT = re.compile(r"(?:\b(?:not|never|dont)|n['’]t)\s*$", re.IGNORECASE)
#: What is kept in a request that also changes or removes: "delete the old bookings; keep
#: room R1", "R1은 남기고 나머지 삭제". A request that changes nothing keeps its values ("keep
#: track of order O-1"), and "leave" keeps only with alone / untouched / as is after it.
_KEEP = re.compile(
    r"\b(?:keep|keeping|spare|sparing|preserve|preserving|retain|retaining)\b|"
    r"\b(?:leave|leaving)\b(?=[^,;.\n]*\b(?:alone|untouched|intact|as\s+is|in\s+place)\b)",
    re.IGNORECASE,
)
_KO_KEEP = re.compile(r"\s*+(?:만)?(?:을|를|은|는|이|가)?\s*+(?:남기|남겨|유지|보존)")
_CHANGES = re.compile(
    r"\b(?:delete|remove|cancel|drop|purge|erase|wipe|clear|destroy|archive|close|update|"
    r"change|overwrite|replace|reset|revoke|terminate|deactivate|disable|empty|clean)|"
    r"삭제|취소|제거|지우|지워|변경|수정|비우|비워",
    re.IGNORECASE,
)


class Clauses:
    """Where the clauses of ``query`` start and what in them says *not*, read once, so that
    :meth:`against` answers per match by bisection."""

    def __init__(self, query: str) -> None:
        self.query = query
        self.ends = [m.end() for m in _CLAUSE_END.finditer(query)]
        words = [m.start() for m in _AGAINST.finditer(query)]
        kept = [m.start() for m in _KEEP.finditer(query)]
        if kept and self.changes:
            words = sorted(words + kept)
        self.words = words
        self.after = [m.start() for m in _AFTER_AGAINST.finditer(query)]
        self.carried = self._carried()

    @functools.cached_property
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
        """:meth:`against` for the value written from ``begin`` to ``end``."""
        at = bisect.bisect_right(self.ends, begin) - 1
        start = self.ends[at] if at >= 0 else 0
        word = bisect.bisect_left(self.words, start)
        if word < len(self.words) and self.words[word] < begin:
            return True
        korean = _KO_AGAINST.match(self.query, end)
        if korean and not (
            korean.group().endswith("아니라") and _NOT_ONLY.search(self.query, 0, end)
        ):
            return True
        if _KO_KEEP.match(self.query, end) and self.changes:
            return True
        inside = bisect.bisect_right(self.carried, (begin, len(self.query) + 1)) - 1
        if inside >= 0 and begin < self.carried[inside][1]:
            return True
        # a negation after it, before its clause ends ("room R1 must not be deleted")
        closing = bisect.bisect_right(self.ends, end)
        stop = self.ends[closing] if closing < len(self.ends) else len(self.query)
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


#: The kinds of value that name one thing or day (an id, a repository, a date), left out
#: where the request says not to use them ("do not delete alice/prod", "except 2026-01-05").
IDS = ("identifier.", "repository.", "time.")


#: What an id written on does not end at: a path or an escaped one ("kop-3/../admin",
#: "R1%2F.."), a pattern ("R1*") or a list ("R1,R2"); the id is the whole, not its first part.
CONTINUED = re.compile(r"[/\\%*]|[,.:;](?=[A-Za-z0-9])")


@functools.lru_cache(maxsize=64)
def clauses_of(query: str) -> Clauses:
    """The :class:`Clauses` of ``query``, read once per request: planning asks for them per
    route and per parameter (named ids, addresses, formats, the values a step keeps), and
    each reading scans the whole request. A :class:`Clauses` is never changed after it is
    made, so one is shared."""
    return Clauses(query)


def without_refused(values: Sequence[BoundValue], query: str) -> list[BoundValue]:
    """``values`` (of ``query``) but an id, repository or date whose clause says not to use
    it, and an id the request writes on past its end (:data:`CONTINUED`)."""
    clauses = clauses_of(query)

    def refused(value: BoundValue) -> bool:
        if not value.kind.startswith(IDS):
            return False
        if clauses.against_span(value.start, value.end):
            return True
        return value.kind.startswith("identifier.") and bool(CONTINUED.match(query, value.end))

    return [value for value in values if not refused(value)]
