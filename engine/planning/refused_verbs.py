"""The changes a request says not to do: the verb right after its negation ("don't delete",
"never approve", "삭제하지 말고"), and those it refuses and asks nowhere else (moved out of
:mod:`.asked_changes`, which reads what a request asks, at its 600-line bound).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from schemarouter.planning.korean_changes import KO_MORE
from schemarouter.planning.refusals import unquoted
from schemarouter.retrieval.actions import request_verbs

__all__ = ["only_refused", "refused_verbs"]

_WORD = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+")
#: A verb right after a word that says not to do it ("don't delete", "do not close", "never
#: approve"), or in Korean before 지 말 / 지 마 / 지 않 ("삭제하지 말고").
_NEGATED_VERB = re.compile(
    r"\b(?:don'?t|do\s+not|never|not)\s+([A-Za-z]+)|([\uac00-\ud7a3]+?)하?지\s*(?:말|마|않)",
    re.IGNORECASE,
)
#: :data:`_NEGATED_VERB` whose Korean stem opens a run of Hangul (:func:`_negations`).
_NEGATED_AT_RUN = re.compile(
    r"\b(?:don'?t|do\s+not|never|not)\s+([A-Za-z]+)"
    r"|(?<![\uac00-\ud7a3])([\uac00-\ud7a3]+?)하?지\s*(?:말|마|않)",
    re.IGNORECASE,
)


def _negations(text: str) -> Iterator[re.Match[str]]:
    """``_NEGATED_VERB.finditer(text)``, in linear time: its Korean stem, tried from every
    syllable of a run of Hangul, read the run to its end from each ("을" * 10,000 took 1.6 s:
    thirteenth security review). A match starts at a run's first syllable, or right where the
    one before ended (from any later syllable, it would have started there)."""
    at = 0
    while True:
        match = _NEGATED_VERB.match(text, at) if at else None
        match = match or _NEGATED_AT_RUN.search(text, at)
        if match is None:
            return
        yield match
        at = match.end()


def refused_verbs(query: str) -> frozenset[str]:
    """The changes ``query`` says not to do, by the verb right after its negation."""
    out: set[str] = set()
    for match in _negations(unquoted(query)):
        out |= _negated(match)
    return frozenset(out)


def _negated(match: re.Match[str]) -> set[str]:
    """The changes of one :data:`_NEGATED_VERB` match: its English word's, or its Korean
    stem's, this module's Korean verbs too ("닫지 말고": close)."""
    korean = match.group(2)
    if not korean:
        return set(request_verbs(match.group(1)))
    return set(request_verbs(korean)) | {
        v for stem, v in KO_MORE.items() if korean.startswith(stem)
    }


_NOUN = re.compile(r"(?:ing|ion|ions)$")


def only_refused(query: str) -> frozenset[str]:
    """The changes ``query`` says not to do and asks nowhere else: "예약 A-1001 취소하지 말고
    A-1002 확정해줘" (don't cancel A-1001, confirm A-1002) refuses the cancel and asks a change
    no verb table knew; "Don't delete room R1 but delete room R2" still asks the deletion (a
    form of the verb written more often than it is refused)."""
    text = unquoted(query)
    negated = [(match, _negated(match)) for match in _negations(text)]
    # each kind of refusal counted once: every refusal asked every other and every word
    # ("don't delete room R1, " * 450 took 16 s: thirteenth security review)
    english = [request_verbs(m.group(1)) for m, _ in negated if m.group(1)]
    words = Counter(w for w in _WORD.findall(text.lower()) if not _NOUN.search(w))
    written_verbs = [(verbs, n) for w, n in words.items() if (verbs := request_verbs(w))]
    korean = Counter(m.group(2) for m, _ in negated if m.group(2))
    out: set[str] = set()
    for verbs in {frozenset(v) for m, v in negated if v and not m.group(2)}:
        refused = sum(1 for e in english if e & verbs)
        written = sum(n for w, n in written_verbs if w & verbs)
        if written <= refused:
            out |= verbs
    for stem, stem_verbs in {m.group(2): v for m, v in negated if v and m.group(2)}.items():
        if text.count(stem) <= korean[stem]:
            out |= stem_verbs
    return frozenset(out)
