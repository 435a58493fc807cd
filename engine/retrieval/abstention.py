"""Relevance and abstention: how likely a registered route serves a request, and when none does.

A logistic model over signals of a (request, route) pair that mean the same on every
catalog gives P(the route serves the request):

* ``rerank``: the cross-encoder's logit (when the list was reranked);
* ``dense``: the encoder's cosine between the request and the route's best document;
* ``coverage``: the share of the request's content words the route's documents contain;
* ``known_word_share``: the share of the request's words the catalog knows at all (the
  shipped model leaves it out: it depends on the catalog's size and wording, issue #22);
* ``resolved_fields`` / ``query_values``: semantic fields the request resolved to, and
  identifiers or values it carries (formulas, DOIs ...);
* ``top_dense`` / ``top_lexical``: the best route's dense similarity and BM25 score (the
  first format's features; BM25 magnitudes depend on the catalog, so new models leave it out).

Every candidate gets its probability (``Candidate.relevance``); the router abstains (no
candidates, with the reason) when the best one is below the calibrated threshold. A model
carries one weight set for reranked lists and one for fusion order. Weights and thresholds
are fitted offline by ``schemarouter.training.abstention`` and stored as plain JSON with the
data they came from; the card names the encoder (and reranker) whose scores it read, and the
router applies a model only with those models: signals from another encoder mean something
else. No word list is involved.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemarouter.errors import ModelError
from schemarouter.shipped import shipped_folder

__all__ = [
    "ABSTENTION_FEATURES",
    "RELEVANCE_FEATURES",
    "AbstentionModel",
    "Calibration",
    "abstention_features",
    "relevance_features",
]

#: What a relevance model reads of a candidate and its request (:func:`relevance_features`;
#: ``rerank`` only in the variant fitted on reranked lists).
RELEVANCE_FEATURES = (
    "rerank",
    "dense",
    "coverage",
    "known_word_share",
    "resolved_fields",
    "query_values",
)
#: Feature names a model may use, each computed by :func:`relevance_features` (or, for the
#: first format's query-level ones, :func:`abstention_features`).
ABSTENTION_FEATURES = (*RELEVANCE_FEATURES, "top_dense", "top_lexical")

DEFAULT_ABSTENTION_FILE = "abstention.json"


def abstention_features(
    *,
    top_dense: float,
    top_lexical: float,
    known_word_share: float,
    resolved_fields: int,
    query_values: int,
) -> dict[str, float]:
    """Query-level signals (the best route's scores, the request's words and values)."""
    return {
        "top_dense": float(top_dense),
        "top_lexical": math.log1p(max(float(top_lexical), 0.0)),
        "known_word_share": float(known_word_share),
        "resolved_fields": float(min(resolved_fields, 3)),
        "query_values": float(min(query_values, 2)),
    }


def relevance_features(
    query_level: Mapping[str, float],
    *,
    dense: float,
    coverage: float,
    rerank: float | None = None,
) -> dict[str, float]:
    """One candidate's signals: the query-level ones plus its own."""
    out = dict(query_level)
    out["dense"] = float(dense)
    out["coverage"] = float(coverage)
    if rerank is not None:
        out["rerank"] = float(rerank)
    return out


@dataclass(frozen=True)
class Calibration:
    """One weight set: logistic weights, bias and the abstention threshold."""

    weights: dict[str, float]
    bias: float
    threshold: float

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.bias + sum(w * features.get(name, 0.0) for name, w in self.weights.items())
        if z < -60:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    def to_json(self) -> dict[str, Any]:
        return {"weights": self.weights, "bias": self.bias, "threshold": self.threshold}


