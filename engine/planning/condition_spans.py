"""Where a request states a condition (:func:`condition_spans`): the words of
:mod:`.conditions`, read apart from its planning so that a module the planner imports may ask
whether a request states one (:mod:`.repeated_parts`: "Refund order O-2. if order O-1
shipped, refund it too" holds the second refund, and no rule plans it twice)."""

from __future__ import annotations

import re

from schemarouter.planning.refusals import QUOTED
from schemarouter.retrieval.sequence import korean_afters

__all__ = ["condition_span", "condition_spans"]

#: An English condition, to the end of its clause: "unless it shipped", "only if it is open",
#: "once order O-1 is refunded"; not a courtesy ("if possible", "if you can", "if any", "when
#: you get a chance", "when convenient", "unless told otherwise"), not "at once" / "once
#: more", not what a report or a check asks ("let me know when ...", "check if ..."), nor
#: "when" that asks ("When was order O-1 created?": before an auxiliary, in a clause that
#: ends with "?"), nor what says the change is made whatever holds ("even if it shipped", "no
#: matter if ...", "just in case", an "in case" that ends its clause). "After" with a state
#: of a thing ("after order O-1 is refunded", "after it has shipped"): not "after you refund
#: ...", nor "after refunding ..." (parts asked), nor after a participle, which says which
#: things ("the orders created after O-1 was ...").
_ENGLISH = re.compile(
    r"(?<!\bknow\s)(?<!\bme\s)(?<!\bus\s)(?<!\bcheck\s)(?<!\bsee\s)(?<!\bask\s)"
    r"(?<!\bverify\s)(?<!\bsay\s)(?<!\bat\s)(?<!\ball\s)(?<!\beven\s)(?<!\bmatter\s)"
    r"\b(?:only\s+if|if|unless|when(?:ever)?(?!\s+(?:is|are|was|were|do|does|did|will|would|can"
    r"|could|should|has|have|had)\b[^.;!?]{0,200}\?)|provided(?:\s+that)?|as\s+long\s+as"
    r"|(?<!\bjust\s)in\s+case(?!\s*(?:[,.;:!?]|$))"
    r"|as\s+soon\s+as|once(?=\s+(?!more\b|again\b|a\b|an\b|per\b|every\b|each\b|daily\b|or\b"
    r"|and\b|only\b|already\b)[\w'-]+\s+\w)"
    r"|(?<!ed\s)after(?=\s+(?!(?:you|we|i|they)\b)(?![a-z]+ing\b)(?:[\w'-]+\s+){1,4}?"
    r"(?:is|are|was|were|has|have|had|gets?|got|becomes?|been)\b))"
    r"\b(?!\s+(?:possible|any|applicable|convenient|you\s+(?:can|could|please)|you\s+don'?t\s+mind"
    r"|you\s+(?:get|have|find)\s+(?:a\s+)?(?:chance|moment|minute|second|sec|time)"
    r"|you(?:'re|\s+are)\s+(?:free|able)|it(?:'s|\s+is)\s+convenient|otherwise"
    r"|(?:told|instructed|advised)\s+otherwise|(?:i|we)\s+(?:say|tell\s+you)\s+otherwise"
    r"|you\s+hear\s+otherwise)\b)"
    r"[^,.;:!?]*",
    re.I,
)
#: A Korean condition: a verb's -면 ("열려 있으면", "배송되지 않았으면", "필요하면") or a noun's
#: with the copula ("대기 중이면", "휴면 계정이면"), with the word before it, or "... 경우(에만)"
#: ("배송되지 않은 경우에만"), or "되고 나서" (once it is ...); not "-면 안 돼", which forbids, a
#: courtesy ("가능하면", "괜찮으면"), nor a report ("완료되면 알려줘"). A Korean "after" that
#: states one ("환불된 후에"): :func:`.sequence.korean_afters`. Each match starts at a word (the
#: leftmost one always did): started inside a word, ``\S+`` read it to its end from every
#: letter, and a word of 10,000 letters took 4 s (thirteenth security review).
_KOREAN = re.compile(
    r"(?<!\S)(?:\S+\s+)?(?<!\S)(?!가능하면|괜찮으면|좋으면)\S*"
    r"(?:있으면|없으면|으면|되면|하면|라면|다면|않으면|이면)"
    r"(?=[\s.,;:!?]|$)(?!\s*안\s*[돼되됩])(?!\s*(?:바로\s*)?알려)"
    r"|(?<!\S)(?:\S+\s+)?\S+\s+경우(?:에만|에는|에)?|(?<!\S)(?:\S+\s+)?\S*되고\s*나(?:서|면)(?=\s|$)"
)
#: A Korean word that is a condition's subject ("O-1이", "티켓이"), and one with a particle
#: of its own (not the bare thing word before a subject: "주문 O-1이").
#: "As agreed" (a participle after "as") before a "when" of the past, which says when it was
#: agreed ("Refund order O-1 as agreed when we spoke", "as you requested when you called"):
#: that "when" is no condition ("as requested when it is delivered" is one).
_AS_AGREED = re.compile(r"\bas\s+(?:\w+\s+)?\w+(?:ed|en)\s+$", re.I)
_PAST = re.compile(
    r"when\s+(?:(?!(?:is|are|am|be|been|gets?|will|has|have)\b|[\w-]+['’](?:s|re|ll|m|ve)\b)"
    r"[\w'’-]+\s+){0,2}?"
    r"(?:was|were|did|had|agreed|spoke|said|told|met|wrote|came|left|sent|paid|bought|took"
    r"|made|gave|got|rang|saw|\w+(?<!e)ed)\b",
    re.I,
)
_KO_SUBJECT = re.compile(r"\S+(?:이|가)$")
_KO_PARTICLE = re.compile(r"(?:은|는|을|를|이|가|에|의|도|로|와|과|고|서|면|며)$")
_CLAUSE_START = re.compile(r"[,.;:!?]\s*")


def condition_span(query: str) -> tuple[int, int] | None:
    """Where ``query`` first states a condition (:func:`condition_spans`); ``None`` where it
    states none."""
    spans = condition_spans(query)
    return spans[0] if spans else None


def condition_spans(query: str) -> list[tuple[int, int]]:
    """Where ``query`` states conditions (module docstring), outside quoted text, in written
    order: an English one from its word to its clause's end, a Korean one from its subject
    (and the thing word before it: "주문 O-1이 환불되면") to its -면, 경우 or 후에."""
    text = QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    spans = [
        (m.start(), m.end())
        for m in _ENGLISH.finditer(text)
        if not (
            _PAST.match(m.group()) and _AS_AGREED.search(text, max(0, m.start() - 40), m.start())
        )
    ]
    if not text.isascii():
        found = [(m.start(), m.end()) for m in _KOREAN.finditer(text)]
        found += [(at, end) for _, at, end, condition in korean_afters(text) if condition]
        spans += [_korean_subject(text, start, end) for start, end in found]
    return sorted(set(spans))


def _korean_subject(text: str, at: int, end: int) -> tuple[int, int]:
    """The Korean condition ending at ``end`` from its subject, back from ``at``."""
    start = max((m.end() for m in _CLAUSE_START.finditer(text, 0, at)), default=0)
    words = list(re.finditer(r"\S+", text[start:at]))
    begin = at
    for i in range(len(words) - 1, -1, -1):  # back to the condition's subject
        if _KO_SUBJECT.search(words[i].group()):
            begin = start + words[i].start()
            if i > 0 and not _KO_PARTICLE.search(words[i - 1].group()):
                begin = start + words[i - 1].start()
            break
    return begin, end
