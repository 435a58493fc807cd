"""Rank fusion and top-k selection: pure functions over numpy arrays.

Every constant of hybrid ranking lives here (and in :mod:`.settings` for the roll-up).

The weights are chosen for the shipped encoder (``models/encoder``) on the development sets
only (tooltrain's validation split and the bundled catalog's dev split; no evaluation suite),
``schemarouter eval --suite tooltrain|bundled --split dev --fusion-weights L,D``, by mean
nDCG@5 over the two (ties within 0.001 go to mean R@5); the packaged MiniLM (the first
encoder) keeps its own (:data:`MINILM_WEIGHTS`). The figures of both choices:
docs/generalization.md#fusion.

Weighted fusion sees both scores of every candidate (BM25 for all routes, the exact
cosine of each candidate), so a route found by one retriever is never treated as a zero
by the other; RRF only sees ranks. Ranks are 1-based; ``0`` means "not retrieved".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = [
    "DEFAULT_CANDIDATE_DEPTH",
    "DEFAULT_DENSE_NORMALIZE",
    "DEFAULT_DENSE_NORM_FLOOR",
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_FIELD_HIT_DEPTH",
    "DEFAULT_FUSION",
    "DEFAULT_LEXICAL_NORMALIZE",
    "DEFAULT_LEXICAL_WEIGHT",
    "DEFAULT_RRF_K",
    "MINILM_WEIGHTS",
    "UNRANKED",
    "FusionMethod",
    "fused_order",
    "ranks_from_scores",
    "reciprocal_rank_fusion",
    "top_k",
    "weighted_fusion",
]

FusionMethod = Literal["rrf", "weighted"]

#: Which fusion ``HybridIndex.search`` uses.
DEFAULT_FUSION: FusionMethod = "weighted"
#: The ``k`` of reciprocal-rank fusion (Cormack et al. 2009 use 60).
DEFAULT_RRF_K = 60.0
#: Weights of the two retrievers (RRF multiplies each reciprocal rank; weighted fusion
#: multiplies each normalized score).
DEFAULT_LEXICAL_WEIGHT = 0.3
DEFAULT_DENSE_WEIGHT = 0.7
#: The weights chosen for the packaged MiniLM (``OnnxMiniLMEncoder``), the first encoder.
MINILM_WEIGHTS = (0.4, 0.6)
#: Score normalization per retriever in weighted fusion: BM25 is unbounded, so it is
#: divided by the best candidate's score; cosine similarity is already on a fixed scale.
DEFAULT_LEXICAL_NORMALIZE = "max"
DEFAULT_DENSE_NORMALIZE = "max"
#: Dense scores are divided by max(best cosine, this): a dense retriever whose best match
#: is weak (e.g. a Korean query against an English-trained encoder) is not inflated to 1.
DEFAULT_DENSE_NORM_FLOOR = 0.0
#: How many routes each retriever hands to fusion, at least (``max(k, depth)``).
DEFAULT_CANDIDATE_DEPTH = 100
#: A field document "hits" when it ranks this high among field documents in a retriever.
DEFAULT_FIELD_HIT_DEPTH = 50
#: "Not ranked" where the better of two ranks is taken (worse than any real rank).
UNRANKED = 1 << 30


def top_k(scores: np.ndarray, k: int, *, positive: bool = False) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first; ties go to the lower index.

    ``positive=True`` drops scores that are not > 0 (a lexical score of 0 is no match).
    """
    scores = np.asarray(scores)
    if k <= 0 or scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    if positive:
        candidates = np.flatnonzero(scores > 0)
        if candidates.size > k:
            part = np.argpartition(-scores[candidates], k - 1)[:k]
            threshold = scores[candidates[part]].min()
            candidates = candidates[scores[candidates] >= threshold]
    elif scores.size > k:
        part = np.argpartition(-scores, k - 1)[:k]
        threshold = scores[part].min()
        candidates = np.flatnonzero(scores >= threshold)
    else:
        candidates = np.arange(scores.size)
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:k].astype(np.int64)


