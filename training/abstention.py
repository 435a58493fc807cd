"""Fit the abstention model on labelled queries and ship it as ``models/abstention.json``.

Positives: the non-negative queries of the bundled set's **dev** split. Negatives: the dev
negatives plus ``data/queries/calibration_negatives.json`` (requests no route serves). The test
split is never read here. A logistic regression (scikit-learn) over the router's abstention
signals gives P(servable); the threshold is the largest one that keeps false abstention on
dev positives at or below ``--max-false-abstention`` (default 5%).

    python -m schemarouter.training.abstention --out models/abstention.json
"""

from __future__ import annotations

import argparse
import json
import logging
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.abstention import ABSTENTION_FEATURES, AbstentionModel
from schemarouter.fingerprint import fingerprint
from schemarouter.router import SchemaRouter
from schemarouter.training.datasets.bundled import load_bundled_queries

__all__ = ["fit_abstention", "main"]

logger = logging.getLogger(__name__)

#: Features the model uses. BM25 magnitudes depend on the catalog's size and vocabulary, so
#: ``top_lexical`` is left out: the shipped model must transfer to other registries.
USED_FEATURES = ("top_dense", "known_word_share", "resolved_fields", "query_values")


def _negatives() -> list[str]:
    path = resources.files("schemarouter.data").joinpath("queries", "calibration_negatives.json")
    return list(json.loads(path.read_text("utf-8"))["queries"])


def _signals(router: SchemaRouter, query: str) -> dict[str, float]:
    result = router.retrieve(query, k=1)
    return {name: result.signals.get(name, 0.0) for name in ABSTENTION_FEATURES}


def fit_abstention(
    router: SchemaRouter, *, max_false_abstention: float = 0.05, seed: int = 0
) -> AbstentionModel:
    """Fit on dev positives vs dev + calibration negatives; ``router`` must not abstain."""
    from sklearn.linear_model import LogisticRegression

    dev = load_bundled_queries(split="dev")
    positives = [q.query for q in dev if not q.is_negative]
    negatives = [q.query for q in dev if q.is_negative] + _negatives()
    rows = [_signals(router, q) for q in positives + negatives]
    x = np.array([[r[f] for f in USED_FEATURES] for r in rows])
    y = np.array([1] * len(positives) + [0] * len(negatives))
    model = LogisticRegression(class_weight="balanced", random_state=seed, max_iter=1000)
    model.fit(x, y)
    p = model.predict_proba(x)[:, 1]
    positive_p = np.sort(p[y == 1])
    allowed = int(np.floor(max_false_abstention * len(positive_p)))
    # abstain when p < threshold: at most `allowed` dev positives fall below it
    threshold = float(positive_p[allowed]) if len(positive_p) else 0.5
    rejected = float(np.mean(p[y == 0] < threshold))
    false_abstention = float(np.mean(p[y == 1] < threshold))
    card: dict[str, Any] = {
        "purpose": "P(a registered route can serve the request) from retrieval signals",
        "features": list(USED_FEATURES),
        "training_data": {
            "positives": f"bundled queries, dev split, non-negative ({len(positives)})",
            "negatives": f"bundled dev negatives + calibration_negatives.json ({len(negatives)})",
            "hash": fingerprint(sorted(positives + negatives)),
        },
        "encoder": router.index.encoder_identity,
        "catalog_fingerprint": router.snapshot().fingerprint,
        # the router applies the shipped model only where these providers are registered
        "providers": sorted(router.snapshot().providers),
        "max_false_abstention": max_false_abstention,
        "dev": {
            "negative_rejection": round(rejected, 3),
            "false_abstention": round(false_abstention, 3),
        },
        "seed": seed,
    }
    weights = {f: float(w) for f, w in zip(USED_FEATURES, model.coef_[0], strict=True)}
    return AbstentionModel(
        weights=weights, bias=float(model.intercept_[0]), threshold=threshold, card=card
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("models/abstention.json"))
    parser.add_argument("--max-false-abstention", type=float, default=0.05)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    catalog = Path(str(resources.files("schemarouter.data").joinpath("catalogs", "materials")))
    router = SchemaRouter.from_catalog(catalog, abstention=None, reranker=None)
    model = fit_abstention(router, max_false_abstention=args.max_false_abstention)
    args.out.write_text(json.dumps(model.to_json(), indent=2) + "\n", "utf-8")
    print(f"wrote {args.out}: threshold {model.threshold:.3f}, dev {model.card['dev']}")
    print(
        "weights:", {k: round(v, 3) for k, v in model.weights.items()}, "bias", round(model.bias, 3)
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
