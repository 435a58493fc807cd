"""Which clauses of a sentence a later time holds, and which times hold none.

"Refund order O-1 now and delete customer C-1 tomorrow" withheld the refund with the
deletion: a later time held its whole sentence (:func:`.conditions.deferral_scopes`), though
the refund's own clause says "now". A clause that says it is asked now ("now", "right away",
"immediately", "at once", "today") is set apart from a later time in another clause of its
sentence (:func:`set_apart_now`); one written before a condition is set apart from it too
("Refund order O-1 now and delete customer C-1 if it has no orders"), one after it is not
("If order O-1 is open, refund it now and delete C-1": the condition leads both).

A later time is no time to act (:func:`times_to_act`) where it is the change's own value in
a clause of its own ("Refund order O-1 and set a reminder for tomorrow", "Change task T-1 due
date to next Friday and refund order O-1": the clause asks a change that takes a date or a
time, of the thing it names, and no other), nor where an event's "after" says which things a
read lists ("Refund order O-1 and show invoices after the migration": its clause's verb is a
read), nor where the event is a change the request itself asks ("Refund order O-1, and
after the refund, delete customer C-1": an order of the two, as "after you refund order O-1"
is; :func:`_asked_event`). Only English is read so. A Korean clause asked now is set apart
as an English one is ("고객 C-1은 내일 삭제하고 주문 O-1은 지금 환불해줘": a verb's -고 ends
a clause).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from schemarouter.contracts import Effect
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.deferred import takes_a_time
from schemarouter.retrieval.actions import is_read_verb, name_words, verb_forms

if TYPE_CHECKING:
    from schemarouter.contracts import Route
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["set_apart_now", "times_to_act"]

#: Where a clause starts or ends: a stop, a comma or a colon, an English joining word, and
#: the space after a Korean verb's -고 ("삭제하고 ...").
_BOUND = re.compile(r"[,;:.!?\n]|\b(?:and|but|then|while|whereas)\b|(?<=[가-힣]고)(?=\s)", re.I)
#: A clause's own "now" (not "not now", "by now", "until now", "from now", "for now", nor
#: after a participle: "the orders created today" says which); Korean 지금, 바로, 즉시, 당장
#: and 오늘.
_NOW = re.compile(
    r"(?<!\bnot\s)(?<!\bby\s)(?<!\buntil\s)(?<!\btill\s)(?<!\bfrom\s)(?<!\bfor\s)(?<!ed\s)"
    r"\b(?:(?:right\s+)?now|immediately|right\s+away|straight\s+away|at\s+once|today|asap)\b"
    r"|(?<!\S)(?:지금|바로|즉시|당장|오늘)(?:은|는)?(?!\S)",
    re.I,
)


class _Clauses:
    """The clauses of a text: where each of its :data:`_BOUND` stands, found once and
    bisected (read again from the text's start for each time, "Delete customer C-1 after the
    refund of order O-1 " 7,000 times went past the 20 s bound of
    ``tests/planning/test_long_requests_cost_no_time.py``)."""

    def __init__(self, text: str) -> None:
        found = [m.span() for m in _BOUND.finditer(text)]
        self.size = len(text)
        self.starts = [a for a, _ in found]
        self.ends = [b for _, b in found]

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The clause holding ``[start, end)``: from the end of the last bound that ends at
        or before ``start`` to the start of the first at or after ``end``."""
        before = bisect_right(self.ends, start) - 1
        after = bisect_left(self.starts, end)
        left = self.ends[before] if before >= 0 else 0
        return left, (self.starts[after] if after < len(self.starts) else self.size)


def set_apart_now(
    text: str, scopes: Sequence[tuple[int, int, int, int]], *, after_too: bool
) -> list[tuple[int, int, int, int]]:
    """``scopes`` (``(start, end, hold start, hold end)``) with each hold cut short of the
    nearest clause inside it, before the span, that says it is asked now; ``after_too`` (a
    later time, which "now" gainsays), of the nearest after it too."""
    clauses = _Clauses(text)
    nows = [m.span() for m in _NOW.finditer(text)]
    starts, ends = [a for a, _ in nows], [b for _, b in nows]
    out = []
    for start, end, hold, until in scopes:
        left, right = clauses.around(start, end)
        before = bisect_right(ends, left) - 1  # the last "now" of a clause before the span's
        if before >= 0 and starts[before] >= hold:
            hold = max(hold, clauses.around(*nows[before])[1])
        after = bisect_left(starts, right)
        if after_too and after < len(nows) and ends[after] <= until:
            until = min(until, clauses.around(*nows[after])[0])
        out.append((start, end, hold, until))
    return out