def fused_order(
    fused: np.ndarray, ranks: tuple[np.ndarray, np.ndarray], ties: np.ndarray
) -> np.ndarray:
    """Candidate positions best first: by fused score, then by the better of the two
    retrievers' ranks (``ranks``, 1-based, ``0`` = not retrieved), then by ``ties``
    (ascending). The one ordering rule of the in-process and the Milvus index."""
    lex_rank, dense_rank = ranks
    best = np.minimum(
        np.where(lex_rank > 0, lex_rank, UNRANKED), np.where(dense_rank > 0, dense_rank, UNRANKED)
    )
    return np.lexsort((ties, best, -fused))


def ranks_from_scores(scores: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """1-based ranks (best = 1, ties by index), ``0`` where ``present`` is false."""
    scores = np.asarray(scores, dtype=np.float64)
    mask = np.ones(scores.shape, dtype=bool) if present is None else np.asarray(present, bool)
    ranks = np.zeros(scores.shape, dtype=np.int64)
    idx = np.flatnonzero(mask)
    order = idx[np.lexsort((idx, -scores[idx]))]
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


def reciprocal_rank_fusion(
    ranks: Sequence[np.ndarray],
    *,
    k: float = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """``sum_i weights[i] / (k + ranks[i])`` over the retrievers that ranked each item."""
    if not ranks:
        raise ValueError("reciprocal_rank_fusion needs at least one ranking")
    weights = [1.0] * len(ranks) if weights is None else list(weights)
    if len(weights) != len(ranks):
        raise ValueError(f"{len(weights)} weights for {len(ranks)} rankings")
    fused = np.zeros(np.asarray(ranks[0]).shape, dtype=np.float64)
    for weight, rank in zip(weights, ranks, strict=True):
        rank = np.asarray(rank)
        hit = rank > 0
        fused[hit] += weight / (k + rank[hit])
    return fused


def _normalize(
    scores: np.ndarray, present: np.ndarray, method: str, floor: float = 0.0
) -> np.ndarray:
    out = np.zeros(scores.shape, dtype=np.float64)
    if not present.any():
        return out
    values = scores[present]
    if method == "max":
        top = max(float(values.max()), floor)
        out[present] = values / top if top > 0 else 0.0
    elif method == "minmax":
        low, high = values.min(), values.max()
        out[present] = (values - low) / (high - low) if high > low else 1.0
    elif method == "none":
        out[present] = values
    else:
        raise ValueError(f"unknown normalization {method!r} (use 'max', 'minmax' or 'none')")
    return out


def weighted_fusion(
    scores: Sequence[np.ndarray],
    ranks: Sequence[np.ndarray],
    *,
    weights: Sequence[float] = (DEFAULT_LEXICAL_WEIGHT, DEFAULT_DENSE_WEIGHT),
    normalize: str | Sequence[str] = "max",
    floors: Sequence[float] | None = None,
) -> np.ndarray:
    """``sum_i weights[i] * normalize_i(scores[i])`` over the items each retriever ranked.

    Scores are normalized per retriever over the items it retrieved (``ranks[i] > 0``):
    ``"max"`` divides by the largest (or by ``floors[i]`` when that is larger, so a
    retriever whose best match is weak is not blown up to 1), ``"minmax"`` rescales to
    [0, 1], ``"none"`` keeps them. ``normalize`` is one method for all, or one per
    retriever.
    """
    if len(scores) != len(ranks) or len(scores) != len(weights):
        raise ValueError("scores, ranks and weights need the same length")
    methods = [normalize] * len(scores) if isinstance(normalize, str) else list(normalize)
    if len(methods) != len(scores):
        raise ValueError("one normalization per retriever")
    floors = [0.0] * len(scores) if floors is None else list(floors)
    fused = np.zeros(np.asarray(scores[0]).shape, dtype=np.float64)
    for weight, score, rank, method, floor in zip(
        weights, scores, ranks, methods, floors, strict=True
    ):
        present = np.asarray(rank) > 0
        fused += weight * _normalize(np.asarray(score, np.float64), present, method, floor)
    return fused
