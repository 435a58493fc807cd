"""The ranking stage's training and development rows: each request's window (the fused top
``window`` as :func:`fusion_router` ranks it) as feature rows labelled by its gold routes
(:mod:`schemarouter.retrieval.window`), Recall@k of an order over them, and the files they
are kept in between runs (``train-ranking --work``)."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.index.encoders.dense import similarity_factor
from schemarouter.retrieval.learned import DEFAULT_RANKING_WINDOW, blended_keys
from schemarouter.retrieval.window import FEATURES
from schemarouter.training.command import progress_bar

__all__ = [
    "DEPTH",
    "WindowRows",
    "cached_rows",
    "fusion_router",
    "load_rows",
    "recall_at",
    "save_rows",
    "window_rows",
]

#: How deep each request is searched before its window is cut (the router's recall depth).
DEPTH = 50


@dataclass
class WindowRows:
    """Feature rows of many requests' windows: ``X`` (rows x features), labels ``y``, the
    request each row belongs to (``group``), each candidate's tier (0 named, 1 of a named
    provider, 2 other) and route id, and per request its needs (each a set of route ids)."""

    X: np.ndarray
    y: np.ndarray
    group: np.ndarray
    tier: np.ndarray
    route_ids: list[str] = field(default_factory=list)
    needs: list[list[frozenset[str]]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # per request: suite:id
    #: what the requests were drawn from (for the card), kept with the rows it describes
    about: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def concat(cls, parts: Sequence[WindowRows]) -> WindowRows:
        """The rows of ``parts`` one after another, their requests numbered on."""
        groups, offset = [], 0
        for part in parts:
            groups.append(part.group + offset)
            offset += len(part.needs)
        return cls(
            np.vstack([p.X for p in parts]),
            np.concatenate([p.y for p in parts]),
            np.concatenate(groups).astype(np.int64),
            np.concatenate([p.tier for p in parts]),
            [r for p in parts for r in p.route_ids],
            [n for p in parts for n in p.needs],
            [n for p in parts for n in p.names],
        )

    def requests(self) -> Iterable[tuple[int, np.ndarray]]:
        """(request number, its row indices), in order."""
        bounds = np.flatnonzero(np.r_[True, self.group[1:] != self.group[:-1], True])
        for a, b in itertools.pairwise(bounds.tolist()):
            yield int(self.group[a]), np.arange(a, b)


def fusion_router(*, progress: bool = True) -> Any:
    """A router ranking as ``SchemaRouter()`` does before the stage: fusion and the action
    rule, no stage, no reranker, nothing lifted after (those come later on the path).
    ``progress=False`` (``--no-progress``) keeps its index build from drawing bars; else it
    draws them as any router does (large catalogs, the logger at INFO)."""
    from schemarouter.router import SchemaRouter

    return SchemaRouter(
        abstention=None,
        reranker=None,
        ranking=None,
        multi_intent=False,
        prerequisites=False,
        progress=None if progress else False,
    )


def window_rows(
    router: Any,
    queries: Sequence[Any],
    *,
    window: int = DEFAULT_RANKING_WINDOW,
    suite: str = "",
    progress: bool = True,
) -> WindowRows:
    """The windows of ``queries`` (``EvalQuery``-like: ``id``, ``text``, ``gold``,
    ``needs``) in ``router`` as rows, labelled by each request's gold routes."""
    from schemarouter.retrieval.ordering import window_signals
    from schemarouter.retrieval.window import window_features

    index = router.index
    encoder = getattr(index, "encoder", None)
    Xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    groups: list[np.ndarray] = []
    tiers: list[np.ndarray] = []
    ids: list[str] = []
    needs: list[list[frozenset[str]]] = []
    names: list[str] = []
    bar = progress_bar(
        progress and len(queries) > 0, total=len(queries), desc=f"windows {suite}", unit="request"
    )
    for q in queries:
        ranking = router._rank(q.text, DEPTH, rerank=False)
        head = ranking.ranked[:window]
        if bar is not None:
            bar.update(1)
        if not head:
            continue
        factor = similarity_factor(encoder, q.text)
        signals = window_signals(q.text, head, ranking.snapshot, index=index, factor=factor)
        named = set(ranking.analysis.named_routes)
        gold = set(q.gold)
        g = len(needs)
        Xs.append(window_features(signals))
        ys.append(np.array([float(item.route_id in gold) for item in head]))
        groups.append(np.full(len(head), g))
        tiers.append(np.array([0 if i.route_id in named else 1 if i.forced else 2 for i in head]))
        ids += [item.route_id for item in head]
        needs.append([frozenset(n) for n in q.needs])
        names.append(f"{suite}:{q.id}")
    if bar is not None:
        bar.close()
    if not Xs:
        empty = np.zeros((0, len(FEATURES)))
        return WindowRows(empty, np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0))
    return WindowRows(
        np.vstack(Xs),
        np.concatenate(ys),
        np.concatenate(groups).astype(np.int64),
        np.concatenate(tiers),
        ids,
        needs,
        names,
    )


def recall_at(
    rows: WindowRows, scores: np.ndarray | None, k: int = 5, *, blend: float = 1.0
) -> float:
    """Mean Recall@k over the requests of ``rows``, their windows ordered by ``scores``
    blended with fusion's order (``blend``, as the router does) within tiers (``None``: the
    order they came in, fusion's)."""
    values = []
    for g, idx in rows.requests():
        if scores is None:
            order = idx
        else:
            keys = np.asarray(blended_keys(scores[idx].tolist(), blend))
            order = idx[np.lexsort((np.arange(len(idx)), -keys, rows.tier[idx]))]
        top = {rows.route_ids[i] for i in order[:k]}
        needs = rows.needs[g]
        if needs:
            values.append(sum(1 for n in needs if top & n) / len(needs))
    return float(np.mean(values)) if values else math.nan


def save_rows(path: Path, rows: WindowRows) -> None:
    """Write ``rows`` as ``path`` (arrays) beside ``path.json`` (route ids, needs, names and
    what they were drawn from)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "route_ids": rows.route_ids,
        "needs": [[sorted(n) for n in needs] for needs in rows.needs],
        "names": rows.names,
        "about": rows.about,
    }
    np.savez(path, X=rows.X, y=rows.y, group=rows.group, tier=rows.tier)
    path.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


def load_rows(path: Path) -> WindowRows:
    """The rows :func:`save_rows` wrote."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: np.array(data[k]) for k in data.files}
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return WindowRows(
        arrays["X"],
        arrays["y"],
        arrays["group"],
        arrays["tier"],
        meta["route_ids"],
        [[frozenset(n) for n in needs] for needs in meta["needs"]],
        meta["names"],
        meta.get("about") or {},
    )


def cached_rows(path: Path, key: str, build: Callable[[], WindowRows]) -> WindowRows:
    """The rows saved at ``path`` where they were built under ``key``, else ``build()``
    saved there. The key is written last and removed before a build, so a run stopped
    halfway leaves no rows a later run would take for its own."""
    stamp = path.with_suffix(".key")
    if path.exists() and stamp.exists() and stamp.read_text() == key:
        return load_rows(path)
    stamp.unlink(missing_ok=True)
    rows = build()
    save_rows(path, rows)
    stamp.write_text(key)
    return rows
