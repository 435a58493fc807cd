"""The lexical tokenizer shared by documents and queries.

Rules, in order:

1. Unicode NFKC (full-width letters and digits fold to ASCII, ligatures split).
2. ``camelCase`` / ``PascalCase`` / ``HTTPServer`` boundaries, ``snake_case``, ``kebab-case``,
   dots, slashes and every other punctuation split words; letters and digits split
   (``v2`` -> ``v 2``, ``mp-149`` -> ``mp 149``).
3. Lowercase (``str.casefold``).
4. Scripts written without spaces between words are cut into overlapping character
   bigrams: Chinese Han, Japanese kana and Korean Hangul (``날씨를`` -> ``날씨 씨를``, so the
   query word ``날씨`` matches whatever particle follows it in the catalog). A run of one
   character is kept as a unigram. Other scripts (Cyrillic, Greek, Arabic, ...) keep their
   space-separated words.
5. Optionally drop a short list of English stopwords and strip plural ``s`` (see
   :class:`TokenizerSettings`; the defaults were chosen on the dev splits of G1, MetaTool
   and the bundled queries when the index was first built).

A text made only of punctuation or stopwords gives no tokens, and an empty token list
matches nothing (the lexical scorer returns no hits), never everything.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from schemarouter.index.gloss import gloss_tokens
from schemarouter.safety.forksafe import cached

__all__ = [
    "DEFAULT_TOKENIZER",
    "STOPWORDS",
    "QueryText",
    "TokenizerSettings",
    "is_cjk",
    "request_tokens",
    "tokenize",
]

#: Function words that carry no routing signal. Kept short on purpose: ``get``, ``list``,
#: ``search``, ``find`` and question words are *not* here, they say what a route does.
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "as",
        "into",
        "onto",
        "about",
        "over",
        "under",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "will",
        "shall",
        "should",
        "can",
        "could",
        "might",
        "must",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "then",
        "than",
        "so",
        "such",
        "very",
        "also",
        "just",
        "please",
        "want",
        "need",
        "like",
        "would",
        "some",
        "any",
        "all",
        "each",
        "every",
        "no",
        "not",
        "only",
        "own",
        "same",
        "too",
        "s",
        "t",
    )
)

# Word characters that are not "_" (which is punctuation here), as runs.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# camelCase boundaries: "getUser" -> "get User", "HTTPServer" -> "HTTP Server".
_CAMEL_LOWER_UPPER = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CAMEL_ACRONYM = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
# Letter / digit boundaries.
_DIGIT_BOUNDARY = re.compile(r"(?<=\d)(?=\D)|(?<=\D)(?=\d)")


def is_cjk(char: str) -> bool:
    """True for characters of scripts written without spaces (Han, kana, Hangul)."""
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x20000 <= code <= 0x2FA1F  # extensions B-F, compatibility supplement
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0x31F0 <= code <= 0x31FF  # katakana phonetic extensions
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0x1100 <= code <= 0x11FF  # Hangul jamo
        or 0x3130 <= code <= 0x318F  # Hangul compatibility jamo
    )


@dataclass(frozen=True)
class TokenizerSettings:
    """How text becomes tokens. Documents and queries must use the same settings."""

    stopwords: bool = True
    #: Strip English plurals (``movies`` -> ``movie``, ``addresses`` -> ``address``).
    stem_plurals: bool = True
    #: Tokens longer than this are cut (base64 blobs and hashes in descriptions).
    max_token_length: int = 40

    def as_dict(self) -> dict[str, object]:
        return {
            "stopwords": self.stopwords,
            "stem_plurals": self.stem_plurals,
            "max_token_length": self.max_token_length,
        }


DEFAULT_TOKENIZER = TokenizerSettings()


def _stem_plural(token: str) -> str:
    """Harman's "S" stemmer, restricted to ASCII words longer than three letters."""
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    if token.endswith("ies") and not token.endswith(("eies", "aies")):
        return token[:-3] + "y"
    if token.endswith("ie"):  # movie / movies, cookie / cookies both end in "y"
        return token[:-2] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if token.endswith("es") and not token.endswith(("aes", "ees", "oes")):
        return token[:-1]
    if token.endswith("s") and not token.endswith(("us", "ss", "is")):
        return token[:-1]
    return token