def times_to_act(
    text: str,
    spans: Sequence[tuple[int, int]],
    snapshot: RegistrySnapshot,
    asks: Callable[[str, Route], bool],
) -> list[tuple[int, int]]:
    """``spans`` (later times, :func:`~.deferred.deferral_spans`) but those that are no time
    to act (module docstring); ``asks(text, route)``: whether ``text`` asks ``route``'s
    change. Each span's clause is read from the last bound, or the
    span before it, up to its end."""
    writes = [r for r in snapshot.routes.values() if r.endpoint.effect is not Effect.READ]
    timed = [r for r in writes if takes_a_time(r)]
    things = {w for r in timed for w in list(name_words(r.endpoint.name))[1:]}
    clauses, out, last = _Clauses(text), [], 0
    blanked = list(text)
    for start, end in spans:
        blanked[start:end] = " " * (end - start)
    outside = "".join(blanked)
    asked: frozenset[str] = frozenset()
    written: frozenset[str] = frozenset()
    if any(text[a:b].lower().startswith("after") for a, b in spans):  # the changes asked
        said = {f for w in set(re.findall(r"[a-z]+", outside.lower())) for f in verb_forms(w)}
        named = {next(iter(name_words(r.endpoint.name)), "") for r in writes}
        asked = asked_verbs(outside) | (named & said)  # "Refund order O-1": refund_order
        written = frozenset(_ID.findall(outside))
    for start, end in spans:
        left = max(clauses.around(start, end)[0], last)  # from the time before, if nearer
        last = end
        clause = text[left:end]
        if not clause.isascii():
            out.append((start, end))
            continue
        lead = text[left:start]
        if (
            text[start:end].lower().startswith("after")
            and any(is_read_verb(w) for w in re.findall(r"[A-Za-z]+", lead))
            and not asked_verbs(lead)
        ):
            continue  # "show invoices after the migration": which invoices
        if _asked_event(text[start:end], asked, written):
            continue  # "refund order O-1 and delete customer C-1 after the refund": an order
        words = {f for w in re.findall(r"[A-Za-z]+", clause.lower()) for f in verb_forms(w)}
        if (
            words & things
            and any(asks(clause, r) for r in timed)
            and not any(asks(clause, r) for r in writes if r not in timed)
        ):
            continue  # "set a reminder for tomorrow": the reminder's own time
        out.append((start, end))
    return out


#: An event's "after": its noun, and what names which (``after the refund of order O-1``).
_EVENT = re.compile(r"after\s+\w+\s+([a-z]+)(?:\s+of\s+(.*))?$", re.I | re.S)
#: What a change's noun ends with past its verb: refund, delet-ion, cancell-ation, remov-al.
_NOUN_END = re.compile(r"(?:ation|ition|ion|al|ure|ment|s)$")


#: An id as an event's "after" names it: a word with a digit ("O-1", "ORD7").
_ID = re.compile(r"(?<![\w-])[\w-]*\d[\w-]*")


def _asked_event(span: str, asked: frozenset[str], written: frozenset[str]) -> bool:
    """Whether ``span``, an event's "after", is after a change the request asks outside it
    (``asked``: the verbs of the request outside its times; ``written``: the ids there):
    "Refund order O-1 and delete customer C-1 after the refund" is an order of the two, as
    "after you refund order O-1" is. Where it names which ("after the refund of order O-1"),
    each id it names is written outside it too: "Refund order O-2 and delete customer C-1
    after the refund of order O-1" waits for another. The ids are found once: looked for in
    the whole request for each time, the request's length times their number."""
    found = _EVENT.match(span)
    if found is None or not asked:
        return False
    stem = _NOUN_END.sub("", found.group(1).lower())
    if len(stem) < 3 or not any(v.startswith(stem) or stem.startswith(v) for v in asked):
        return False
    return all(i in written for i in _ID.findall(found.group(2) or ""))
