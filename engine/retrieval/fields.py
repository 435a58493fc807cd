"""Field resolution: the semantic ids a request needs, read from its text.

Given explicitly, or matched in the query text against semantic ids, field names and the
catalog's alias layer (longest phrases first: "bulk modulus" beats "modulus"). A provenance
word (*DFT*, *measured*, *실험*) is the request's filter on source type, never a request for
a ``provenance.*`` field that lists it among its aliases. Retrieval
reads it for ``matched_fields`` and the reranker's route text; the planner covers what it
returns. It needs the request's text and the snapshot, never a plan.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from schemarouter.registry.registry import FieldProvision, RegistrySnapshot
from schemarouter.retrieval.clauses import clauses_of
from schemarouter.retrieval.field_words import KOREAN_FIELD_WORDS

__all__ = ["resolve_fields"]


_TOKEN = re.compile(r"[0-9a-z]+|[\uac00-\ud7a3]+|[\u4e00-\u9fff]", re.IGNORECASE)


def _norm_tokens(text: str, *, split_camel: bool = True) -> tuple[str, ...]:
    if split_camel:  # field names (``bandGap``); never the query ("GaN" is not "Ga N")
        text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    out = []
    for token in _TOKEN.findall(text.replace("_", " ").replace(".", " ")):
        token = token.lower()
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        out.append(token)
    return tuple(out)


def _phrases(
    semantic_id: str, offers: Sequence[FieldProvision], *, aliases: bool = True
) -> set[tuple[str, ...]]:
    """The phrases naming ``semantic_id``: its last part and its fields' names, and, with
    ``aliases``, their aliases."""
    phrases = {_norm_tokens(semantic_id.split(".")[-1])}
    for offer in offers:
        if aliases:
            phrases.update(_norm_tokens(a) for a in offer.field.aliases)
        phrases.add(_norm_tokens(offer.field.name))
    # a one-token phrase must be a real word: "n" or "a" (refractive index, lattice a) would
    # match stray letters; Hangul words count from two syllables
    return {p for p in phrases if p and (len(p) > 1 or len(p[0]) >= 3 or _hangul(p[0]))}


def _hangul(token: str) -> bool:
    return len(token) >= 2 and all("\uac00" <= ch <= "\ud7a3" for ch in token)


def _particle_after(token: str, word: str) -> bool:
    """Whether ``token`` is the Hangul ``word`` with Hangul after it (a particle: 탄성률을)."""
    rest = token[len(word) :] if token.startswith(word) else ""
    return bool(rest) and all("\uac00" <= ch <= "\ud7a3" for ch in rest)


@functools.cache
def _provenance_words() -> frozenset[tuple[str, ...]]:
    """The provenance words (*measured*, *DFT*, *실험*), as phrases: a request's constraint
    on source type (:data:`~schemarouter.retrieval.sources.SOURCE_WORDS`)."""
    from schemarouter.retrieval.sources import SOURCE_WORDS

    return frozenset(_norm_tokens(w) for words in SOURCE_WORDS.values() for w in words)


@functools.cache
def _korean_words() -> Mapping[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """English phrase -> the Korean phrases :data:`KOREAN_FIELD_WORDS` gives for it, both
    as field resolution tokenizes them (``youngs modulus`` and ``young's modulus`` alike)."""
    return {
        _norm_tokens(english): tuple(_norm_tokens(word) for word in words)
        for english, words in KOREAN_FIELD_WORDS.items()
    }


def _with_korean(phrases: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """``phrases`` and the Korean words for each (an English catalog's ``band_gap`` is also
    밴드갭): a Korean request resolves a field its catalog names only in English."""
    korean = _korean_words()
    return phrases | {word for phrase in phrases for word in korean.get(phrase, ())}


class _PhraseTable(NamedTuple):
    """Every phrase (semantic id, field name, alias) of a snapshot -> its semantic ids.

    Korean attaches particles to the last word and writes compounds with or without spaces,
    so a Hangul phrase also matches with a particle on its last word (``체적 탄성률을``), a
    one-word one inside a query word (``밀도를``) or across a space at a word's start
    (``체적탄성률`` in ``체적 탄성률은``), and a several-word one written as one word
    (``체적 탄성률`` in ``체적탄성률을``)."""

    phrases: Mapping[tuple[str, ...], frozenset[str]]
    longest: int
    #: one-word Hangul phrases, matched inside query words (particles attach to them), and
    #: several-word Hangul phrases joined into one word
    hangul: tuple[tuple[str, str], ...]
    #: several-word phrases ending in a Hangul word: the words before it -> (that word, id)
    tails: Mapping[tuple[str, ...], tuple[tuple[str, str], ...]]
    #: semantic id -> its own names (not its aliases), each written as one word
    own: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, snapshot: RegistrySnapshot) -> _PhraseTable:
        table: dict[tuple[str, ...], set[str]] = {}
        hangul: list[tuple[str, str]] = []
        tails: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        own: dict[str, frozenset[str]] = {}
        for semantic_id in snapshot.semantic_ids():
            offers = snapshot.providers_of(semantic_id)
            if all(o.field.identifier for o in offers):
                continue  # identifiers are always projected; never "what the request needs"
            named = _with_korean(_phrases(semantic_id, offers, aliases=False))
            own[semantic_id] = frozenset("".join(phrase) for phrase in named)
            for phrase in _with_korean(_phrases(semantic_id, offers)):
                if semantic_id.startswith("provenance.") and phrase in _provenance_words():
                    continue  # "DFT" filters by source type; it asks for no method field
                table.setdefault(phrase, set()).add(semantic_id)
                if all(_hangul(word) for word in phrase):
                    hangul.append(("".join(phrase), semantic_id))
                if len(phrase) > 1 and _hangul(phrase[-1]):
                    tails.setdefault(phrase[:-1], []).append((phrase[-1], semantic_id))
        return cls(
            phrases={k: frozenset(v) for k, v in table.items()},
            longest=max((len(k) for k in table), default=0),
            hangul=tuple(sorted(set(hangul))),
            tails={k: tuple(sorted(set(v))) for k, v in tails.items()},
            own=own,
        )

    def spans(self, tokens: tuple[str, ...]) -> list[tuple[int, int, str]]:
        """``(start, end, semantic id)`` of every phrase found in ``tokens``."""
        found: dict[str, tuple[int, int]] = {}

        def keep(semantic_id: str, start: int, end: int) -> None:
            best = found.get(semantic_id)
            if best is None or end - start > best[1] - best[0]:
                found[semantic_id] = (start, end)

        for n in range(1, min(self.longest, len(tokens)) + 1):
            for i in range(len(tokens) - n + 1):
                for semantic_id in self.phrases.get(tokens[i : i + n], ()):
                    keep(semantic_id, i, i + n)
                if n > 1:  # a particle on the last word: 체적 탄성률을
                    for word, semantic_id in self.tails.get(tokens[i : i + n - 1], ()):
                        if _particle_after(tokens[i + n - 1], word):
                            keep(semantic_id, i, i + n)
        inside: dict[str, tuple[int, str]] = {}  # semantic id -> (token, word) matched in it
        for word, semantic_id in self.hangul:
            if semantic_id in found:
                continue
            for i, token in enumerate(tokens):
                if word in token:
                    found[semantic_id] = (i, i + 1)
                    inside[semantic_id] = (i, word)
                    break
                # written with a space at a word's start: 체적탄성률 in "체적 탄성률은"
                after = tokens[i + 1] if i + 1 < len(tokens) else ""
                if (
                    _hangul(token)
                    and _hangul(after)
                    and len(token) < len(word)
                    and word.startswith(token)
                    and after.startswith(word[len(token) :])
                ):
                    found[semantic_id] = (i, i + 2)
                    break
        # a word inside a longer word matched in the same query word names no field of its
        # own: 체적탄성률 is the bulk modulus, not also the volume (체적)
        words = {  # every one-word match: its query word and the word it matched there
            sid: inside.get(sid, (s, tokens[s])) for sid, (s, e) in found.items() if e == s + 1
        }
        for semantic_id, (i, word) in inside.items():
            if any(
                j == i and word != longer and word in longer
                for other, (j, longer) in words.items()
                if other != semantic_id
            ):
                del found[semantic_id]
        return [(s, e, sid) for sid, (s, e) in found.items()]


def resolve_fields(
    query: str, snapshot: RegistrySnapshot, *, fields: Sequence[str] = (), refused: bool = True
) -> tuple[list[str], list[str]]:
    """``(semantic ids, warnings)`` the request needs: ``fields`` where given (each warned
    about where no route provides it), else those ``query`` names, longest matches first.

    With ``refused=False`` (the planner's reading) a field the request names only in a clause
    that says not to ("체적 탄성률 말고 전단 탄성률만", "band gap은 빼고", "but not the shear
    modulus": :class:`~schemarouter.retrieval.clauses.Clauses`) is not needed, and a warning
    says so (trial X4: it was fetched as if asked for); where every field it names is so
    written, none is left out."""
    warnings: list[str] = []
    resolved: list[str] = []
    for name in fields:
        if not snapshot.providers_of(name):
            warnings.append(
                f"requested field {name!r} is not provided by any registered route"
                + _named_ids(name, snapshot)
            )
        resolved.append(name)
    if fields or not query:
        return resolved, warnings
    table = snapshot.derived("planner.phrases", _PhraseTable.of)
    tokens = _norm_tokens(query, split_camel=False)
    spans = table.spans(tokens)
    # keep maximal spans: "bulk modulus" beats "modulus"
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0], s[2]))
    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, str]] = []
    for start, end, semantic_id in spans:
        if any(start >= s and end <= e and (end - start) < (e - s) for s, e in taken):
            continue
        taken.append((start, end))
        chosen.append((start, semantic_id))
    if not refused:
        chosen = _by_own_name(table, tokens, spans, chosen)
        chosen, warnings = _without_refused(query, spans, chosen, warnings)
    return [sid for _, sid in sorted(chosen)], warnings


