"""The learned ranking stage: gradient-boosted trees over the fused window's cheap features.

A :class:`RankingModel` is a folder of two plain files, written by
``schemarouter train-ranking`` (:mod:`schemarouter.training.ranking`)::

    trees.npz    every tree's nodes end to end (feature, threshold, children, leaf values)
    card.json    features, training data with hashes, settings, development figures, and
                 ``router_default`` (whether ``SchemaRouter()`` turns it on, and why)

It scores each candidate of the fused window (:mod:`.window` computes the rows) with numpy
alone: no scikit-learn, no pickle on the query path. The router re-orders the window by the
score, each group of routes the request names kept ahead of the rest; the tail keeps
fusion's order, so nothing a retriever found is ever dropped.

How far the stage may move a route is the card's ``settings.blend`` (:func:`blended_keys`):
the window is ordered by each route's place in fusion's order and in the stage's, weighted
``1 - blend`` and ``blend``, so what the encoder and BM25 put first keeps part of its say
(``1.0``, a card that does not say: the stage's order alone).

The stage reads the action rule's change too (:mod:`.actions`: an opposite-action route's
penalty, a matching verb's gain, ``scores["action"]``): ``settings.action_weight`` turns that
change of the fused score into log-odds added to the stage's score before the orders are
blended, so the stage does not undo what the rule did for a write request (``0``, a card that
does not say: the stage's score alone).
"""

from __future__ import annotations

import hashlib
import io
import math
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.errors import ModelError
from schemarouter.retrieval.window import FEATURES
from schemarouter.shipped import (
    card_identity,
    model_card,
    model_setting,
    off_by_default,
    shipped_model,
)

__all__ = [
    "DEFAULT_RANKING_WINDOW",
    "RankingModel",
    "TreeEnsemble",
    "blended_keys",
    "ranking_model_of",
]

#: How many of the fused best the ranking stage re-orders.
DEFAULT_RANKING_WINDOW = 30
#: The files of a model folder.
MODEL_FILES = ("trees.npz", "card.json")
#: What to do where the folder lacks a file, and where its card or arrays cannot be read.
_TRAIN_HINT = "Train one with `schemarouter train-ranking --out FOLDER`"
_RETRAIN_HINT = "Retrain it with `schemarouter train-ranking`"
_SHIPPED = "ranking"
_ARRAYS = ("feature", "threshold", "left", "right", "value", "leaf", "missing_left", "roots")


