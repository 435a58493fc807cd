"""A request is tokenized once per retrieve (:class:`~schemarouter.index.tokenize.QueryText`),
and word coverage reads the route words the index holds."""

from __future__ import annotations

import hashlib
import importlib
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.index.documents import route_documents
from schemarouter.index.settings import IndexSettings
from schemarouter.index.tokenize import DEFAULT_TOKENIZER, QueryText, TokenizerSettings, tokenize
from schemarouter.retrieval import candidates
from schemarouter.retrieval.abstention import AbstentionModel
from schemarouter.retrieval.candidates import coverage, query_tokens
from schemarouter.retrieval.learned import RankingModel

from helpers import BUNDLED_CATALOG

QUERY = "band gap of gallium nitride"


class CharEncoder:
    """Hashed character trigrams: an encoder that never calls the project tokenizer, so every
    tokenization seen during a retrieve is the router's own."""

    identity = "test-char-trigrams:dim=64"
    dim = 64

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            low = f"  {text.lower()}  "
            for i in range(len(low) - 2):
                digest = hashlib.blake2b(low[i : i + 3].encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
        return out


def _router(**kwargs: Any) -> SchemaRouter:
    router = SchemaRouter(encoder=CharEncoder(), embedding_cache=None, reranker=None, **kwargs)
    router.add_catalog(BUNDLED_CATALOG)
    return router


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    # the shipped abstention model everywhere (relevance reads coverage) and the learned
    # ranking stage (its window signals read coverage): every reader of the words is on
    model, ranking = AbstentionModel.shipped(), RankingModel.shipped()
    if model is None or ranking is None:
        pytest.skip("the shipped abstention and ranking models are not in this checkout")
    return _router(abstention=model, ranking=ranking)


def _words(route: Any) -> frozenset[str]:
    return frozenset(t for doc in route_documents(route) for t in tokenize(doc.text))


def test_a_request_is_tokenized_once_per_retrieve(
    router: SchemaRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    router.retrieve(QUERY, k=5)  # the index built and the models loaded before counting
    seen: list[str] = []

    class Recorder:
        @staticmethod
        def normalize(form: Any, text: str) -> str:
            seen.append(text)
            return unicodedata.normalize(form, text)

    # the module (``schemarouter.index.tokenize`` the attribute is the function)
    module = importlib.import_module("schemarouter.index.tokenize")
    monkeypatch.setattr(module, "unicodedata", Recorder)
    # no route's words kept yet: coverage reads them from the index, tokenizing nothing
    monkeypatch.setattr(candidates, "_route_tokens", OrderedDict())
    found = router.retrieve(QUERY, k=5, rerank=False)
    monkeypatch.undo()
    scores = found.candidates[0].scores
    assert "relevance" in scores and "ranking" in scores  # coverage was read, twice
    assert found.signals["known_word_share"] > 0
    assert seen == [QUERY]
    assert len(candidates._route_tokens) >= 5  # the relevance window's routes, from the index


def test_query_text_reads_the_same_tokens_as_the_tokenizer() -> None:
    text = QueryText.of("Band gaps of the GaN films")
    assert text.tokens == tuple(tokenize(text.text))
    assert QueryText.of(text) is text
    assert text.words == query_tokens(text.text) == frozenset(tokenize(text.text))
    other = TokenizerSettings(stopwords=False, stem_plurals=False)
    assert text.tokens_for(other) == tuple(tokenize(text.text, other))
    assert text.tokens_for(DEFAULT_TOKENIZER) is text.tokens


def test_the_index_holds_the_words_coverage_reads(router: SchemaRouter) -> None:
    routes = list(router.snapshot().routes.values())
    index = router.index
    assert all(index.route_words(route) == _words(route) for route in routes)
    words = frozenset(tokenize(QUERY))
    for route in routes:
        assert coverage(words, route, index=index) == coverage(words, route)
    # another version of a route, or other tokenizer settings: the index has no answer
    changed = routes[0].model_copy(update={"fingerprint": "0" * 64})
    assert index.route_words(changed) is None
    settings = replace(IndexSettings(), tokenizer=TokenizerSettings(stem_plurals=False))
    other = _router(abstention=None, index_settings=settings)
    assert other.index.route_words(routes[0]) is None


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("band gap of ＧａＮ", "band gap of GaN"),
        ("ＢＡＮＤ　ＧＡＰ of gallium nitride", "BAND GAP of gallium nitride"),
        ("ＧａＮ의 밴드갭", "GaN의 밴드갭"),
    ],
)
def test_full_width_letters_read_as_the_ascii_ones(typed: str, meant: str) -> None:
    """A Korean, Japanese or Chinese input method in full-width mode types "ＧａＮ": BM25's
    tokens were folded to ASCII (NFKC) but the encoder read another text, so the ranking
    and the scores moved (the bundled catalog on the shipped encoder: NOMAD first at 0.996
    where "GaN" ranks Materials Project first at 0.927). The request is read as ASCII."""
    router = _router(abstention=None)
    got, want = router.retrieve(typed, k=5), router.retrieve(meant, k=5)
    assert got.query == meant
    assert [(c.route_id, c.score) for c in got.candidates] == [
        (c.route_id, c.score) for c in want.candidates
    ]
