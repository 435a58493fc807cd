"""The kinds of source a request asks for ("measured", "DFT", "preprints", "실험"): what
retrieval filters routes by and a plan keeps to, read per part of the request."""

from __future__ import annotations

import re
from collections.abc import Mapping

from schemarouter.contracts import SourceType
from schemarouter.retrieval.intents import split_intents

__all__ = ["SOURCE_WORDS", "source_constraints"]

#: Words that constrain provenance, per source type. Lower-case; matched as whole words
#: (Latin) or substrings (Hangul).
SOURCE_WORDS: Mapping[SourceType, tuple[str, ...]] = {
    SourceType.EXPERIMENTAL: (
        "measured",
        "measurement",
        "measurements",
        "experimental",
        "experimentally",
        "experiment",
        "experiments",
        "observed",
        "empirical",
        "lab-measured",
        "실험",
        "측정",
        "실측",
    ),
    SourceType.CALCULATED: (
        "dft",
        "calculated",
        "computed",
        "computational",
        "simulated",
        "simulation",
        "first-principles",
        "ab initio",
        "predicted",
        "theoretical",
        "계산",
        "시뮬레이션",
        "제일원리",
    ),
    SourceType.LITERATURE: (
        "literature",
        "published",
        "publication",
        "publications",
        "paper",
        "papers",
        "article",
        "articles",
        "preprint",
        "preprints",
        "journal",
        "문헌",
        "논문",
        "출판",
    ),
    SourceType.BUSINESS: ("disclosure", "filing", "filings", "공시", "사업보고서"),
}


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One search for any of ``words``: a Latin word whole (no letter, digit, ``_`` or ``-``
    on either side), a Hangul or CJK word anywhere."""
    cjk = [
        w for w in words if any("\uac00" <= c <= "\ud7a3" or "\u4e00" <= c <= "\u9fff" for c in w)
    ]
    latin = [re.escape(w) for w in words if w not in cjk]
    branches = [rf"(?<![\w-])(?:{'|'.join(latin)})(?![\w-])"] if latin else []
    return re.compile("|".join([*branches, *map(re.escape, cjk)]))


#: One compiled search per source type (a request's parts are each searched once per type).
_PATTERNS = {source: _pattern(words) for source, words in SOURCE_WORDS.items()}


def source_constraints(query: str) -> tuple[SourceType, ...]:
    """The kinds of source ``query`` asks for (:data:`SOURCE_WORDS`). A request of several
    parts (:func:`~schemarouter.retrieval.intents.split_intents`) asks for one only where each
    part does: "band gap of GaN, and also find recent arXiv preprints about it" asks for
    literature in its second part alone, and read whole it left every route of the first
    part's calculated data out of retrieval and its plan empty."""
    found: list[tuple[SourceType, ...]] = []
    for part in split_intents(query):
        lower = part.lower()
        found.append(tuple(s for s, pattern in _PATTERNS.items() if pattern.search(lower)))
    return tuple(s for s in found[0] if all(s in other for other in found[1:]))
