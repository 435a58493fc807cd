"""Rank fusion and top-k selection: pure functions over numpy arrays.

Every constant of hybrid ranking lives here. The defaults were chosen on the *dev* halves
of StableToolBench G1 and MetaTool by :mod:`schemarouter.index.evaluate`, and reported on
the other halves (see the module docstring there for the figures).

Ranks are 1-based; ``0`` means "not retrieved by this retriever". Scores of routes a
retriever did not retrieve are ignored by both fusions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = [
    "DEFAULT_CANDIDATE_DEPTH",
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_FIELD_HIT_DEPTH",
    "DEFAULT_FUSION",
    "DEFAULT_LEXICAL_WEIGHT",
    "DEFAULT_RRF_K",
    "FusionMethod",
    "ranks_from_scores",
    "reciprocal_rank_fusion",
    "top_k",
    "weighted_fusion",
]

FusionMethod = Literal["rrf", "weighted"]

#: Which fusion ``HybridIndex.search`` uses.
DEFAULT_FUSION: FusionMethod = "rrf"
#: The ``k`` of reciprocal-rank fusion (Cormack et al. 2009 use 60).
DEFAULT_RRF_K = 60.0
#: Weights of the two retrievers (RRF multiplies each reciprocal rank; weighted fusion
#: multiplies each normalized score).
DEFAULT_LEXICAL_WEIGHT = 1.0
DEFAULT_DENSE_WEIGHT = 1.0
#: How many routes each retriever hands to fusion, at least (``max(k, depth)``).
DEFAULT_CANDIDATE_DEPTH = 100
#: A field document "hits" when it ranks this high among field documents in a retriever.
DEFAULT_FIELD_HIT_DEPTH = 50


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


def _normalize(scores: np.ndarray, present: np.ndarray, method: str) -> np.ndarray:
    out = np.zeros(scores.shape, dtype=np.float64)
    if not present.any():
        return out
    values = scores[present]
    if method == "max":
        top = values.max()
        out[present] = values / top if top > 0 else 0.0
    elif method == "minmax":
        low, high = values.min(), values.max()
        out[present] = (values - low) / (high - low) if high > low else 1.0
    else:
        raise ValueError(f"unknown normalization {method!r} (use 'max' or 'minmax')")
    return out


def weighted_fusion(
    scores: Sequence[np.ndarray],
    ranks: Sequence[np.ndarray],
    *,
    weights: Sequence[float] = (DEFAULT_LEXICAL_WEIGHT, DEFAULT_DENSE_WEIGHT),
    normalize: Literal["max", "minmax"] = "minmax",
) -> np.ndarray:
    """``sum_i weights[i] * normalize(scores[i])`` over the items each retriever ranked.

    Scores are normalized per retriever over the items it retrieved (``ranks[i] > 0``), so
    unbounded BM25 scores and cosine similarities share one scale.
    """
    if len(scores) != len(ranks) or len(scores) != len(weights):
        raise ValueError("scores, ranks and weights need the same length")
    fused = np.zeros(np.asarray(scores[0]).shape, dtype=np.float64)
    for weight, score, rank in zip(weights, scores, ranks, strict=True):
        present = np.asarray(rank) > 0
        fused += weight * _normalize(np.asarray(score, np.float64), present, normalize)
    return fused
