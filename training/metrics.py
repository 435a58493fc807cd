"""Routing metrics: pure functions over ranked route ids, gold labels and plans.

Ranking (per query; ``ranked`` best first, ``needs`` as in
:mod:`schemarouter.training.datasets.suite`: each need is a set of alternative routes):

* :func:`recall_at` -- share of needs with a route in the top k (the usual Recall@k when
  every gold route is its own need; "any gold route in the top k" when the gold routes
  are alternatives);
* :func:`complete_at` -- 1 if every need is met in the top k (COMP@k);
* :func:`ndcg_at` -- binary-relevance nDCG@k over every gold route;
* :func:`reciprocal_rank` -- 1 / rank of the first gold route (0 if none is ranked).

Fields (the paper's planning metrics), with field keys grouped by semantic id so that a
route's variants of one quantity (Voigt / Reuss / Hill, several functionals) count once:

* :func:`field_prf` -- precision, recall and F1 of the selected fields;
* :func:`over_fetch_ratio` -- share of fetched fields the answer does not need;
* :func:`arguments_valid` -- every bound argument is a declared parameter and validates;
* :func:`metadata_completeness` -- unit / provenance / license present on fetched fields.

Aggregation: :func:`mean`, :func:`bootstrap_ci` (seeded percentile bootstrap of the mean),
:func:`percentiles`, :func:`by_category`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "FieldScores",
    "arguments_valid",
    "bootstrap_ci",
    "by_category",
    "complete_at",
    "field_prf",
    "mean",
    "metadata_completeness",
    "ndcg_at",
    "over_fetch_ratio",
    "percentiles",
    "recall_at",
    "reciprocal_rank",
]

FieldKey = Callable[[str, str], Hashable]


def _name_key(route: str, name: str) -> Hashable:
    return name


# -- ranking ------------------------------------------------------------------------------


def _depth(k: int) -> int:
    """``k`` checked: a cut-off of at least 1 (``ranked[:0]`` is empty and ``ranked[:-1]``
    drops the last route, so either would be a figure of something else)."""
    try:
        depth = operator.index(k)
    except TypeError:
        depth = 0
    if isinstance(k, bool) or depth < 1:
        raise ValueError(f"k must be a whole number of ranks, at least 1 (got {k!r})")
    return depth


def recall_at(ranked: Sequence[str], needs: Sequence[Collection[str]], k: int) -> float:
    """Share of ``needs`` met by the top ``k`` of ``ranked`` (NaN when there are none)."""
    if not needs:
        return math.nan
    top = set(ranked[: _depth(k)])
    return sum(1 for need in needs if top.intersection(need)) / len(needs)


def complete_at(ranked: Sequence[str], needs: Sequence[Collection[str]], k: int) -> float:
    """1.0 if every need is met in the top ``k``, else 0.0 (NaN when there are none)."""
    if not needs:
        return math.nan
    top = set(ranked[: _depth(k)])
    return float(all(top.intersection(need) for need in needs))


def ndcg_at(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Binary-relevance nDCG@k: DCG of ``ranked`` over the DCG of a perfect ranking.

    A route listed twice gains once, at its first rank (a perfect ranking lists each
    relevant route once), so the value stays within [0, 1]."""
    if not relevant:
        return math.nan
    rel = set(relevant)
    k = _depth(k)
    seen: set[str] = set()
    dcg = 0.0
    for i, route in enumerate(ranked[:k]):
        if route in rel and route not in seen:
            dcg += 1.0 / math.log2(i + 2)
        seen.add(route)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """1 / (1-based rank of the first relevant route); 0 if none is ranked."""
    if not relevant:
        return math.nan
    rel = set(relevant)
    for i, route in enumerate(ranked):
        if route in rel:
            return 1.0 / (i + 1)
    return 0.0


# -- fields -------------------------------------------------------------------------------


class FieldScores(NamedTuple):
    precision: float
    recall: float
    f1: float


def _keyed(fields: Mapping[str, Sequence[str]], key: FieldKey) -> list[tuple[str, Hashable]]:
    """``(route, key(route, field))`` for each field of ``fields`` (route -> field names)."""
    return [(r, key(r, f)) for r, names in fields.items() for f in names]


