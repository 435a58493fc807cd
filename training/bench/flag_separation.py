"""How far the off-catalog flag can separate (run on demand; not a test): issue #22.

    python -m schemarouter.training.bench.flag_separation [--metatool-sample 500] [--out DIR]

For each suite's catalog (StableToolBench G1, MetaTool single and multi, RestBench TMDB, the
bundled test split), the router as shipped with the shipped abstention model answers the
suite's own requests (positives) and a seeded sample of the other suites' requests (the
evaluation harness's off-catalog pool). It prints, per catalog:

* the flag rates at the shipped threshold (positives flagged, others flagged);
* for two scores, the calibrated ``confidence`` and the best candidate's raw ``dense`` cosine,
  the ROC AUC of positives against the others, and what the *best threshold for that catalog
  alone* would reach: others flagged while at most 5% of positives are, and positives flagged
  while at least 80% of the others are. That threshold is an oracle (chosen on the answers it
  is measured on), an upper bound for any per-catalog recalibration of the same score.

``--cross-encoder`` adds a third score: the shipped cross-encoder's logit for the best
candidate (``rerank``), one pair per request. With ``--out``, writes ``flag_separation.json``
(every request's scores and flag).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main", "separation"]

SUITES = ("stabletoolbench", "metatool-single", "metatool-multi", "restbench", "bundled")


def separation(positives: Sequence[float], others: Sequence[float]) -> dict[str, float]:
    """AUC of ``positives`` over ``others`` (higher is more relevant) and the oracle rates."""
    pos = np.asarray(positives, dtype=float)
    neg = np.asarray(others, dtype=float)
    above = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    at_5 = np.quantile(pos, 0.05)  # flags at most 5% of positives
    at_80 = np.quantile(neg, 0.80)  # flags at least 80% of the others
    return {
        "auc": round(float(above), 3),
        "others_flagged_at_5pct_positives": round(float((neg < at_5).mean()), 3),
        "positives_flagged_at_80pct_others": round(float((pos < at_80).mean()), 3),
    }


def _answer(router: Any, text: str, cross: Any = None) -> dict[str, Any]:
    found = router.retrieve(text, k=5)
    best = found.candidates[0] if found.candidates else None
    out = {
        "confidence": found.confidence,
        "dense": best.scores.get("dense", 0.0) if best is not None else 0.0,
        "flagged": bool(found.off_catalog),
    }
    if cross is not None and best is not None:
        route = router.snapshot().routes[best.route_id]
        out["rerank"] = float(cross.score(text, [cross.route_text(route)])[0])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.retrieval.abstention import AbstentionModel
    from schemarouter.training import harness
    from schemarouter.training.evaluate_ood import off_catalog_pool, off_catalog_requests

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="the shared data folder")
    parser.add_argument("--metatool-sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cross-encoder", action="store_true", help="also the reranker's logit")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    args.split, args.tooltrain_split, args.beir = "test", "val", None
    model = AbstentionModel.shipped()
    if model is None:
        print("no shipped abstention model", file=sys.stderr)
        return 1
    cross = None
    if args.cross_encoder:
        from schemarouter.retrieval.rerank import Reranker

        cross = Reranker.shipped()
    scores = ("confidence", "dense", "rerank") if cross is not None else ("confidence", "dense")
    pool = off_catalog_pool(SUITES, args)
    report: dict[str, Any] = {}
    for name in SUITES:
        router = harness.make_router()
        bench = harness.load_suite(name, router, args)
        router.abstention = model
        pos = [_answer(router, q.text, cross) for q in bench.queries if not q.negative]
        neg = [_answer(router, t, cross) for t in off_catalog_requests(pool, name)]
        row: dict[str, Any] = {
            "positives": len(pos),
            "others": len(neg),
            "positives_flagged": round(float(np.mean([a["flagged"] for a in pos])), 3),
            "others_flagged": round(float(np.mean([a["flagged"] for a in neg])), 3),
        }
        for score in scores:
            row[score] = separation(
                [float(a.get(score) or 0.0) for a in pos], [float(a.get(score) or 0.0) for a in neg]
            )
        print(name, json.dumps(row), flush=True)
        report[name] = {**row, "answers": {"positives": pos, "others": neg}}
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "flag_separation.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
