"""An id written right after a refused one, in its place, is of the refused one's thing.

Korean names a thing once and writes its replacement bare: "주문 O-1 환불하지 말고 O-2
환불해줘" ("don't refund order O-1, refund O-2"), "티켓 T-1 말고 T-2 닫아줘". The query analysis
reads "주문 O-1" as an order's id and the bare "O-2" as none, and O-1 is refused
(:func:`~schemarouter.retrieval.clauses.without_refused`), so the refund was planned with
``order_id`` missing: nothing could be sent (trial Y2). :func:`contrasted_ids` adds that id, of
the refused one's thing, where it is the first token after the word that sets the refused
one aside (말고, 아니라, 아니고, 대신, "but", "instead"), and is written as it is (the same
letters and separators, its digits aside: "O-2" for "O-1", never "T-2" nor "10042"). It is
then read as any id the request writes (a clause that refuses it still refuses it).

So is any other id written bare as a named one is ("티켓 T-1 닫고 T-2 다시 열어줘": T-2 is a
ticket's), where one thing's ids are written so: a change then takes neither of the two (
:func:`~schemarouter.retrieval.clauses.one_each`) rather than T-1 for both parts, the reopen of
T-2 sent as a reopen of T-1.

An id written right before its Korean thing word ("T-2 티켓 닫아줘") is that thing's, as one
written after it is (:func:`_before_their_thing`), read as the thing a parameter takes where
the word means several ("A-1002 예약 확정해줘": 예약 is a booking, a reservation or an
appointment, and was read as a book, the first of its glosses, so ``appointment_id`` stayed
missing), and not where a particle ends it ("회원 M-17에게 도서 BK-55 대출해줘": M-17에게, "to
M-17", is the member's, named before it; read as a book's id too, the loan took neither of the
request's two "book ids" and ``book_id`` stayed missing).

대신 ("instead of") after an id sets it aside as 말고 does ("티켓 T-1 대신 T-2 닫아줘" closed T-1,
the id it names first): such an id is left out of planning's values (retrieval's reading of
the request, and so its ranking, is left as it is).

An id written inside quoted text ('Comment on ticket T-1: "delete customer C-1"') is part of
what the text says, not an id the request gives: with every effect allowed, that request planned
``DELETE /customers/C-1`` ready to send. Such an id is left out of planning's values
(:func:`_in_quoted_text`), where the quote holds more than the id ("Close ticket 'T-1'" gives it).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Container, Sequence
from typing import TYPE_CHECKING

from schemarouter.index.gloss import gloss_tokens
from schemarouter.planning.described_ids import not_describing
from schemarouter.planning.refusals import unquoted
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.identifiers import thing_named, things_of

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["contrasted_ids"]

#: What sets the refused id aside and brings its replacement.
_INSTEAD = re.compile(r"말고|말곤|아니라|아니고|대신|\bbut\b|\binstead\b", re.I)
#: A token that may be an id (as :mod:`.id_patterns` reads one), a Korean particle on its end.
_TOKEN = re.compile(r"(?<![\w\-.:/])(?=[\w\-.:/]*\d)[A-Za-z0-9][\w\-.:/]*")
#: ... standing as a word of its own ("T-2", "T-2를"), not written on with a sign ("R1&R2").
_WORD_TOKEN = re.compile(r"(?<!\S)(?=[\w\-]*\d)[A-Za-z0-9][\w\-]*(?=[\s.,!?;:]|$)")
#: An id, then a Korean word: the thing it may be of ("T-2 티켓", "A-1002번 예약": 번, number,
#: is no particle); any other Hangul written onto the id ("M-17에게 도서") ends its phrase:
#: the word after is no thing of it.
_BEFORE_THING = re.compile(
    r"(?<!\S)((?=[A-Za-z0-9\-_]*\d)[A-Za-z][A-Za-z0-9\-_]*)(?:번)?\s+([\uac00-\ud7a3]+)"
)
#: A Korean word that asks (a verb's ending): no thing ("T-2 환불해줘").
_KO_VERB_END = re.compile(r"(?:줘|해|봐|요|세요|하고|해서|하기|고)$")
_HANGUL_TAIL = re.compile(r"(?<![\uac00-\ud7a3])[\uac00-\ud7a3]+$")
_DIGITS = re.compile(r"\d+")
_LETTER = re.compile(r"[A-Za-z]")
#: 대신 (instead of) right after an id, a particle between: "T-1 대신", "T-1을 대신해".
_KO_INSTEAD = re.compile(r"\s*+(?:을|를|은|는|이|가)?\s*+대신")
#: A quoted span; a single quote opens and closes away from a word ("don't ... T-2's" is none).
_QUOTED_TEXT = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<!\w)'[^']*'(?!\w)")


def _shape(token: str) -> str:
    return _DIGITS.sub("0", token)


def _before_their_thing(
    values: Sequence[BoundValue], query: str, things: Container[str]
) -> list[BoundValue]:
    """The ids written right before a Korean thing word the glossary knows, not a verb ("T-2
    티켓 닫아줘", "O-1 주문을"): Korean writes the thing after its id as often as before it, and
    the analysis reads it before only ("T-1 티켓 보여줘" read the first ticket listed). The
    word is read as the thing of ``things`` (the things whose ids parameters take) its
    glosses name, its verb's sense aside ("A-1002 예약": an appointment's, not a book's)."""
    have = {v.value for v in values}
    found = []
    text = unquoted(query)
    for match in _BEFORE_THING.finditer(text):
        token, word = match.group(1), match.group(2)
        if token in have or _KO_VERB_END.search(word) or not gloss_tokens(word):
            continue
        thing = thing_named(text, match.start(2), word, things, gloss_tokens)
        if thing is None:
            continue
        start = match.start(1)
        found.append(
            BoundValue(kind=NAMED_IDENTIFIER, value=token, start=start, end=match.end(1), of=thing)
        )
        have.add(token)
    return found


def _things(snapshot: RegistrySnapshot) -> frozenset[str]:
    """The things whose ids the parameters of ``snapshot``'s routes take (read once)."""
    return things_of(snapshot.routes.values())


def _in_quoted_text(query: str) -> Callable[[BoundValue], bool]:
    """Whether a value is written inside a quoted span of ``query`` that holds more than it.
    The spans are read once and do not overlap: only the last one opening before a value can
    hold it (each value read them all, 1.3 s for 1,100 ids: thirteenth security review)."""
    spans = [(m.start(), m.end(), m.group(0)[1:-1].strip(" \t.,;:!?"))
             for m in _QUOTED_TEXT.finditer(query)]  # fmt: skip
    starts = [start for start, _, _ in spans]

    def inside(value: BoundValue) -> bool:
        at = bisect.bisect_left(starts, value.start) - 1
        if at < 0:
            return False
        _, end, text = spans[at]
        return value.end < end and text != value.value

    return inside


def contrasted_ids(
    values: Sequence[BoundValue], query: str, snapshot: RegistrySnapshot | None = None
) -> list[BoundValue]:
    """``values`` with the id written in place of each refused one, and without one 대신
    sets aside or one quoted text holds (module docstring); ``snapshot``: the registry whose
    parameters' things an id before a Korean thing word is read as. An id written in words
    that describe another thing is none of them (:mod:`.described_ids`)."""
    quoted = _in_quoted_text(query)
    values = [v for v in not_describing(values, query) if not quoted(v)]
    known = snapshot.derived("planning.things", _things) if snapshot is not None else ()
    values = [*values, *_before_their_thing(values, query, known)]
    named = [v for v in values if v.kind == NAMED_IDENTIFIER and v.of]
    if not named:
        return list(values)
    clauses = clauses_of(query)
    have = {v.value for v in values}
    aside = {v for v in named if _KO_INSTEAD.match(query, v.end)}
    out = [v for v in values if v not in aside]
    # the words of "instead" and the token after each, found once, not read on to the end
    # for each refused id (16 s for 4,500 of them: thirteenth security review)
    insteads = list(_INSTEAD.finditer(query))
    starts = [m.start() for m in insteads]
    after = functools.cache(lambda at: _TOKEN.search(query, at))
    for value in named:
        if value not in aside and not clauses.against_span(value.start, value.end):
            continue
        next_one = bisect.bisect_left(starts, value.end)
        instead = insteads[next_one] if next_one < len(insteads) else None
        token = after(instead.end()) if instead else None
        if token is None:
            continue
        text = _HANGUL_TAIL.sub("", token.group())
        if text in have or _shape(text) != _shape(value.value):
            continue
        start = token.start()
        out.append(
            BoundValue(kind=value.kind, value=text, start=start, end=start + len(text), of=value.of)
        )
        have.add(text)
    # a bare id written as a named one is, with one thing of that shape, of that thing too
    shaped: dict[str, set[str]] = {}
    for value in named:
        if value not in aside:
            shaped.setdefault(_shape(value.value), set()).add(value.of or "")
    for token in _WORD_TOKEN.finditer(unquoted(query)):
        text = _HANGUL_TAIL.sub("", token.group())
        things = shaped.get(_shape(text), set())
        # a number alone ("an offer of 450 USD on listing 998877") is no id of a thing's shape
        if text in have or len(things) != 1 or not _LETTER.search(text):
            continue
        start = token.start()
        thing = next(iter(things))
        out.append(
            BoundValue(
                kind=NAMED_IDENTIFIER, value=text, start=start, end=start + len(text), of=thing
            )
        )
        have.add(text)
    return not_describing(out, query)
