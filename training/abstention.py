"""Fit the relevance / abstention model and ship it as ``models/abstention.json``.

::

    python -m schemarouter.training.abstention --out models/abstention.json [--data ../shared/data]

**Data** (never an evaluation suite): the tooltrain corpus's *validation* split (tools the
encoder and reranker never trained on, so their scores look as they will on a user's
catalog), plus the bundled catalog's dev split:

* one calibration catalog per tooltrain source (its validation tools and seeded distractors
  from its catalog, registered with ``add_mcp_tools``), and the bundled catalog;
* **positives**: the source's own validation requests (bundled: dev positives);
* **off-catalog requests**: requests of *other* sources whose domains do not meet this one
  (:data:`OFF_CATALOG_SOURCES`: command lines, ML model hubs, dialogue services, airline and
  retail support; the broad sources, which could be served anywhere, are not used as
  off-catalog), the corpus's no-tool requests (``bfcl_irrelevance``), and for the bundled
  catalog its dev negatives and ``data/queries/calibration_negatives.json``.

**Model**: each request is retrieved by the router as shipped (encoder, reranker), with and
without reranking; every one of the top :data:`~schemarouter.router.RELEVANCE_WINDOW`
candidates is a row (label: it is a gold route of the request), its features the relevance
features but :data:`LEFT_OUT_FEATURES` (the catalog's known-word share, which depends on the
catalog as much as on the request). A logistic regression
(scikit-learn, no class reweighting, so probabilities stay calibrated) per variant gives
P(route serves request). The threshold is the largest that keeps false abstention (a
positive request whose best candidate is below it) at or below ``--max-false-abstention``
over all calibration positives. The card records the encoder and reranker the signals came
from, the data and hashes, and each catalog's figures.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.fingerprint import fingerprint
from schemarouter.retrieval.abstention import (
    RELEVANCE_FEATURES,
    AbstentionModel,
    Calibration,
    relevance_features,
)
from schemarouter.retrieval.candidates import coverage, query_tokens

__all__ = ["LEFT_OUT_FEATURES", "OFF_CATALOG_SOURCES", "calibration_sets", "fit_abstention", "main"]

logger = logging.getLogger(__name__)

#: Sources whose requests serve as off-catalog requests for other sources' catalogs.
OFF_CATALOG_SOURCES = ("tldr", "gorilla_apibench", "sgd", "tau_bench")
#: Pairs of those whose domains meet (SGD has flights and shops, tau-bench airline and retail).
_MEETING = {frozenset({"sgd", "tau_bench"})}
#: Relevance features a model is not fitted on, and why (the card says so too): the share of
#: the request's words the catalog knows depends on the catalog's size and wording as much as
#: on the request (the calibration catalogs' requests know 0.36-0.84 of their words on
#: average, StableToolBench G1's 1,673 endpoints 0.86), so a weight fitted on the calibration
#: catalogs misreads a large one.
LEFT_OUT_FEATURES = {
    "known_word_share": "the share of the request's words the catalog knows depends on the "
    "catalog's size and wording as much as on the request, so its weight misreads a large "
    "catalog (issue #22: with it the model separated worse than the raw cosine on G1 and "
    "MetaTool)",
}
#: Features of each variant: the relevance features fitted on, and all but the reranker's logit.
RERANKED_FEATURES = tuple(name for name in RELEVANCE_FEATURES if name not in LEFT_OUT_FEATURES)
FUSION_FEATURES = tuple(name for name in RERANKED_FEATURES if name != "rerank")


def _bundled_negatives() -> list[str]:
    path = resources.files("schemarouter.data").joinpath("queries", "calibration_negatives.json")
    return list(json.loads(path.read_text("utf-8"))["queries"])


class CalibrationSet:
    """One catalog in a router, its positive requests (with gold) and off-catalog ones."""

    def __init__(self, name: str, router: Any) -> None:
        self.name = name
        self.router = router
        self.positives: list[tuple[str, frozenset[str]]] = []
        self.off_catalog: list[str] = []


def calibration_sets(
    make_router: Callable[[], Any],
    *,
    data: str | Path | None = None,
    positives: int = 120,
    off_per_source: int = 40,
    irrelevant: int = 60,
    distractors: int = 300,
    seed: int = 0,
    bundled: bool = True,
) -> list[CalibrationSet]:
    """The calibration catalogs of the module docstring, each in a fresh router."""
    from schemarouter.training.datasets.bundled import load_bundled_queries
    from schemarouter.training.datasets.tooltrain import (
        NEGATIVE_SOURCES,
        load_tooltrain,
        register_tools,
    )

    corpus = load_tooltrain(data, seed=seed)
    rng = random.Random(seed)
    val = corpus.by_source("val")
    irrelevant_pool = [r.query for s in NEGATIVE_SOURCES for r in val.get(s, [])]
    sets: list[CalibrationSet] = []
    for source in sorted(val):
        records = [r for r in val[source] if r.positives]
        if source in NEGATIVE_SOURCES or len(records) < 15:
            continue
        chosen = rng.sample(records, min(len(records), positives))
        router = make_router()
        route_of, _ = register_tools(router, corpus, chosen, distractors=distractors, rng=rng)
        entry = CalibrationSet(f"tooltrain:{source}", router)
        entry.positives = [(r.query, frozenset(route_of[p] for p in r.positives)) for r in chosen]
        for other in OFF_CATALOG_SOURCES:
            if other == source or frozenset({source, other}) in _MEETING:
                continue
            pool = [r.query for r in val.get(other, [])]
            entry.off_catalog += rng.sample(pool, min(len(pool), off_per_source))
        entry.off_catalog += rng.sample(irrelevant_pool, min(len(irrelevant_pool), irrelevant))
        sets.append(entry)
    if bundled:
        from schemarouter.training.datasets.bundled_suite import bundled_catalog_path

        router = make_router()
        router.add_catalog(bundled_catalog_path())
        entry = CalibrationSet("bundled:dev", router)
        dev = load_bundled_queries(split="dev")
        entry.positives = [(q.query, frozenset(q.gold_routes)) for q in dev if not q.is_negative]
        entry.off_catalog = [q.query for q in dev if q.is_negative] + _bundled_negatives()
        sets.append(entry)
    return sets


def _rows(
    router: Any, query: str, gold: frozenset[str], *, rerank: bool, window: int
) -> list[tuple[dict[str, float], int]]:
    """(features, is gold) for the top ``window`` candidates of ``query``."""
    result = router.retrieve(query, k=window, rerank=rerank)
    snapshot = router.snapshot()
    tokens = query_tokens(query)
    out = []
    for c in result.candidates:
        features = relevance_features(
            result.signals,
            dense=c.scores.get("dense", 0.0),
            coverage=coverage(tokens, snapshot.routes[c.route_id]),
            rerank=c.scores.get("rerank") if rerank and result.reranked else None,
        )
        out.append((features, int(c.route_id in gold)))
    return out


def _fit(rows: Sequence[tuple[int, dict[str, float], int]], names: Sequence[str], seed: int):
    from sklearn.linear_model import LogisticRegression

    x = np.array([[f.get(n, 0.0) for n in names] for _, f, _ in rows])
    y = np.array([label for _, _, label in rows])
    model = LogisticRegression(C=1.0, random_state=seed, max_iter=2000)
    model.fit(x, y)
    weights = {n: float(w) for n, w in zip(names, model.coef_[0], strict=True)}
    return weights, float(model.intercept_[0])


def fit_abstention(
    sets: Sequence[CalibrationSet],
    *,
    max_false_abstention: float = 0.03,
    window: int = 5,
    seed: int = 0,
    progress: bool = True,
    encoder: str = "",
    reranker: str = "",
) -> AbstentionModel:
    """Fit both variants on ``sets`` (see the module docstring)."""
    variants: dict[str, Calibration] = {}
    figures: dict[str, Any] = {}
    bar = None
    total = 2 * sum(len(s.positives) + len(s.off_catalog) for s in sets)
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="calibration requests", unit="query", file=sys.stderr)
    for variant, names, rerank in (
        ("reranked", RERANKED_FEATURES, True),
        ("fusion", FUSION_FEATURES, False),
    ):
        # (query id, features, label) per candidate; query ids tie candidates together
        rows: list[tuple[int, dict[str, float], int]] = []
        queries: list[tuple[str, bool]] = []  # (set name, is positive)
        for entry in sets:
            items = [(q, g, True) for q, g in entry.positives]
            items += [(q, frozenset(), False) for q in entry.off_catalog]
            for text, gold, positive in items:
                qid = len(queries)
                queries.append((entry.name, positive))
                for features, label in _rows(
                    entry.router, text, gold, rerank=rerank, window=window
                ):
                    rows.append((qid, features, label))
                if bar is not None:
                    bar.update(1)
        weights, bias = _fit(rows, names, seed)
        probe = Calibration(weights, bias, 0.5)
        best = np.zeros(len(queries))
        for qid, features, _ in rows:
            best[qid] = max(best[qid], probe.probability(features))
        is_pos = np.array([p for _, p in queries])
        ordered = np.sort(best[is_pos])
        allowed = int(np.floor(max_false_abstention * len(ordered)))
        threshold = float(ordered[allowed]) if len(ordered) else 0.5
        variants[variant] = Calibration(weights, bias, threshold)
        per_set: dict[str, Any] = {}
        for entry in sets:
            mask_pos = np.array([n == entry.name and p for n, p in queries])
            mask_neg = np.array([n == entry.name and not p for n, p in queries])
            per_set[entry.name] = {
                "positives": int(mask_pos.sum()),
                "off_catalog": int(mask_neg.sum()),
                "false_abstention": round(float(np.mean(best[mask_pos] < threshold)), 3)
                if mask_pos.any()
                else None,
                "off_catalog_rejected": round(float(np.mean(best[mask_neg] < threshold)), 3)
                if mask_neg.any()
                else None,
            }
        figures[variant] = {
            "threshold": round(threshold, 4),
            "false_abstention": round(float(np.mean(best[is_pos] < threshold)), 3),
            "off_catalog_rejected": round(float(np.mean(best[~is_pos] < threshold)), 3),
            "candidate_rows": len(rows),
            "by_catalog": per_set,
        }
    if bar is not None:
        bar.close()
    texts = sorted(
        {q for s in sets for q, _ in s.positives} | {q for s in sets for q in s.off_catalog}
    )
    card: dict[str, Any] = {
        "purpose": "P(a registered route serves the request) from signals that mean the same "
        "on every catalog; the router abstains when the best candidate is under the threshold",
        "format": 2,
        "scope": "encoder",
        "encoder": encoder,
        "reranker": reranker,
        "features": {"reranked": list(RERANKED_FEATURES), "fusion": list(FUSION_FEATURES)},
        "left_out": dict(LEFT_OUT_FEATURES),
        "command": "python -m schemarouter.training.abstention --out models/abstention.json",
        "window": window,
        "max_false_abstention": max_false_abstention,
        "training_data": {
            "catalogs": [s.name for s in sets],
            "positives": sum(len(s.positives) for s in sets),
            "off_catalog": sum(len(s.off_catalog) for s in sets),
            "description": "tooltrain validation split (tools never trained on) per source, "
            "off-catalog = other sources' requests and bfcl_irrelevance; bundled dev split "
            "with its negatives and calibration_negatives.json. No evaluation suite is read.",
            "hash": fingerprint(texts),
        },
        "calibration": figures,
        "seed": seed,
    }
    fusion = variants["fusion"]
    return AbstentionModel(
        weights=fusion.weights,
        bias=fusion.bias,
        threshold=fusion.threshold,
        card=card,
        reranked=variants["reranked"],
    )


def main(argv: list[str] | None = None) -> int:
    from schemarouter.router import SchemaRouter

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("models/abstention.json"))
    parser.add_argument("--data", default=None, help="shared data folder (default ../shared/data)")
    parser.add_argument("--max-false-abstention", type=float, default=0.03)
    parser.add_argument("--positives", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    from schemarouter.retrieval.rerank import Reranker

    reranker = Reranker.shipped()  # the shipped model, on by default or not (its variant)

    def make_router() -> Any:
        return SchemaRouter(abstention=None, reranker=reranker)

    probe = make_router()
    sets = calibration_sets(make_router, data=args.data, positives=args.positives, seed=args.seed)
    model = fit_abstention(
        sets,
        max_false_abstention=args.max_false_abstention,
        seed=args.seed,
        progress=args.progress,
        encoder=probe.index.encoder.identity,
        reranker=getattr(probe.reranker, "identity", "") or "",
    )
    args.out.write_text(json.dumps(model.to_json(), indent=2) + "\n", "utf-8")
    for variant, row in model.card["calibration"].items():
        print(
            f"{variant}: threshold {row['threshold']:.3f}, false abstention "
            f"{row['false_abstention']:.3f}, off-catalog rejected {row['off_catalog_rejected']:.3f}"
        )
        for name, fig in row["by_catalog"].items():
            print(f"   {name}: {fig}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
