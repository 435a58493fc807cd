"""An id written to describe another thing is never a value the request gives.

"Transfer 20 USD to account AC-2 that was opened from account AC-9 last year, from AC-1"
DEBITED AC-9 (a helper's trial: the analysis read "from account AC-9", inside the clause
that says which account AC-2 is, as the thing of ``from_account_id``, and the sides' rule
found "from AC-1" a second time, so left the side to the analysis). An id inside words that
describe something else says which thing is meant, not what the change takes:

- a relative clause, from "that", "which", "who", "whom" or "whose" after an id ("account
  AC-2 that was opened from AC-9", "AC-2, which customer C-9 owns") or after a noun an
  article opens ("the account that AC-9 closed"), to the clause's end (a comma, ``;``, ``)``,
  a sentence's stop, the end of the request): a clause with no end before another side's
  words reads on, so "to account AC-2 which AC-9 funded from AC-1" fills no source (which
  account the clause ends on cannot be told; nothing is guessed);
- parentheses holding more than one token ("to account AC-2 (opened from AC-9)"; "(AC-2)",
  "(GaN)" give their own);
- a comparison: "like AC-9", "such as", "similar to", "unlike", "the same account as AC-9",
  "same as AC-9" (not "I'd like", "would like", "we like": a verb).

A clause that only gives its head's own id is none ("the account which is AC-2", "the order
whose id is O-1"). A "not" clause is :mod:`schemarouter.retrieval.clauses`'s. Such an id is
left out of planning's values (:func:`not_describing`) and out of what the argument rules
read from the text (:func:`describes`: the sides of a move, ids by a schema's pattern, a
parameter's name before an id); a message's words are still sent whole. The plan's warnings
say which id was set aside and why (:func:`described_notes`), so a change left with a side
missing says so, and ``execute`` refuses it.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence

from schemarouter.retrieval.actions import verb_of
from schemarouter.retrieval.analysis import BoundValue

__all__ = ["described_notes", "describes", "not_describing", "undescribed"]

#: An id-like token: letters and digits, a letter and a digit both ("AC-9", "C9", "S-205").
_ID = r"(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]*"
#: A relative word; group 1 is what stands before it (an id, or a noun an article opens).
_RELATIVE = re.compile(r"\b(?:that|which|who|whom|whose)\b", re.IGNORECASE)
_AFTER_ID = re.compile(rf"(?<![\w-]){_ID},?\s+$")
_AFTER_NOUN = re.compile(
    r"\b(?:the|a|an|this|these|those|its|their|his|her|my|our|your|some|any|every|each|"
    r"another|other)\s+(?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*,?\s+$",
    re.IGNORECASE,
)
#: Where a clause ends: a comma, ``;``, ``)``, a line's end, a sentence's stop; or "and" /
#: "then" before a verb of change as a request writes it ("... that T-2 duplicates and
#: reopen T-2"), group 1 that verb.
_CLAUSE_END = re.compile(r"[,;)\n]|[.!?](?=\s|$)|\s(?:and\s+then|and|then)\s+([A-Za-z]+)\b")
#: A clause that gives its head's own id only: "which is AC-2", "whose id is O-1".
_OWN_ID = re.compile(
    rf"(?:that|which|who)\s+(?:is|was)\s+(?:(?:the|an?)\s+)?(?:[A-Za-z]+\s+)?{_ID}\s*$"
    rf"|whose\s+(?:[A-Za-z]+\s+)?(?:id|number|code|key|reference|ref)\s+(?:is\s+)?{_ID}\s*$",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\(([^()]*)\)")
#: Parentheses that give one token, a thing's word before it or not: "(AC-2)", "(account
#: AC-2)", "(GaN)" (a formula the words before name: "gallium nitride (GaN)").
_ONLY_ID = re.compile(r"\s*(?:[A-Za-z]+\s+)?[^\s()]+\s*")
#: A comparison and the id it compares with (a thing's words between).
_COMPARED = re.compile(
    r"\b(?:like|such\s+as|similar\s+to|unlike|same\s+as|same\s+(?:[A-Za-z]+\s+){1,2}as)\s+"
    rf"(?:(?:the|an?)\s+)?(?:[A-Za-z]+\s+){{0,2}}?{_ID}",
    re.IGNORECASE,
)
#: "like" as a verb: "I'd like", "would like", "we like".
_LIKING = re.compile(
    r"(?:\b(?:i|we|you|they|he|she|would|should|do|does|did|also|really|will)|['’]d)\s+$",
    re.IGNORECASE,
)
#: How far back the words before a relative word are read.
_LOOK_BACK = 80


@functools.lru_cache(maxsize=64)
def _spans(query: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The starts and ends of the spans of ``query`` that describe another thing (module
    docstring), merged and sorted; read once per request."""
    ends = [
        m.start()
        for m in _CLAUSE_END.finditer(query)
        if m.group(1) is None or (verb_of(m.group(1)) and not m.group(1).lower().endswith("ed"))
    ]
    found: list[tuple[int, int]] = []
    for match in _RELATIVE.finditer(query):
        before = query[max(0, match.start() - _LOOK_BACK) : match.start()]
        if not (_AFTER_ID.search(before) or _AFTER_NOUN.search(before)):
            continue
        at = bisect.bisect_left(ends, match.end())
        end = ends[at] if at < len(ends) else len(query)
        if not _OWN_ID.match(query, match.start(), end):
            found.append((match.start(), end))
    for match in _PARENTHESES.finditer(query):
        if not _ONLY_ID.fullmatch(match.group(1)):
            found.append(match.span())
    for match in _COMPARED.finditer(query):
        liking = match.group(0)[:4].lower() == "like"
        if not (liking and _LIKING.search(query, max(0, match.start() - 20), match.start())):
            found.append(match.span())
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(s for s, _ in merged), tuple(e for _, e in merged)


