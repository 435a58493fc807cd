"""The vectorized BM25 scorer against rank_bm25.BM25Okapi, the reference implementation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from schemarouter.index.documents import route_documents
from schemarouter.index.lexical import BM25Params, LexicalIndex, okapi_idf
from schemarouter.index.tokenize import tokenize

CORPUS = [
    "Get the current weather forecast for a city",
    "Search movies by title and release year",
    "Band gap and elastic modulus of a material by formula",
    "Get stock price for a ticker symbol on a date",
    "weather weather alerts for a region",
    "",
    "Translate text between languages",
    "List the moons of a planet and their orbital period",
]
QUERIES = [
    "weather in paris",
    "movie release date",
    "band gap of silicon",
    "get get price",  # a repeated token counts twice, as in rank_bm25
    "unknown words only",
    "",
]


def _index(docs: list[list[str]], params: BM25Params | None = None) -> LexicalIndex:
    index = LexicalIndex(params)
    index.add(docs)
    index.refresh()
    return index


def _assert_parity(docs: list[list[str]], queries: list[list[str]]) -> None:
    reference = BM25Okapi(docs)
    index = _index(docs)
    for query in queries:
        expected = reference.get_scores(query)
        got = index.scores(query)
        if got is None:  # no known token: rank_bm25 scores every document 0
            assert not np.any(expected)
            continue
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        # Same ranking (ties broken by row in both).
        assert list(np.lexsort((np.arange(len(got)), -got))) == list(
            np.lexsort((np.arange(len(expected)), -expected))
        )


def test_parity_on_an_inline_corpus() -> None:
    docs = [tokenize(d) for d in CORPUS]
    _assert_parity(docs, [tokenize(q) for q in QUERIES])


def test_parity_includes_rank_bm25_floor_for_very_common_terms() -> None:
    # "get" is in 4 of 6 documents: negative idf, replaced by epsilon * mean idf.
    docs = [["get", "a"], ["get", "b"], ["get", "c"], ["get", "d"], ["e"], ["f"]]
    reference = BM25Okapi(docs)
    assert reference.idf["get"] > 0
    _assert_parity(docs, [["get"], ["get", "e"], ["a", "get", "get"]])


def test_zero_floor_differs_only_for_terms_in_more_than_half_the_documents() -> None:
    docs = [["get", "a"], ["get", "b"], ["get", "c"], ["get", "d"], ["e"], ["f"]]
    index = _index(docs, BM25Params(idf_floor="zero"))
    reference = BM25Okapi(docs)
    got = index.scores(["get"])
    assert got is not None and not np.any(got)
    np.testing.assert_allclose(index.scores(["a", "e"]), reference.get_scores(["a", "e"]))
    idf = okapi_idf(np.array([4, 1, 0]), 6, floor="zero")
    assert idf[0] == 0.0 and idf[1] > 0 and idf[2] == 0.0


def test_incremental_add_and_remove_equal_a_rebuild() -> None:
    docs = [tokenize(d) for d in CORPUS]
    index = _index(docs[:3])
    index.add(docs[3:])
    keep = np.array([i % 3 != 1 for i in range(len(docs))])
    index.keep(keep)
    index.refresh()
    kept = [d for d, k in zip(docs, keep, strict=True) if k]
    rebuilt = _index(kept)
    reference = BM25Okapi(kept)
    for query in [tokenize(q) for q in QUERIES[:4]]:
        got, again = index.scores(query), rebuilt.scores(query)
        assert got is not None and again is not None
        np.testing.assert_array_equal(got, again)
        np.testing.assert_allclose(got, reference.get_scores(query), rtol=1e-12)


def test_state_round_trip() -> None:
    docs = [tokenize(d) for d in CORPUS]
    index = _index(docs)
    arrays, terms = index.state()
    again = LexicalIndex.from_state(arrays, terms, BM25Params())
    np.testing.assert_array_equal(index.scores(["weather"]), again.scores(["weather"]))
    arrays["lexical_tf_indices"] = arrays["lexical_tf_indices"] + 10_000
    with pytest.raises(ValueError):
        LexicalIndex.from_state(arrays, terms, BM25Params())


def test_search_returns_only_positive_scores_best_first() -> None:
    index = _index([tokenize(d) for d in CORPUS])
    rows, scores = index.search(tokenize("weather forecast"), 5)
    assert list(rows[:2]) == [0, 4] or list(rows[:2]) == [4, 0]
    assert np.all(scores > 0) and np.all(np.diff(scores) <= 0)
    assert index.search([], 5)[0].size == 0
    assert index.document_frequency("weather") == 2


@pytest.mark.shared_data
def test_parity_on_real_stabletoolbench_documents(shared_data: Path) -> None:
    from schemarouter.training.datasets.shared_data import load_g1, source_routes

    apis, queries = load_g1(shared_data, files=("G1_category",))
    routes, _ = source_routes(apis)
    docs = [tokenize(d.text) for r in routes for d in route_documents(r)]
    assert len(docs) > 1000
    _assert_parity(docs, [tokenize(q) for q, _ in queries[:40]])
