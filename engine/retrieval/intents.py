"""Multi-intent coverage: a request that asks for several things gets a top k that covers each.

A ranking by the whole request favours whatever its longest part is about: "find the cast
of Dune, then the director's other films" ranks cast routes first and may leave the
filmography route below k. Here the request is split into its parts
(:func:`split_intents`: sentences, then clauses joined by "then", "and also", "as well as"
...), each part re-scores the candidates the whole request found (the index's
``rescore``: BM25 and dense similarity of the part, fused as search fuses them), and
:func:`cover` lifts each part's best candidate into the top k, after the whole request's
best, where the encoder finds it a real match for the part; the rest keeps the whole
request's order.

Only candidates the whole request retrieved can move (nothing new enters), a part must
have enough words to mean something (``min_words``), and a request with one part is left
as it is. Deterministic: no model, no word list of intents.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from schemarouter.index.encoders.dense import similarity_factor
from schemarouter.retrieval.actions import POLITE, is_read_verb, verb_of
from schemarouter.retrieval.said import said_starts
from schemarouter.retrieval.sequence import sequenced

__all__ = [
    "DEFAULT_COVER_WINDOW",
    "DEFAULT_MAX_PARTS",
    "DEFAULT_MIN_SIMILARITY",
    "PartReading",
    "cover",
    "part_bests",
    "part_bests_by_part",
    "part_report",
    "part_scores",
    "past_polite",
    "read_parts",
    "split_intents",
]

#: Candidates of the whole request that its parts may re-score (and lift into the top k).
DEFAULT_COVER_WINDOW = 30
#: Parts beyond this many are merged into the last (each part costs one query encoding).
DEFAULT_MAX_PARTS = 4
#: A part's best route is lifted only if the encoder's cosine to it reaches this. Chosen on
#: the development sets (tooltrain's mixed multi-tool requests and its validation split,
#: hybrid, k=5); the figures: docs/generalization.md#multi-intent-coverage.
DEFAULT_MIN_SIMILARITY = 0.45
#: A part needs this many words (fewer: it joins the part before it).
DEFAULT_MIN_WORDS = 3

#: A sentence ends at "." after anything but a digit ("3.5 kg" and "v2. ..." are not ends) or
#: a dot, and at "?", "!" or ";" after anything ("... of SiO2? What is ...": trial O).
_SENTENCE = re.compile(r"(?<=[^\d\s.]\.)\s+|(?<=[^\s][?!;])\s+|\n+")
#: A word before "." and a capital letter: where it is an id that ends in a digit ("C-1",
#: "SiO2": :func:`_sentences`), the sentence ends there too. Read from a word's start only, so
#: a long word is read once.
_WORD_STOP = re.compile(
    r"(?<!\S)([\w-]+)\.\s+(?=[A-Z]|(?:if|unless|when|whenever|once|provided|in\s+case)\b)"
)


def _sentences(text: str) -> list[str]:
    """``text``'s sentences (:data:`_SENTENCE`), and a sentence that ends at an id written with a
    letter and a final digit before a capital letter ("Delete customer C-1. If order O-1 is
    open, refund it.": read as one, the refund asked on the condition was never planned, nor
    named with its order), or before a condition's word in lower case, as
    :data:`~schemarouter.planning.conditions._SENTENCE_END` reads it ("Refund order O-2. if
    order O-1 shipped, refund it too." sent nothing: review 17); a number alone ("step 2. Then
    ...", "3. Refund") still ends none."""
    out = []
    for sentence in _SENTENCE.split(text):
        start = 0
        for m in _WORD_STOP.finditer(sentence):
            word = m.group(1)
            if word[-1].isdigit() and any(c.isalpha() for c in word):
                out.append(sentence[start : m.end(1) + 1])
                start = m.end()
        out.append(sentence[start:])
    return out


#: Where a connector's leading space may start: at a comma, or at the first space of a run.
#: ``,?\s+`` alone tried every space of a run and ran ``\s+`` to its end from each, time
#: quadratic in the run (trial X3: "refund 1" and 100,000 spaces, over 20 s); a match that
#: starts inside a run also starts at its first space, so the splits are the same.
_LEAD = r"(?:,|(?<![\s,]))\s+"
_CLAUSE = re.compile(
    rf"{_LEAD}(?:and\s+)?(?:then|after that|afterwards|additionally|finally|as well as|"
    rf"그리고|또한|그\s?다음에?|그런\s다음에?|그러고\s나서|이어서)\s+|{_LEAD}and also\s+",
    re.IGNORECASE,
)
#: A Korean clause that ends in the connective -고 ("밴드갭을 알려주고 논문도 찾아줘": tell
#: ... and find ...), and -고 나서 (after). Not before 싶- / 있- / 계- (-고 싶다 "want to",
#: -고 있다 "is doing"), and not nouns that end in 고 (:data:`_KO_GO_NOUNS`), nor a negation
#: (:data:`_KO_NOT`). A match starts only at a word's first syllable, so a long run of
#: Hangul is read once.
_KO_GO = re.compile(r"(?<![\uac00-\ud7a3])([\uac00-\ud7a3]+고(?:\s+나서)?)(?:,\s*|\s+)(?![싶있계])")
#: Nouns ending in 고 that a request may write before a space: stock, advertisement, best,
#: reference, accident, report, warehouse, notice, warning, balance, manuscript ..., freezer
#: and fridge (trial X3: "냉동고 F-1의 온도를 알려주고 ..." was read whole)
_KO_GO_NOUNS = frozenset(
    {
        "재고", "광고", "최고", "참고", "사고", "보고", "창고", "신고", "경고", "잔고",
        "원고", "공고", "예고", "권고", "충고", "수고", "연고", "부고", "탈고", "투고",
        "기고", "상고", "항고", "적재고", "매출고", "냉동고", "냉장고", "금고",
    }
)  # fmt: skip
#: -지 말고 / 않고 ("삭제하지 말고 보관만 해줘": do not delete, only archive) is no clause of
#: its own: cut there, the negated verb was a part of the plan (trial X4).
_KO_NOT = ("말고", "않고")
_COMMA_AND = re.compile(r",\s+and\s+", re.IGNORECASE)
_AND = re.compile(r"(?<!\s)\s+and\s+", re.IGNORECASE)
#: A plain "and" splits only where both sides have this many words ("band gap and formation
#: energy of GaN" is one request for one route).
_AND_WORDS = 5


#: A plain "and" that may join two changes (:func:`_changes`), and what ends where one may be
#: read: a message's "that" or "saying", a colon, a quote opening.
_AND_CHANGE = re.compile(r"(?<!\s)\s+and\s+(?=[A-Za-z])", re.IGNORECASE)
_SAID = re.compile(
    r"\b(?:that|saying|telling|with\s+the\s+message)\b|:|(?<!\w)['\"\u2018\u201c]", re.IGNORECASE
)


def past_polite(words: list[str]) -> list[str]:
    """``words`` from the first that is not one of :data:`~.actions.POLITE` (a clause's verb
    first), in one pass."""
    start = next((i for i, w in enumerate(words) if w.lower() not in POLITE), len(words))
    return words[start:]


#: An article between a verb no table knows and its thing ("Refund the order O-1").
_ARTICLES = frozenset(("the", "a", "an", "this", "that"))


def _change_verb(piece: str) -> str | None:
    """The change ``piece`` opens with (its first word past :data:`~.actions.POLITE`, a write verb),
    where it also names a thing of its own by an id (a word with a digit: "card CD-1",
    "issue 5"; an article may stand before the thing: "Refund the order O-1"); else ``None``."""
    words = past_polite(re.findall(r"[\w-]+", piece))
    if (
        not words
        or is_read_verb(words[0].lower())
        or not any(c.isdigit() for w in words[1:] for c in w)
    ):
        return None
    verb = verb_of(words[0])
    if len(words) == 4 and words[1].lower() in _ARTICLES:
        words = [words[0], *words[2:]]  # "Refund the order O-1" (helper wrongdebit)
    if verb is None and len(words) == 3 and words[0].isalpha() and words[1].isalpha():
        # a verb no table knows, in the imperative before its thing and id: "Refund order
        # O-1 and delete customer C-1" planned the refund only (review 17)
        return words[0].lower() if any(c.isdigit() for c in words[2]) else None
    return verb


def _pronoun_change(piece: str) -> str | None:
    """The change of a piece after the first that opens with a write verb and "it" or "them":
    it does that to the thing before ("acknowledge AL-81 and shelve it for 2 hours" shelved
    nothing, its right side too short for a plain "and" and naming no id: trial 21)."""
    words = past_polite(re.findall(r"[\w-]+", piece))
    if len(words) < 2 or words[1].lower() not in ("it", "them") or not words[0].isalpha():
        return None
    verb = words[0].lower()
    if is_read_verb(verb) or verb.endswith(("ing", "ed")):  # "stop calling and texting it"
        return None
    return verb_of(verb) or verb  # a verb no table knows, as _change_verb reads one


def _changes(text: str) -> list[str]:
    """``text`` split at each plain "and" that joins changes of different verbs, each side
    opening with its verb and naming an id of its own: "Block card CD-1 and notify customer
    CU-3 that their card is blocked" asked the block only, as one part too short on its
    left for a plain "and" (:data:`_AND_WORDS`), where ", then" split it. Only before a
    message, a colon or a quote (:data:`_SAID`): "... that the card is blocked and
    replaced" is what the notification says; and never "search and replace" (no verb of its
    own on each side with an id), "Tom and Jerry" (no verb after), nor the same change twice
    ("block card CD-1 and CD-2": several ids of one change)."""
    said = _SAID.search(text)
    end = said.start() if said is not None else len(text)
    cuts = [m for m in _AND_CHANGE.finditer(text, 0, end)]
    if not cuts:
        return [text]
    bounds = [0, *(x for m in cuts for x in (m.start(), m.end())), len(text)]
    pieces = [text[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    verbs = [
        _change_verb(p) or (i > 0 and _pronoun_change(p)) or None for i, p in enumerate(pieces)
    ]
    if None in verbs or len(set(verbs)) < len(verbs):
        return [text]
    return pieces


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


#: A part that is a verb and a pronoun ("then delete it"), and what it sets it to ("rename it
#: to Summer"): it does that to the thing before.
_PRONOUN_PART = re.compile(
    r"(?:and\s+)?(?:then\s+)?([A-Za-z]+)\s+(?:it|them)(\s+(?:to|as|into)\s+[^\s,;]+"
    r"|(\s+(?:for|by|until)\s+[^,;]+))?\W*",
    re.IGNORECASE,
)


#: Words that end the thing a part before names ("assign WO-1182 to Marco": WO-1182).
_THING_ENDS = frozenset(("to", "for", "by", "as", "into", "from", "with", "until", "at", "on"))


def _pronoun_parts(parts: list[str]) -> list[str]:
    """``parts`` with a part that is a verb and a pronoun given the thing of the part before
    ("Stop application web-metrics, then delete it": "delete application web-metrics"), where
    it joined the part before as too short to mean anything, and the deletion went unplanned
    (trial Z1); "..., then rename it to Summer" keeps its "to Summer" (the tenth review: a
    part of the pronoun alone matched no route closely enough, and the rename went unplanned);
    the part before keeps its own words. Where the words after the part before's verb name
    an id up to a preposition, the thing is those: "assign WO-1182 to Marco then schedule it
    for Friday" schedules "WO-1182", not "WO-1182 to Marco", and only then does a part of a
    verb, "it" and "for", "by" or "until" take it (trial 21; "Fetch them for me!" after a
    sentence naming no id is left as written)."""
    out: list[str] = []
    for part in parts:
        verb = _PRONOUN_PART.fullmatch(part.strip(" ,;"))
        if verb is not None and verb.group(3) and verb.group(1).lower() in POLITE:
            verb = None  # "... and need it for the 3pm demo": no change of the thing before
        before = out[-1].split() if out else []
        if verb is not None and len(before) > 1:
            thing = list(itertools.takewhile(lambda w: w.lower() not in _THING_ENDS, before[1:]))
            if any(c.isdigit() for word in thing for c in word):  # "WO-1182"
                part = f"{verb.group(1)} {' '.join(thing)}{verb.group(2) or ''}"
            elif not verb.group(3):  # as before trial 21: the words after the verb
                part = f"{verb.group(1)} {' '.join(before[1:])}{verb.group(2) or ''}"
        out.append(part)
    return out


def _merge_short(parts: list[str], min_words: int) -> list[str]:
    out: list[str] = []
    for part in parts:
        part = part.strip(" ,;")
        if not part:
            continue
        if out and (_words(part) < min_words or _words(out[-1]) < min_words):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _korean_clauses(text: str, words: int) -> list[str]:
    """``text`` split after each Korean -고 clause (:data:`_KO_GO`) where every piece has
    ``words`` words, else whole. Before, "GaN의 밴드갭을 알려주고 관련 arXiv 논문도 찾아줘"
    was one part: its source (arXiv) held for the band gap too, so every band gap route was
    filtered out and the plan was empty, where the English request split."""
    if text.isascii():
        return [text]
    # never inside a quote: "... 문자로 '재입고 되었습니다' 보내줘" (재입고, a restock) was
    # cut there, its last piece too short, and the whole request read as one part (trial 19)
    quoted = _in_quote(text)
    cuts = [
        m.end(1)
        for m in _KO_GO.finditer(text)
        if m.group(1) not in _KO_GO_NOUNS
        and not m.group(1).endswith(_KO_NOT)
        and not quoted(m.start(1))
    ]
    if not cuts:
        return [text]
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b].strip(" ,") for a, b in itertools.pairwise(bounds)]
    if all(_words(p) >= words for p in pieces):
        return pieces
    return [text]


def _split_if(pattern: re.Pattern[str], text: str, words: int, *, said: bool = False) -> list[str]:
    """``text`` split at ``pattern`` where every piece has ``words`` words, else whole;
    ``said``: never inside a quote nor past where a message starts (:func:`_unsaid_end`)."""
    quoted = _in_quote(text) if said else lambda _: False
    end = _unsaid_end(text) if said else len(text)
    bounds = [0]
    for m in pattern.finditer(text, 0, end):
        if not quoted(m.start()):
            bounds += [m.start(), m.end()]
    bounds.append(len(text))
    pieces = [text[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    if len(pieces) > 1 and all(_words(p) >= words for p in pieces):
        return pieces
    return [text]


#: A quoted span (to its closing quote, or the end where none closes it).
_QUOTED = re.compile(
    r"(?<!\w)(?:'[^']*+'?|\"[^\"]*+\"?|\u2018[^\u2019]*+\u2019?|\u201c[^\u201d]*+\u201d?)"
)


def _in_quote(text: str) -> Callable[[int], bool]:
    """Whether a place of ``text`` is inside a quote (:data:`_QUOTED`), its quotes read once
    and each place looked up by bisection (the spans are apart, in order)."""
    spans = [m.span() for m in _QUOTED.finditer(text)]
    starts = [a for a, _ in spans]

    def inside(at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and at < spans[i][1]

    return inside


def _unsaid_end(text: str) -> int:
    """Where what a message says starts in ``text`` (:func:`.said.said_starts`; after "that"
    after its recipient only where the request opens with a sending verb), else its end: a
    plain "and" after it is the message's ("Notify customer CU-3 that card CD-1 is blocked
    and account AC-1 will be closed soon" sent ``close_account``: review 17)."""
    words = past_polite(re.findall(r"[\w-]+", text[:200]))
    starts = said_starts(text, told=bool(words) and verb_of(words[0]) == "send")
    return starts[0] if starts else len(text)


def split_intents(
    query: str, *, max_parts: int = DEFAULT_MAX_PARTS, min_words: int = DEFAULT_MIN_WORDS
) -> list[str]:
    """The request's parts: sentences, split again at clause connectors ("then", "after
    that", "and also" ..., "after refunding order O-1": :func:`.sequence.sequenced`), at ", and"
    between clauses of ``min_words`` words, at a plain "and" between clauses of five, and at
    one between two changes of their own verbs and ids (:func:`_changes`). One part (the
    request) when there is nothing to split."""
    parts: list[str] = []
    for sentence in _sentences(query.strip()):
        for clause in (c for part in _CLAUSE.split(sentence) for c in sequenced(part)):
            for piece in _split_if(_COMMA_AND, clause, min_words):
                for part in _split_if(_AND, piece, max(min_words, _AND_WORDS), said=True):
                    for change in _changes(part):  # "Block card CD-1 and notify ..."
                        parts.extend(_korean_clauses(change, min_words))
    parts = _merge_short(_pronoun_parts(parts), min_words)
    if len(parts) > max_parts:
        parts = [*parts[: max_parts - 1], " ".join(parts[max_parts - 1 :])]
    return parts or [query]


def cover(
    order: Sequence[str],
    part_scores: Sequence[Sequence[float]],
    *,
    k: int,
    protected: int = 1,
    similarity: Sequence[Sequence[float]] | None = None,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
) -> list[str]:
    """``order`` (route ids, best first) with each part's best route lifted into the top
    ``k``, right after the first ``protected`` routes (the whole request's best, and routes
    the request named) and the routes lifted before it; the rest keeps its order.

    ``part_scores[p][i]`` scores ``order[i]`` for part ``p``; ``similarity[p][i]`` (the
    encoder's cosine, where given) must reach ``min_similarity`` for the part's best to be
    lifted: a part no route really matches ("it's for four people") moves nothing.
    """
    head = list(order[:protected])
    for best in part_bests(order, part_scores, similarity, min_similarity=min_similarity):
        if len(head) >= k:
            break
        if best not in head:
            head.append(best)
    return head + [r for r in order if r not in head]


def part_bests(
    order: Sequence[str],
    part_scores: Sequence[Sequence[float]],
    similarity: Sequence[Sequence[float]] | None = None,
    *,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
) -> list[str]:
    """Each part's best route of ``order`` (as :func:`cover` reads the scores), once each,
    in part order; a part whose best falls short of ``min_similarity`` gives none."""
    found = part_bests_by_part(order, part_scores, similarity, min_similarity=min_similarity)
    return [route_id for _, route_id in found]


def part_bests_by_part(
    order: Sequence[str],
    part_scores: Sequence[Sequence[float]],
    similarity: Sequence[Sequence[float]] | None = None,
    *,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
) -> list[tuple[int, str]]:
    """:func:`part_bests` with the index of the part each route is the best of."""
    out: list[tuple[int, str]] = []
    for p, scores in enumerate(part_scores):
        values = list(scores[: len(order)])
        if not values:
            continue
        best_i = max(range(len(values)), key=values.__getitem__)
        if values[best_i] == float("-inf") or any(order[best_i] == r for _, r in out):
            continue
        if similarity is not None and similarity[p][best_i] < min_similarity:
            continue
        out.append((p, order[best_i]))
    return out


def part_report(
    order: Sequence[str],
    part_scores: Sequence[Sequence[float]],
    similarity: Sequence[Sequence[float]] | None = None,
    *,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
) -> list[tuple[int, str, str]]:
    """``(part index, its best route, why it gives none)`` for every part that has a best
    route: ``why`` is ``""`` for the routes :func:`part_bests_by_part` gives, ``"weak"`` for
    a best under ``min_similarity``, ``"shared"`` for a best an earlier part has already.
    Where a plan leaves a part out, this says which and why."""
    out: list[tuple[int, str, str]] = []
    taken: set[str] = set()
    for p, scores in enumerate(part_scores):
        values = list(scores[: len(order)])
        if not values:
            continue
        best_i = max(range(len(values)), key=values.__getitem__)
        if values[best_i] == float("-inf"):
            continue
        best = order[best_i]
        if best in taken:
            out.append((p, best, "shared"))
        elif similarity is not None and similarity[p][best_i] < min_similarity:
            out.append((p, best, "weak"))
        else:
            taken.add(best)
            out.append((p, best, ""))
    return out


def part_scores(
    index: Any, parts: Sequence[str], route_ids: list[str]
) -> tuple[list[Any], list[Any]]:
    """Each part's fused scores and dense cosines over ``route_ids``
    (``index.rescore_parts``), each cosine on the encoder's own scale: a part the
    cross-lingual bridge reads (Korean) comes out shrunk by the bridge's agreement, as a
    whole request does (``similarity_scale``), and fell under :data:`DEFAULT_MIN_SIMILARITY`
    where its English twin did not ("... arXiv 논문도 찾아줘" was not planned)."""
    rows = [index.rescore_parts(part, route_ids) for part in parts]
    encoder = getattr(index, "encoder", None)
    cosines = []
    for part, (_, cosine) in zip(parts, rows, strict=True):
        factor = similarity_factor(encoder, part)
        cosines.append(cosine if factor == 1.0 else (cosine * factor).clip(max=1.0))
    return [fused for fused, _ in rows], cosines


class PartReading(NamedTuple):
    """What the parts of a multi-part request make of the routes a plan may take."""

    #: ``(part, its best route, why it gives none)``: :func:`part_report`, with the parts' words
    report: list[tuple[str, str, str]]
    #: route id -> part -> the part's fused score of the route (the routes of the window)
    scores: dict[str, dict[str, float]]

    def served_by(self, route_id: str) -> str | None:
        """The part ``route_id`` serves where it is no part's best (a request's best route,
        ranked by the whole text): the part that scores it highest; ``None`` where it is a
        part's best, is not scored, or two parts score it alike."""
        if any(best == route_id and not why for _, best, why in self.report):
            return None
        row = self.scores.get(route_id, {})
        top = max(row.values(), default=float("-inf"))
        parts = [part for part, score in row.items() if score == top]
        return parts[0] if len(parts) == 1 and top != float("-inf") else None


def read_parts(
    order: Sequence[str],
    parts: Sequence[str],
    fused: Sequence[Sequence[float]],
    similarity: Sequence[Sequence[float]] | None = None,
    *,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
) -> PartReading:
    """:func:`part_report` of ``parts`` (their words in place of their indices), and each
    part's fused score of each route of ``order``."""
    found = part_report(order, fused, similarity, min_similarity=min_similarity)
    scores = {
        route_id: {part: float(fused[p][i]) for p, part in enumerate(parts)}
        for i, route_id in enumerate(order)
    }
    return PartReading([(parts[p], route_id, why) for p, route_id, why in found], scores)
