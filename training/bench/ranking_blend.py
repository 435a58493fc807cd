"""How much of the window's order the learned ranking stage should have (run on demand; not a
test): issue #22.

    python -m schemarouter.training.bench.ranking_blend --suites write-intent:dev,bundled:dev,\
tooltrain:val,tooltrain:composed,tooltrain:mixed --blends 0,0.25,0.4,0.5,0.6,0.75,1

For each suite (``name[:split]``: a split of the bundled suite, tooltrain's ``val`` /
``composed`` / ``mixed``, the write-intent set's ``dev`` or ``test`` half, its ``heldout``
set or a user-style check, ``user1`` to ``user3``), the router as the evaluation builds it
(no abstention, no reranker) with the ranking model (``--model``, default the shipped one)
answers every positive request with ``retrieve(k=5)`` once per blend
(:func:`schemarouter.retrieval.learned.blended_keys`; ``0`` is fusion's order, ``1`` the
stage's alone) and prints Recall@5 per blend; with ``--action-weights 0,10,20`` once per
action weight at each blend too (how much of the action rule's change the stage reads:
:attr:`schemarouter.retrieval.learned.RankingModel.action_weight`).
Choose both on development sets only; read the suites once after.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["blend_recall", "main"]


def blend_recall(
    router: Any,
    queries: Sequence[Any],
    model: Any,
    blends: Sequence[float],
    action_weights: Sequence[float] | None = None,
) -> dict[str, float]:
    """Recall@5 of ``router.retrieve(k=5)`` over ``queries`` per blend of ``model`` (``0``:
    the stage off, fusion's order) and, where ``action_weights`` are given, per action
    weight too (keys ``"blend"`` or ``"blend/action_weight"``)."""
    from schemarouter.training import metrics

    out: dict[str, float] = {}
    for blend in blends:
        tried: list[float | None] = [*action_weights] if action_weights and blend > 0 else [None]
        for weight in tried:
            if blend > 0:
                model.blend = blend
            if weight is not None:
                model.action_weight = weight
            router.ranker.ranking_model = model if blend > 0 else None
            found = [
                metrics.recall_at(list(router.retrieve(q.text, k=5).route_ids), q.needs, 5)
                for q in queries
            ]
            key = f"{blend:g}" if weight is None else f"{blend:g}/{weight:g}"
            out[key] = round(sum(found) / len(found), 4) if found else float("nan")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.retrieval.learned import RankingModel
    from schemarouter.training import harness

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", required=True, help="comma-separated name[:split]")
    parser.add_argument("--blends", default="0,0.25,0.4,0.5,0.6,0.75,1")
    parser.add_argument(
        "--action-weights",
        default=None,
        help="comma-separated action weights to try at each blend (default: the card's)",
    )
    parser.add_argument("--model", default=None, help="a ranking model folder (default: shipped)")
    parser.add_argument("--data", default=None, help="the shared data folder")
    parser.add_argument("--metatool-sample", type=int, default=2000)
    args = parser.parse_args(argv)
    model = RankingModel(args.model) if args.model else RankingModel.shipped()
    if model is None:
        parser.error("no shipped ranking model: pass --model FOLDER")
    shipped = model.blend, model.action_weight
    blends = [float(b) for b in args.blends.split(",")]
    weights = [float(w) for w in args.action_weights.split(",")] if args.action_weights else None
    for spec in args.suites.split(","):
        name, _, split = spec.partition(":")
        ns = argparse.Namespace(
            data=args.data,
            metatool_sample=args.metatool_sample,
            split=split or "test",
            tooltrain_split=split or "val",
            beir=None,
            write_intent_set=split if split in ("heldout", "user1", "user2", "user3") else "dev",
        )
        began = time.perf_counter()
        router = harness.make_router()
        bench = harness.load_suite(name, router, ns)
        half = split if name == "write-intent" and split in ("dev", "test") else None
        queries = [q for q in bench.queries if not q.negative and (half is None or q.split == half)]
        row = blend_recall(router, queries, model, blends, weights)
        model.blend, model.action_weight = shipped
        took = time.perf_counter() - began
        print(spec, len(queries), json.dumps(row), f"({took:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