def _by_own_name(
    table: _PhraseTable,
    tokens: tuple[str, ...],
    spans: Sequence[tuple[int, int, str]],
    chosen: list[tuple[int, str]],
) -> list[tuple[int, str]]:
    """``chosen`` but a field that words name only as one of its aliases where they are the
    very name of another (trial X4: PubChem's ``chemistry.experimental_properties`` lists
    "density" and 밀도 among its aliases, so "GaN의 밀도" needed it beside
    ``structure.density`` and every plan warned that one call leaves it uncovered). Where
    no field has the words as its name, each one they name stays."""
    where = {sid: (start, end) for start, end, sid in spans}
    groups: dict[tuple[int, int], list[str]] = {}
    for _, sid in chosen:
        groups.setdefault(where[sid], []).append(sid)
    dropped: set[str] = set()
    for (start, end), sids in groups.items():
        text = "".join(tokens[start:end])
        named = [
            sid
            for sid in sids
            if any(w == text or (_hangul(w) and w in text) for w in table.own.get(sid, ()))
        ]
        if named:
            dropped.update(sid for sid in sids if sid not in named)
    return [(start, sid) for start, sid in chosen if sid not in dropped]


def _named_ids(text: str, snapshot: RegistrySnapshot) -> str:
    """What a field given as words ("밴드갭", "band gap") names: fields are semantic ids
    (trial X4: ``PlanRequest(fields=("밴드갭",))`` said only that no route provides it)."""
    table = snapshot.derived("planner.phrases", _PhraseTable.of)
    named = sorted({sid for _, _, sid in table.spans(_norm_tokens(text, split_camel=False))})
    if not named:
        return ""
    return (
        f": fields are semantic ids, and {text!r} names {', '.join(map(repr, named[:5]))}; "
        f"pass PlanRequest(fields={tuple(named[:5])!r})"
    )


def _without_refused(
    query: str,
    spans: Sequence[tuple[int, int, str]],
    chosen: list[tuple[int, str]],
    warnings: list[str],
) -> tuple[list[tuple[int, str]], list[str]]:
    """``chosen`` but the fields every mention of which its clause says not to fetch."""
    clauses = clauses_of(query)
    # the query's tokens as :func:`_norm_tokens` reads them, with where each is written
    at = [m.span() for m in _TOKEN.finditer(query.replace("_", " ").replace(".", " "))]
    against = {
        sid
        for sid in {sid for _, sid in chosen}
        if all(
            clauses.against_span(at[start][0], at[end - 1][1])
            for start, end, other in spans
            if other == sid
        )
    }
    if not against or len(against) == len({sid for _, sid in chosen}):
        return chosen, warnings
    said = ", ".join(sorted(against))
    note = f"the request says not to fetch {said}: left out of the fields it needs"
    return [(s, sid) for s, sid in chosen if sid not in against], [*warnings, note]