class TreeEnsemble:
    """The raw score (log-odds) of a binary gradient-boosted model: ``baseline`` plus the
    leaf value each tree reaches. A value goes left when ``<= threshold``; NaN goes where the
    node's ``missing_left`` says. Checked on construction: children, roots and features index
    inside their arrays, so a damaged file is refused, never walked."""

    def __init__(self, arrays: dict[str, np.ndarray], *, baseline: float, n_features: int):
        try:
            self.feature = np.asarray(arrays["feature"], dtype=np.int64)
            self.threshold = np.asarray(arrays["threshold"], dtype=np.float64)
            self.left = np.asarray(arrays["left"], dtype=np.int64)
            self.right = np.asarray(arrays["right"], dtype=np.int64)
            self.value = np.asarray(arrays["value"], dtype=np.float64)
            self.leaf = np.asarray(arrays["leaf"], dtype=bool)
            self.missing_left = np.asarray(arrays["missing_left"], dtype=bool)
            self.roots = np.asarray(arrays["roots"], dtype=np.int64)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"tree arrays: {exc}") from None
        self.baseline = float(baseline)
        self.n_features = int(n_features)
        n = self.feature.shape[0]
        parts = (self.threshold, self.left, self.right, self.value, self.leaf, self.missing_left)
        if any(a.ndim != 1 or a.shape[0] != n for a in (self.feature, *parts)):
            raise ValueError("tree arrays of different lengths")
        if self.roots.ndim != 1 or not self.roots.size:
            raise ValueError("no trees")
        if not math.isfinite(self.baseline) or not np.isfinite(self.value).all():
            raise ValueError("a leaf value or the baseline is not finite")
        inner = ~self.leaf
        for index in (self.roots, self.left[inner], self.right[inner]):
            if index.size and (index.min() < 0 or index.max() >= n):
                raise ValueError("a node index outside the arrays")
        # a child always comes after its parent, so every walk ends at a leaf
        ids = np.arange(n)[inner]
        if (self.left[inner] <= ids).any() or (self.right[inner] <= ids).any():
            raise ValueError("a child before its parent (a cycle)")
        if inner.any():
            used = self.feature[inner]
            if used.min() < 0 or used.max() >= self.n_features:
                raise ValueError("a split on a feature the model does not have")

    def raw(self, X: np.ndarray) -> np.ndarray:
        """The log-odds of each row of ``X`` (``rows x n_features``)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected rows of {self.n_features} features, got {X.shape}")
        # every tree at once: one node per (row, tree), walked down level by level
        node = np.broadcast_to(self.roots, (X.shape[0], self.roots.size)).copy()
        rows = np.broadcast_to(np.arange(X.shape[0])[:, None], node.shape)
        active = ~self.leaf[node]
        while active.any():
            at = node[active]
            x = X[rows[active], self.feature[at]]
            go_left = np.where(np.isnan(x), self.missing_left[at], x <= self.threshold[at])
            node[active] = np.where(go_left, self.left[at], self.right[at])
            active = ~self.leaf[node]
        return np.asarray(self.baseline + self.value[node].sum(axis=1))

    def arrays(self) -> dict[str, np.ndarray]:
        """What :meth:`RankingModel.save` writes (``baseline`` and ``n_features`` as arrays)."""
        out = {name: getattr(self, name) for name in _ARRAYS}
        out["baseline"] = np.array([self.baseline])
        out["n_features"] = np.array([self.n_features])
        return out


def blended_keys(values: Sequence[float], blend: float) -> list[float]:
    """Sort keys (higher first) for a window in fusion's order whose stage scores are
    ``values``: minus each route's place in fusion's order weighted ``1 - blend`` plus its
    place in the stage's order weighted ``blend``. ``blend >= 1`` gives ``values`` (the
    stage's order); ties stay in fusion's order (the caller sorts stably)."""
    if blend >= 1.0:
        return [float(v) for v in values]
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    place = [0] * len(values)
    for rank, i in enumerate(order):
        place[i] = rank
    return [-((1.0 - blend) * i + blend * place[i]) for i in range(len(values))]


class RankingModel:
    """A learned ranking stage in a model folder (see the module docstring)."""

    def __init__(self, path: str | Path | Any) -> None:
        self.path = Path(path) if isinstance(path, str) else path
        self.card = model_card(
            self.path,
            MODEL_FILES,
            what="ranking model",
            train=_TRAIN_HINT,
            retrain=_RETRAIN_HINT,
            kind="schemarouter-ranking",
        )
        if not isinstance(self.card.get("settings", {}), dict):
            raise ModelError(
                "the ranking model's settings must be an object of settings",
                where=str(self.path / "card.json"),
                hint=_RETRAIN_HINT,
            )
        try:
            features = tuple(self.card["features"])
            raw = self.path.joinpath("trees.npz").read_bytes()
            expected = self.card.get("model_sha256")
            if expected is not None and hashlib.sha256(raw).hexdigest() != expected:
                raise ValueError("trees.npz is not the file its card describes (sha256 differs)")
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                arrays = {name: np.array(data[name]) for name in data.files}
            self.trees = TreeEnsemble(
                arrays,
                baseline=float(arrays["baseline"].reshape(-1)[0]),
                n_features=int(arrays["n_features"].reshape(-1)[0]),
            )
        except (
            OSError,
            ValueError,
            TypeError,
            KeyError,
            AttributeError,
            EOFError,
            zipfile.BadZipFile,
        ) as exc:
            # numpy's advice for a file it would have to unpickle is not for a model file
            said = "trees.npz is not an archive of arrays" if "pickle" in str(exc) else str(exc)
            raise ModelError(
                f"unreadable ranking model: {said}", where=str(self.path), hint=_RETRAIN_HINT
            ) from None
        if features != FEATURES[: len(features)] or len(features) != self.trees.n_features:
            raise ModelError(
                "the ranking model was trained on other features than this version computes",
                where=str(self.path),
                hint="Retrain it with this version of schemarouter",
            )
        settings = self.card.get("settings", {})
        window = settings.get("window", DEFAULT_RANKING_WINDOW)
        #: how many of the fused best it re-orders (the window it was trained on)
        self.window = int(window) if isinstance(window, int) and window >= 2 else 30
        #: the stage's share of the window's order (:func:`blended_keys`)
        self.blend = self._setting(
            "blend",
            1.0,
            lambda v: 0 < v <= 1,
            "in (0, 1]",
            "the stage's share of the order (1: its order alone)",
        )
        #: log-odds per unit of the action rule's change of a route's fused score
        self.action_weight = self._setting(
            "action_weight",
            0.0,
            lambda v: 0 <= v < 1e6,
            ">= 0",
            "the log-odds per unit of the action rule's change of the fused score (0: the "
            "stage ignores the rule)",
        )

    def _setting(
        self, name: str, default: float, ok: Callable[[float], bool], says: str, meaning: str
    ) -> float:
        """The card's ``settings[name]`` (``default`` where it does not say), a number ``ok``
        accepts, else a :class:`~schemarouter.errors.ModelError` naming the card."""
        value = self.card.get("settings", {}).get(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not ok(value):
            raise ModelError(
                f"the ranking model's {name} must be a number {says}, not {value!r}",
                where=str(self.path / "card.json"),
                hint=f"Set settings.{name} to {meaning}",
            )
        return float(value)

    @classmethod
    def shipped(cls) -> RankingModel | None:
        """The model shipped in ``schemarouter.models/ranking`` (one per process), or
        ``None`` where there is none."""

        return shipped_model(_SHIPPED, MODEL_FILES, cls)

    @property
    def off_by_default(self) -> str:
        """Why ``SchemaRouter()`` leaves this model off (``""``: it is on), from the card's
        ``router_default``: it ships on only where it beats fusion on every development set
        and out-of-domain suite (a card that does not say: off)."""
        return off_by_default(self.card, on=False)

    @property
    def identity(self) -> str:
        return card_identity(self.card, "ranking")

    def score(self, rows: np.ndarray) -> np.ndarray:
        """The model's log-odds that each candidate serves the request (higher first);
        ``rows`` may carry features added after the model was trained (its card's features
        are a prefix of :data:`~.window.FEATURES`): those columns are not read."""
        return self.trees.raw(np.asarray(rows)[:, : self.trees.n_features])


def ranking_model_of(value: Any) -> RankingModel | Any | None:
    """The learned ranking stage ``SchemaRouter(ranking=...)`` and ``router.ranking_model``
    take (:func:`~schemarouter.shipped.model_setting`)."""
    return model_setting(value, RankingModel, "ranking", "score")
