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


def _word_in(text_lower: str, word: str) -> bool:
    if any("\uac00" <= ch <= "\ud7a3" or "\u4e00" <= ch <= "\u9fff" for ch in word):
        return word in text_lower
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text_lower) is not None


def source_constraints(query: str) -> tuple[SourceType, ...]:
    """The kinds of source ``query`` asks for (:data:`SOURCE_WORDS`). A request of several
    parts (:func:`~schemarouter.retrieval.intents.split_intents`) asks for one only where each
    part does: "band gap of GaN, and also find recent arXiv preprints about it" asks for
    literature in its second part alone, and read whole it left every route of the first
    part's calculated data out of retrieval and its plan empty."""
    found: list[tuple[SourceType, ...]] = []
    for part in split_intents(query):
        lower = part.lower()
        found.append(
            tuple(s for s, words in SOURCE_WORDS.items() if any(_word_in(lower, w) for w in words))
        )
    return tuple(s for s in found[0] if all(s in other for other in found[1:]))