def describes(query: str, start: int, end: int) -> bool:
    """Whether the text of ``query`` from ``start`` to ``end`` (an id) lies in words that
    describe another thing (module docstring)."""
    starts, ends = _spans(query)
    at = bisect.bisect_right(starts, start) - 1
    return at >= 0 and end <= ends[at]


def undescribed(query: str) -> str:
    """``query`` with the words that describe another thing blanked, its places kept: a verb
    there asks nothing ("Transfer 20 USD to account AC-2, which was opened by customer C-9,
    from AC-1" asks to move money, not to open)."""
    starts, ends = _spans(query)
    if not starts:
        return query
    out, at = [], 0
    for start, end in zip(starts, ends, strict=True):
        out += [query[at:start], " " * (end - start)]
        at = end
    return "".join([*out, query[at:]])


def not_describing(values: Sequence[BoundValue], query: str) -> list[BoundValue]:
    """``values`` without the ids written in words that describe another thing (other values
    are left: a formula, a date)."""
    return [
        v
        for v in values
        if not (
            v.kind.startswith("identifier.")
            and v.end > v.start
            and describes(query, v.start, v.end)
        )
    ]


def described_notes(
    values: Sequence[BoundValue], query: str, taken: Callable[[str], bool]
) -> list[str]:
    """A warning for each id ``values`` hold that is written in words describing another
    thing and that no step takes (``taken``: whether one does, in a message's text say)."""
    notes: dict[str, None] = {}
    for value in values:
        if not value.kind.startswith("identifier.") or value.end <= value.start:
            continue
        if taken(value.value):
            continue
        if describes(query, value.start, value.end):
            starts, ends = _spans(query)
            at = bisect.bisect_right(starts, value.start) - 1
            words = query[starts[at] : ends[at]].strip()
            notes[
                f"the request names {value.value!r} in words that describe another thing "
                f"({words!r}): no step takes it; pass it with Plan.with_arguments where it "
                "is meant"
            ] = None
    return list(notes)
