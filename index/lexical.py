"""BM25 over a scipy sparse matrix, with rank-bm25's Okapi scoring.

``rank_bm25.BM25Okapi`` (the package the project depends on) is the reference: it loops in
Python over every document for every query term (about 105 ms per query at 100k documents
here). This module computes the same numbers with one sparse row slice and one sparse
matrix-vector product per query; ``tests/index/test_index_lexical.py`` checks scores and ranking
against ``BM25Okapi`` on real documents.

Scoring (``BM25Okapi`` exactly)::

    idf(t)     = ln(N - df(t) + 0.5) - ln(df(t) + 0.5)
    w(t, d)    = idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
    score(q,d) = sum over query tokens t (repeats counted) of w(t, d)

Terms in more than half of the documents have a negative ``idf``. :class:`BM25Params`
``idf_floor`` says what to do with them:

* ``"okapi"`` (default): rank-bm25's rule, ``idf = epsilon * mean(idf)``, so a very common
  term still counts a little. Parity with ``BM25Okapi`` holds everywhere.
* ``"zero"``: clip to 0 (what ``bm25s`` does): very common terms count nothing. Parity
  with ``BM25Okapi`` holds for every query whose terms are in at most half the documents.

The default is ``"okapi"`` because it is the reference's behaviour, so the vectorized
scorer is a drop-in for the package the user chose; the first
retrieval evaluation found no recall difference between the two on the
StableToolBench and MetaTool catalogs, where no query term is that common.

Incremental updates append or drop rows of the term-count matrix; ``refresh`` then
recomputes document frequencies, ``avgdl`` and the weight matrix in a few vectorized
passes (about 0.2 s for 600k documents), so results always equal a full rebuild.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from scipy import sparse

from schemarouter.index.fusion import top_k

__all__ = ["BM25Params", "LexicalIndex", "okapi_idf", "okapi_term_weights"]


@dataclass(frozen=True)
class BM25Params:
    """BM25 constants; the defaults are rank-bm25's ``BM25Okapi`` defaults."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    idf_floor: Literal["okapi", "zero"] = "okapi"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def okapi_idf(
    df: np.ndarray, n_docs: int, *, epsilon: float = 0.25, floor: str = "okapi"
) -> np.ndarray:
    """Okapi idf per term. Terms with ``df == 0`` get 0 and stay out of the mean."""
    df = np.asarray(df, dtype=np.float64)
    present = df > 0
    idf = np.zeros_like(df)
    idf[present] = np.log(n_docs - df[present] + 0.5) - np.log(df[present] + 0.5)
    negative = present & (idf < 0)
    if floor == "okapi":
        if present.any():
            idf[negative] = epsilon * (idf[present].sum() / present.sum())
    elif floor == "zero":
        idf[negative] = 0.0
    else:
        raise ValueError(f"unknown idf_floor {floor!r} (use 'okapi' or 'zero')")
    return idf


def okapi_term_weights(
    tf: np.ndarray, doc_len: np.ndarray, idf: np.ndarray, *, avgdl: float, k1: float, b: float
) -> np.ndarray:
    """``w(t, d)`` for aligned arrays of term counts, document lengths and term idf."""
    tf = tf.astype(np.float64, copy=False)
    return idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avgdl)))


