"""Abstention: decide that no registered route can serve a request.

A logistic model over a few features of the best retrieved route (its dense similarity, its
BM25 score, how many of the query's words the catalog knows, how many semantic fields the
query resolved to, how many identifiers and values it carries) gives P(the top route is
relevant). Below the calibrated threshold the router returns no candidates, with the
reason. Weights and threshold are fitted offline by ``schemarouter.training.abstention``
on labelled queries (positives and negatives of the dev split, never the test split) and
stored as plain JSON with the data they came from.
No word list is involved.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from schemarouter.errors import ModelError

__all__ = ["ABSTENTION_FEATURES", "AbstentionModel", "abstention_features"]

#: Feature names, in order. Each is computed by :func:`abstention_features`.
ABSTENTION_FEATURES = (
    "top_dense",
    "top_lexical",
    "known_word_share",
    "resolved_fields",
    "query_values",
)

DEFAULT_ABSTENTION_FILE = "abstention.json"


def abstention_features(
    *,
    top_dense: float,
    top_lexical: float,
    known_word_share: float,
    resolved_fields: int,
    query_values: int,
) -> dict[str, float]:
    """``query_values``: identifiers and values found in the query (formulas, DOIs, ...)."""
    return {
        "top_dense": float(top_dense),
        "top_lexical": math.log1p(max(float(top_lexical), 0.0)),
        "known_word_share": float(known_word_share),
        "resolved_fields": float(min(resolved_fields, 3)),
        "query_values": float(min(query_values, 2)),
    }


@dataclass(frozen=True)
class AbstentionModel:
    weights: dict[str, float]
    bias: float
    threshold: float
    card: dict[str, Any]

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(self.weights[name] * features[name] for name in self.weights)
        return 1.0 / (1.0 + math.exp(-z))

    def abstains(self, features: dict[str, float]) -> bool:
        return self.probability(features) < self.threshold

    def applies_to(self, provider_ids: Iterable[str]) -> bool:
        """Whether the registry holds the catalog this model was calibrated on (its card's
        ``providers``). Signals such as dense similarity shift between domains, so a model
        fitted on one catalog is not silently applied to another."""
        calibrated = self.card.get("providers")
        return not calibrated or set(calibrated) <= set(provider_ids)

    def to_json(self) -> dict[str, Any]:
        return {
            "weights": self.weights,
            "bias": self.bias,
            "threshold": self.threshold,
            "card": self.card,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, where: str = "<dict>") -> AbstentionModel:
        try:
            weights = {str(k): float(v) for k, v in data["weights"].items()}
            unknown = set(weights) - set(ABSTENTION_FEATURES)
            if unknown:
                raise ValueError(f"unknown features {sorted(unknown)}")
            return cls(
                weights=weights,
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
                card=dict(data.get("card", {})),
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
        resource = resources.files("schemarouter.models").joinpath(DEFAULT_ABSTENTION_FILE)
        if not resource.is_file():
            return None
        return cls.from_json(
            json.loads(resource.read_text("utf-8")),
            where=f"schemarouter.models/{DEFAULT_ABSTENTION_FILE}",
        )