def _cjk_grams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _split_scripts(word: str) -> list[tuple[bool, str]]:
    """Cut ``word`` into runs of CJK and non-CJK characters: ``[(is_cjk, run), ...]``."""
    runs: list[tuple[bool, str]] = []
    start = 0
    current = is_cjk(word[0])
    for i in range(1, len(word)):
        flag = is_cjk(word[i])
        if flag != current:
            runs.append((current, word[start:i]))
            start, current = i, flag
    runs.append((current, word[start:]))
    return runs


def _word_tokens(word: str, settings: TokenizerSettings) -> tuple[str, ...]:
    out: list[str] = []
    for cjk, run in _split_scripts(word) if not word.isascii() else [(False, word)]:
        if cjk:
            out.extend(_cjk_grams(run))
            continue
        run = _CAMEL_ACRONYM.sub(" ", _CAMEL_LOWER_UPPER.sub(" ", run))
        for part in _DIGIT_BOUNDARY.sub(" ", run).split():
            token = part.casefold()[: settings.max_token_length]
            if settings.stopwords and token in STOPWORDS:
                continue
            if settings.stem_plurals:
                token = _stem_plural(token)
            out.append(token)
    return tuple(out)


def tokenize(text: str, settings: TokenizerSettings = DEFAULT_TOKENIZER) -> list[str]:
    """Tokens of ``text`` (see the module docstring for the rules). Never raises on text."""
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text)
    word_tokens = _word_tokenizer(settings)
    tokens: list[str] = []
    for word in _WORD.findall(text):
        tokens.extend(word_tokens(word))
    return tokens


@dataclass(frozen=True, eq=False)
class QueryText:
    """A request's text and its tokens, tokenized once.

    The router makes one per request (``Ranker.rank``) and hands it to every reader of the
    request's words: the index's BM25 search and known-word share
    (:meth:`~schemarouter.index.backend.RouteIndex.search`,
    :meth:`~schemarouter.index.backend.RouteIndex.known_token_share`) and the word coverage
    of each candidate (:func:`schemarouter.retrieval.candidates.coverage`). ``tokens`` are the
    text's :func:`request_tokens` under ``settings`` (a Korean request's carry the English
    words of its Korean ones); a reader with other settings gets its own
    (:meth:`tokens_for`, tokenized again: a different tokenizer, different tokens).
    """

    text: str
    tokens: tuple[str, ...]
    settings: TokenizerSettings = DEFAULT_TOKENIZER

    @classmethod
    def of(
        cls, query: str | QueryText, settings: TokenizerSettings = DEFAULT_TOKENIZER
    ) -> QueryText:
        """``query`` as it is where it already is one, else its text tokenized once."""
        if isinstance(query, QueryText):
            return query
        return cls(query, tuple(request_tokens(query, settings)), settings)

    def tokens_for(self, settings: TokenizerSettings) -> tuple[str, ...]:
        """The text's tokens under ``settings`` (the ones held where they are these)."""
        if settings == self.settings:
            return self.tokens
        return tuple(request_tokens(self.text, settings))

    @cached  # no lock a fork could copy held (functools' takes one in Python 3.11)
    def words(self) -> frozenset[str]:
        """The distinct content words under :data:`DEFAULT_TOKENIZER` (word coverage)."""
        return frozenset(self.tokens_for(DEFAULT_TOKENIZER))


def request_tokens(text: str, settings: TokenizerSettings = DEFAULT_TOKENIZER) -> list[str]:
    """A request's tokens: :func:`tokenize`'s, then those of the English words its Korean
    words stand for (:func:`schemarouter.index.gloss.gloss_tokens`), so a Korean request
    meets an English catalog in the lexical channel too. Documents are never glossed."""
    tokens = tokenize(text, settings)
    extra = gloss_tokens(text)
    return tokens + tokenize(" ".join(extra), settings) if extra else tokens


@lru_cache(maxsize=16)
def _word_tokenizer(settings: TokenizerSettings) -> Callable[[str], tuple[str, ...]]:
    """:func:`_word_tokens` for one ``settings``, with a cache of its own keyed by the word
    alone (hashing the settings for every word was a fifth of an index build's time)."""

    @lru_cache(maxsize=65536)
    def word_tokens(word: str) -> tuple[str, ...]:
        return _word_tokens(word, settings)

    return word_tokens
