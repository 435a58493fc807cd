"""The learned ranking stage's features: cheap signals of each candidate in the fused window.

One row per candidate, computed from what retrieval already has (the channels' scores, each
part's scores for a request of several parts, the candidates' providers, what the request and
each route do) plus the endpoint document's own cosine, which tells a route matched by its
own text from one lifted by a field document it shares with its siblings. A pure function of
arrays: the trainer (:mod:`schemarouter.training.ranking`) and the router compute the very
same rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FEATURES", "WindowSignals", "window_features"]

#: Column names, in order (a model's card lists the ones it was trained on).
FEATURES: tuple[str, ...] = (
    "fused",
    "fused_rel",
    "rank",
    "lexical_rel",
    "lexical_rank",
    "dense",
    "dense_gap",
    "dense_rank",
    "endpoint_cos",
    "endpoint_minus_dense",
    "field_hits",
    "coverage",
    "parts",
    "part_cos",
    "part_rank",
    "part_best",
    "provider_rel",
    "provider_count",
    "provider_rank",
    "action_mismatch",
    "action_match",
    "action_unknown",
    "query_words",
)
#: The provider counts read this many of the best candidates.
PROVIDER_WINDOW = 20


@dataclass(frozen=True)
class WindowSignals:
    """What retrieval knows of the fused window, best first (all arrays of one length)."""

    fused: np.ndarray
    lexical: np.ndarray
    dense: np.ndarray
    #: the cosine of each route's endpoint document alone (no field roll-up)
    endpoint: np.ndarray
    field_hits: np.ndarray
    coverage: np.ndarray
    providers: Sequence[str]
    #: what each route does ("read", "write" or None) and what the request asks
    route_actions: Sequence[str | None]
    request_action: str | None
    query_words: int
    #: parts x candidates: each part's fused score and cosine (None: a one-part request)
    part_fused: np.ndarray | None = None
    part_cos: np.ndarray | None = None


def _ranks(values: np.ndarray) -> np.ndarray:
    """0-based ranks, best (largest) first, ties in list order."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(values.size)
    ranks[order] = np.arange(values.size)
    return ranks


def window_features(s: WindowSignals) -> np.ndarray:
    """``candidates x len(FEATURES)`` rows for the window described by ``s``."""
    n = s.fused.size
    X = np.zeros((n, len(FEATURES)))
    if n == 0:
        return X
    fused = np.asarray(s.fused, dtype=np.float64)
    lexical = np.asarray(s.lexical, dtype=np.float64)
    dense = np.asarray(s.dense, dtype=np.float64)
    endpoint = np.asarray(s.endpoint, dtype=np.float64)
    top = max(float(fused.max()), 1e-9)
    order = np.arange(n, dtype=np.float64)
    X[:, 0] = fused
    X[:, 1] = fused / top
    X[:, 2] = np.log1p(order)
    X[:, 3] = lexical / max(float(lexical.max()), 1e-9)
    X[:, 4] = np.log1p(_ranks(lexical))
    X[:, 5] = dense
    X[:, 6] = dense - dense.max()
    X[:, 7] = np.log1p(_ranks(dense))
    X[:, 8] = endpoint
    X[:, 9] = endpoint - dense
    X[:, 10] = np.minimum(np.asarray(s.field_hits, dtype=np.float64), 5.0)
    X[:, 11] = np.asarray(s.coverage, dtype=np.float64)
    if s.part_fused is not None and s.part_cos is not None and len(s.part_fused) >= 2:
        parts = len(s.part_fused)
        X[:, 12] = min(parts, 4)
        X[:, 13] = np.asarray(s.part_cos, dtype=np.float64).max(axis=0)
        ranks = np.stack([_ranks(np.asarray(p, dtype=np.float64)) for p in s.part_fused])
        best = ranks.min(axis=0)
        X[:, 14] = np.log1p(best)
        X[:, 15] = best == 0
    else:
        X[:, 12] = 1
        X[:, 13] = dense
        X[:, 14] = np.log1p(order)
        X[:, 15] = order == 0
    best_of: dict[str, float] = {}
    count: dict[str, int] = {}
    seen: dict[str, int] = {}
    for i, provider in enumerate(s.providers):
        best_of[provider] = max(best_of.get(provider, -math.inf), float(fused[i]))
        if i < PROVIDER_WINDOW:
            count[provider] = count.get(provider, 0) + 1
        X[i, 18] = math.log1p(seen.get(provider, 0))
        seen[provider] = seen.get(provider, 0) + 1
    for i, provider in enumerate(s.providers):
        X[i, 16] = best_of[provider] / top
        X[i, 17] = math.log1p(count.get(provider, 0))
    asked = s.request_action
    for i, action in enumerate(s.route_actions):
        X[i, 19] = float(bool(asked and action and action != asked))
        X[i, 20] = float(bool(asked and action == asked))
    X[:, 21] = float(asked is None)
    X[:, 22] = math.log(max(s.query_words, 1))
    return X