@dataclass(frozen=True)
class AbstentionModel:
    """P(a route serves the request), and the threshold below which the router abstains.

    ``weights``/``bias``/``threshold`` are the fusion-order calibration (and the only one a
    first-format model has); ``reranked`` is used for lists the cross-encoder re-scored.
    """

    weights: dict[str, float]
    bias: float
    threshold: float
    card: dict[str, Any]
    reranked: Calibration | None = field(default=None)

    @property
    def fusion(self) -> Calibration:
        return Calibration(self.weights, self.bias, self.threshold)

    def calibration(self, *, reranked: bool = False) -> Calibration:
        if reranked and self.reranked is not None:
            return self.reranked
        return self.fusion

    def probability(self, features: Mapping[str, float], *, reranked: bool = False) -> float:
        return self.calibration(reranked=reranked).probability(features)

    def threshold_for(self, *, reranked: bool = False) -> float:
        return self.calibration(reranked=reranked).threshold

    def abstains(self, features: Mapping[str, float], *, reranked: bool = False) -> bool:
        calibration = self.calibration(reranked=reranked)
        return calibration.probability(features) < calibration.threshold

    def uses_candidates(self) -> bool:
        """Whether the model reads per-candidate signals (else only query-level ones)."""
        names = set(self.weights) | set(self.reranked.weights if self.reranked else ())
        return bool(names & {"rerank", "dense", "coverage"})

    def applies_to(
        self,
        provider_ids: Iterable[str] = (),
        *,
        encoder: str | None = None,
        reranker: str | None = None,
    ) -> str | None:
        """``None`` when the model applies here, else why not.

        A model whose card names ``providers`` was calibrated on that catalog and applies
        only where the registry holds it; one whose card names an ``encoder`` applies only
        with that encoder (its signals mean something else under another), on any registry.
        """
        calibrated = self.card.get("providers")
        if calibrated and not set(calibrated) <= set(provider_ids):
            return "no model calibrated for this registry"
        wanted = self.card.get("encoder")
        scoped = self.card.get("scope") == "encoder"
        if scoped and wanted and encoder is not None and wanted != encoder:
            return (
                f"the model was calibrated for the encoder {wanted!r}, not {encoder!r}: under "
                "another encoder (one `schemarouter train-encoder` wrote, say) requests get no "
                "verdict, and no command fits one for it; the ranking is not affected"
            )
        return None

    def reranked_applies(self, reranker: str | None) -> bool:
        """Whether the reranked calibration fits ``reranker`` (the one its card names)."""
        wanted = self.card.get("reranker")
        return self.reranked is not None and (not wanted or wanted == reranker)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": 2,
            "weights": self.weights,
            "bias": self.bias,
            "threshold": self.threshold,
        }
        if self.reranked is not None:
            out["reranked"] = self.reranked.to_json()
        out["card"] = self.card
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], *, where: str = "<dict>") -> AbstentionModel:
        def calibration(raw: Any) -> Calibration:
            weights = {str(k): float(v) for k, v in raw["weights"].items()}
            unknown = set(weights) - set(ABSTENTION_FEATURES)
            if unknown:
                raise ValueError(f"unknown features {sorted(unknown)}")
            values = [float(raw["bias"]), float(raw["threshold"]), *weights.values()]
            if not all(math.isfinite(v) for v in values):
                raise ValueError("weights, bias and threshold must be finite numbers")
            return Calibration(weights, float(raw["bias"]), float(raw["threshold"]))

        try:
            fusion = calibration(data)
            reranked = calibration(data["reranked"]) if data.get("reranked") else None
            return cls(
                weights=fusion.weights,
                bias=fusion.bias,
                threshold=fusion.threshold,
                card=dict(data.get("card", {})),
                reranked=reranked,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelError(
                f"unusable abstention model: {exc}",
                where=where,
                hint="Refit it with `python -m schemarouter.training.abstention`",
            ) from None

    @classmethod
    def load(cls, path: str | Path) -> AbstentionModel:
        path = Path(path)
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ModelError(
                f"cannot read the abstention model: {exc}",
                where=str(path),
                hint="Refit it with `python -m schemarouter.training.abstention`",
            ) from None
        return cls.from_json(data, where=str(path))

    @classmethod
    def shipped(cls) -> AbstentionModel | None:
        """The model shipped in ``schemarouter.models``, or ``None`` if there is none."""
        folder = shipped_folder("", [DEFAULT_ABSTENTION_FILE])
        if folder is None:
            return None
        return cls.from_json(
            json.loads((folder / DEFAULT_ABSTENTION_FILE).read_text("utf-8")),
            where=f"schemarouter.models/{DEFAULT_ABSTENTION_FILE}",
        )