def _target(
    selected: Mapping[str, Sequence[str]],
    gold: Mapping[str, Sequence[str]],
    key: FieldKey,
    alternatives: bool,
) -> set[tuple[str, Hashable]]:
    """The gold field keys the selection is judged against.

    Every gold route's fields when all are needed; for alternatives, the gold route the
    selection serves best (most shared keys, ties to the first listed), else the first.
    """
    per_route = {r: {(r, key(r, f)) for f in names} for r, names in gold.items()}
    if not alternatives:
        return set().union(*per_route.values()) if per_route else set()
    chosen = set(_keyed(selected, key))
    best = max(per_route, key=lambda r: (len(per_route[r] & chosen), r in selected), default=None)
    return per_route[best] if best is not None else set()


def field_prf(
    selected: Mapping[str, Sequence[str]],
    gold: Mapping[str, Sequence[str]],
    *,
    key: FieldKey = _name_key,
    alternatives: bool = False,
) -> FieldScores:
    """Precision / recall / F1 of ``selected`` (route -> field names) against ``gold``.

    Fields are compared as ``(route, key(route, field))`` sets, so variants sharing a key
    (a semantic id) count once. An empty selection has precision 0.
    """
    target = _target(selected, gold, key, alternatives)
    chosen = set(_keyed(selected, key))
    hit = len(chosen & target)
    precision = hit / len(chosen) if chosen else 0.0
    recall = hit / len(target) if target else math.nan
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return FieldScores(precision, recall, f1)


def over_fetch_ratio(
    fetched: Mapping[str, Sequence[str]],
    gold: Mapping[str, Sequence[str]],
    *,
    key: FieldKey = _name_key,
    alternatives: bool = False,
) -> float:
    """Share of fetched fields (each counted) whose key the answer does not need."""
    keyed = _keyed(fetched, key)
    if not keyed:
        return math.nan
    target = _target(fetched, gold, key, alternatives)
    return 1.0 - sum(1 for k in keyed if k in target) / len(keyed)


def arguments_valid(
    arguments: Mapping[str, Any], parameters: Mapping[str, Mapping[str, Any]]
) -> bool:
    """Every argument names a declared parameter and validates against its JSON Schema."""
    from jsonschema import Draft202012Validator

    for name, value in arguments.items():
        if name not in parameters:
            return False
        if not Draft202012Validator(dict(parameters[name])).is_valid(value):
            return False
    return True


def metadata_completeness(fields: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Shares of fields with a unit (numeric fields only), a provenance and a license.

    Each field is a mapping with ``numeric`` (bool), ``unit``, ``source_type`` and
    ``license``; provenance counts when ``source_type`` is set and not ``"unknown"``.
    NaN where there is nothing to count.
    """
    items = list(fields)
    numeric = [f for f in items if f.get("numeric")]

    def share(values: list[bool]) -> float:
        return sum(values) / len(values) if values else math.nan

    return {
        "unit": share([bool(f.get("unit")) for f in numeric]),
        "provenance": share([f.get("source_type") not in (None, "", "unknown") for f in items]),
        "license": share([bool(f.get("license")) for f in items]),
    }


# -- aggregation -----------------------------------------------------------------------------


def _finite(values: Iterable[float]) -> np.ndarray:
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    out: np.ndarray = arr[np.isfinite(arr)]
    return out


def mean(values: Iterable[float]) -> float:
    """Mean of the finite values (NaN marks "not applicable"); NaN if there are none."""
    arr = _finite(values)
    return float(arr.mean()) if arr.size else math.nan


def bootstrap_ci(
    values: Iterable[float], *, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of the finite ``values``."""
    arr = _finite(values)
    if arr.size == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(resamples, arr.size))
    means = arr[idx].mean(axis=1)
    alpha = (1.0 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def percentiles(values: Iterable[float], qs: Sequence[float] = (50, 95)) -> dict[str, float]:
    """``{"p50": ..., "p95": ...}`` of the finite values (NaN if none)."""
    arr = _finite(values)
    return {f"p{q:g}": float(np.percentile(arr, q)) if arr.size else math.nan for q in qs}


def by_category(
    rows: Sequence[Mapping[str, Any]], metric: str, *, category: str = "category"
) -> dict[str, float]:
    """Mean of ``metric`` per category (rows without one are left out), sorted by name."""
    groups: dict[str, list[float]] = {}
    for row in rows:
        name = row.get(category)
        if name:
            groups.setdefault(str(name), []).append(row.get(metric, math.nan))
    return {name: mean(groups[name]) for name in sorted(groups)}