class LexicalIndex:
    """BM25 over token lists; rows are documents in insertion order (after compaction)."""

    def __init__(self, params: BM25Params | None = None) -> None:
        self.params = params or BM25Params()
        self.terms: list[str] = []
        self.vocab: dict[str, int] = {}
        self._tf = sparse.csr_array((0, 0), dtype=np.int32)
        self._weights: sparse.csr_array | None = None  # term-major: (terms, docs)
        self._idf = np.zeros(0)
        self._df = np.zeros(0, dtype=np.int64)
        self._avgdl = 0.0

    # -- building ----------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self._tf.shape[0])

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    def _term_id(self, token: str) -> int:
        tid = self.vocab.get(token)
        if tid is None:
            tid = len(self.terms)
            self.vocab[token] = tid
            self.terms.append(token)
        return tid

    def add(self, token_lists: Sequence[Sequence[str]]) -> None:
        """Append one row per token list. Call :meth:`refresh` before searching."""
        if not token_lists:
            return
        indptr = np.zeros(len(token_lists) + 1, dtype=np.int64)
        vocab, terms = self.vocab, self.terms
        cols: list[int] = []
        vals: list[int] = []
        for i, tokens in enumerate(token_lists):
            counts = Counter(tokens)
            for token in counts:
                if token not in vocab:  # a new term: the next id (as ``_term_id`` does)
                    vocab[token] = len(terms)
                    terms.append(token)
            cols += map(vocab.__getitem__, counts)
            vals += counts.values()
            indptr[i + 1] = len(cols)
        rows = sparse.csr_array(
            (np.asarray(vals, dtype=np.int32), np.asarray(cols, dtype=np.int32), indptr),
            shape=(len(token_lists), self.n_terms),
        )
        old = self._tf
        if old.shape[0] == 0:
            self._tf = rows
        else:
            old = sparse.csr_array(
                (old.data, old.indices, old.indptr), shape=(old.shape[0], self.n_terms)
            )
            self._tf = sparse.vstack([old, rows], format="csr", dtype=np.int32)
        self._weights = None

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the rows where ``mask`` is true (document removal)."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (len(self),):
            raise ValueError(f"mask has shape {mask.shape}, expected ({len(self)},)")
        if not mask.all():
            self._tf = self._tf[np.flatnonzero(mask)]
            self._weights = None

    def refresh(self) -> None:
        """Recompute df, idf, avgdl and the weight matrix from the term counts."""
        tf = self._tf
        n_docs, n_terms = tf.shape[0], self.n_terms
        if tf.shape[1] != n_terms:
            tf = sparse.csr_array((tf.data, tf.indices, tf.indptr), shape=(n_docs, n_terms))
            self._tf = tf
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        doc_len = np.bincount(rows, weights=tf.data, minlength=n_docs).astype(np.float64)
        df = np.bincount(tf.indices, minlength=n_terms)
        p = self.params
        self._df = df
        self._idf = okapi_idf(df, n_docs, epsilon=p.epsilon, floor=p.idf_floor)
        self._avgdl = float(doc_len.sum() / n_docs) if n_docs else 0.0
        if n_docs == 0 or self._avgdl == 0.0:
            self._weights = sparse.csr_array((n_terms, n_docs), dtype=np.float64)
            return
        data = okapi_term_weights(
            tf.data, doc_len[rows], self._idf[tf.indices], avgdl=self._avgdl, k1=p.k1, b=p.b
        )
        weights = sparse.csr_array((data, tf.indices, tf.indptr), shape=(n_docs, n_terms))
        self._weights = sparse.csr_array(weights.T)  # CSC -> CSR of the transpose

    # -- reading -----------------------------------------------------------------------

    @property
    def idf(self) -> np.ndarray:
        return self._idf

    @property
    def avgdl(self) -> float:
        return self._avgdl

    def document_frequency(self, token: str) -> int:
        """Number of rows that contain ``token``."""
        if self._weights is None:
            self.refresh()
        tid = self.vocab.get(token)
        return 0 if tid is None else int(self._df[tid])

    def terms_of(self, rows: Iterable[int]) -> frozenset[str]:
        """The distinct terms of the documents ``rows`` (the tokens they were added with)."""
        indptr, indices, terms = self._tf.indptr, self._tf.indices, self.terms
        found: set[str] = set()
        for row in rows:
            found.update(map(terms.__getitem__, indices[indptr[row] : indptr[row + 1]].tolist()))
        return frozenset(found)

    def scores(self, tokens: Sequence[str]) -> np.ndarray | None:
        """BM25 score of every row for ``tokens``; ``None`` when no token is known."""
        if self._weights is None:
            self.refresh()
        assert self._weights is not None
        counts = Counter(t for t in tokens if t in self.vocab)
        if not counts or len(self) == 0:
            return None
        ids = np.fromiter((self.vocab[t] for t in counts), dtype=np.int64, count=len(counts))
        weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        rows = self._weights[ids]
        return np.asarray(rows.T @ weights, dtype=np.float64)

    def search(self, tokens: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, scores)`` of the ``k`` best rows with a positive score."""
        scores = self.scores(tokens)
        if scores is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        rows = top_k(scores, k, positive=True)
        return rows, scores[rows]

    # -- persistence -------------------------------------------------------------------

    def state(self) -> tuple[dict[str, np.ndarray], list[str]]:
        """Arrays (term counts as CSR parts) and the vocabulary, for :mod:`.store`."""
        tf = self._tf
        arrays = {
            "lexical_tf_data": tf.data.astype(np.int32, copy=False),
            "lexical_tf_indices": tf.indices.astype(np.int32, copy=False),
            "lexical_tf_indptr": tf.indptr.astype(np.int64, copy=False),
        }
        return arrays, list(self.terms)

    @classmethod
    def from_state(
        cls, arrays: dict[str, np.ndarray], terms: list[str], params: BM25Params
    ) -> LexicalIndex:
        """Rebuild from :meth:`state`; raises ``ValueError`` on inconsistent arrays."""
        index = cls(params)
        index.terms = list(terms)
        index.vocab = {t: i for i, t in enumerate(index.terms)}
        if len(index.vocab) != len(index.terms):
            raise ValueError("vocabulary has duplicate terms")
        data = arrays["lexical_tf_data"]
        indices = arrays["lexical_tf_indices"]
        indptr = arrays["lexical_tf_indptr"]
        n_docs = len(indptr) - 1
        if (
            n_docs < 0
            or len(data) != len(indices)
            or indptr[0] != 0
            or indptr[-1] != len(data)
            or np.any(np.diff(indptr) < 0)
            or (len(indices) and (indices.min() < 0 or indices.max() >= len(terms)))
            or (len(data) and data.min() <= 0)
        ):
            raise ValueError("term-count arrays are inconsistent")
        index._tf = sparse.csr_array((data, indices, indptr), shape=(n_docs, len(terms)))
        index.refresh()
        return index
