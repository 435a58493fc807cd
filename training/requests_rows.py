"""A user's labelled requests (:mod:`.requests`) turned into each trainer's own rows, over the
user's catalog registered in a router:

* :func:`request_groups`: ``train-reranker``'s listwise groups (:class:`.pairs.PairGroup`),
  hard negatives mined by :class:`.negatives.NegativeMiner` in that router, as the command
  mines them for its own sets;
* :func:`request_triplets`: ``train-encoder``'s triplets (:class:`.encoder_pairs.Triplet`):
  the index's dense endpoint texts, one hard negative per (request, route) drawn from the
  index's top hits as :mod:`.encoder_pairs` draws them;
* :func:`request_queries`: ``train-ranking``'s and ``eval``'s labelled queries
  (:class:`.datasets.suite.EvalQuery`), and :func:`request_rows`, ``train-ranking``'s
  windows of them;
* :func:`dense_recall`: an encoder's dense-only Recall@k on held-out requests over the
  catalog (``train-encoder``'s validation when ``--requests`` holds some out).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.training.requests import LabelledRequest, request_queries

__all__ = [
    "dense_recall",
    "encoder_request_triplets",
    "request_groups",
    "request_queries",
    "request_rows",
    "request_triplets",
]

SOURCE = "requests"


def request_groups(
    router: Any,
    requests: Sequence[LabelledRequest],
    *,
    negatives: int = 7,
    seed: int = 0,
    progress: bool = False,
) -> list[Any]:
    """One listwise group per (request, route), its negatives mined in ``router``; a request
    whose catalog yields no negative gives none. ``progress``: a bar on stderr."""
    from schemarouter.training.negatives import NegativeMiner
    from schemarouter.training.pairs import PairConfig, _groups_for

    config = PairConfig(train=(), synthetic=(), held_out=(), negatives=negatives, seed=seed)
    miner = NegativeMiner(router, depth=config.depth, seed=seed)
    groups = []
    bar = _bar(progress, requests)
    for r in requests:
        groups += _groups_for(
            miner, r.text, r.routes, source=SOURCE, kind="labelled", config=config
        )
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return groups


def _bar(show: bool, requests: Sequence[LabelledRequest]) -> Any:
    """The bar of mining negatives for ``requests`` (None: not shown)."""
    from schemarouter.training.command import progress_bar

    return progress_bar(
        show and bool(requests), total=len(requests), desc="mining negatives", unit="request"
    )


def request_triplets(
    router: Any,
    requests: Sequence[LabelledRequest],
    *,
    seed: int = 0,
    depth: int = 30,
    progress: bool = False,
) -> tuple[list[Any], int]:
    """``(triplets, pairs without a negative)``: for each (request, route) the route's dense
    text and one hard negative drawn from the index's top :data:`NEGATIVE_POOL` others (a hit
    scoring within :data:`FALSE_NEGATIVE_MARGIN` of the best gold route's positive dense score
    is skipped: likely another right route). ``progress``: a bar on stderr."""
    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.encoder_pairs import (
        FALSE_NEGATIVE_MARGIN,
        NEGATIVE_POOL,
        Triplet,
    )

    routes = router.snapshot().routes
    dense = {rid: endpoint_texts(route)[1] for rid, route in routes.items()}
    rng = random.Random(seed)
    out, missing = [], 0
    bar = _bar(progress, requests)
    for r in requests:
        if bar is not None:
            bar.update(1)
        gold = set(r.routes)
        hits = router.index.search(r.text, k=depth)
        best = max((h.dense_score for h in hits if h.route_id in gold), default=None)
        texts = {dense[g] for g in gold}
        pool = [
            h.route_id
            for h in hits
            if h.route_id not in gold
            and dense[h.route_id] not in texts
            and (not best or best <= 0 or h.dense_score < FALSE_NEGATIVE_MARGIN * best)
        ][:NEGATIVE_POOL]
        for g in r.routes:
            if not pool:
                missing += 1
                continue
            out.append(Triplet(r.text, dense[g], dense[rng.choice(pool)], SOURCE))
    if bar is not None:
        bar.close()
    return out, missing


def dense_recall(
    encode: Callable[[Sequence[str]], np.ndarray],
    router: Any,
    requests: Sequence[LabelledRequest],
    *,
    k: int = 5,
) -> dict[str, Any]:
    """Dense-only Recall@k and Recall@1 of ``encode`` (texts -> L2-normalized rows) on
    ``requests``, every route of the catalog in ``router`` by its dense endpoint text."""
    from schemarouter.index.documents import endpoint_texts

    routes = router.snapshot().routes
    ids = sorted(routes)
    if not requests or not ids:
        return {"requests": 0}
    docs = encode([endpoint_texts(routes[i])[1] for i in ids])
    queries = encode([r.text for r in requests])
    order = np.argsort(-(queries @ docs.T), axis=1)
    at_k, at_1 = [], []
    for r, row in zip(requests, order, strict=True):
        gold = set(r.routes)
        at_k.append(len(gold & {ids[i] for i in row[:k]}) / len(gold))
        at_1.append(len(gold & {ids[row[0]]}) / len(gold))
    return {
        "requests": len(requests),
        "routes": len(ids),
        f"recall@{k}": float(np.mean(at_k)),
        "recall@1": float(np.mean(at_1)),
        "ids_sha256": hashlib.sha256(
            "\n".join(sorted(r.id for r in requests)).encode()
        ).hexdigest(),
    }


def request_rows(
    args: argparse.Namespace, window: int, out: Callable[[str], Any]
) -> tuple[Any, Any, list[Any], dict[str, Any]]:
    """``train-ranking --requests``: the windows of the user's training and held-out
    requests over their catalog (ranked as :func:`.ranking_rows.fusion_router` ranks), the
    held-out requests and what the card says of the file. Held-out windows are measured,
    never fitted."""
    from schemarouter.training.ranking_rows import window_rows
    from schemarouter.training.requests import read_requests, requests_router

    router = requests_router(
        args,
        ranking=None,
        multi_intent=False,
        prerequisites=False,
        progress=None if args.progress else False,
    )
    try:
        _, train, held, about = read_requests(args, router, out)
        rows = window_rows(
            router, request_queries(train, split="train"), window=window, suite="requests",
            progress=args.progress,
        )  # fmt: skip
        measured = window_rows(
            router, request_queries(held), window=window, suite="requests-heldout",
            progress=args.progress,
        )  # fmt: skip
        about = {**about, "routes": len(router.snapshot().routes)}
    finally:
        router.close()
    rows.about = about
    return rows, measured, held, about


def encoder_request_triplets(
    args: argparse.Namespace, work: Path, out: Callable[[str], Any]
) -> tuple[list[Any], dict[str, Any], Path, Any, list[Any]]:
    """``train-encoder --requests``: triplets of the user's training requests over their
    catalog (hard negatives from that catalog's index, saved in the work folder); the router
    and the held-out requests come back for the validation."""
    from schemarouter.errors import DocumentError
    from schemarouter.training.encoder_pairs import save_triplets
    from schemarouter.training.evaluate_ood import named_encoder
    from schemarouter.training.requests import read_requests, requests_router

    miner = named_encoder(args.mining_encoder)
    router = requests_router(args, encoder=miner, multi_intent=False, prerequisites=False)
    try:
        _, train, held, about = read_requests(args, router, out)
        triplets, missing = request_triplets(
            router, train, seed=args.seed, progress=getattr(args, "progress", False)
        )
    except BaseException:
        router.close()
        raise
    if missing:
        out(f"warning: {missing} (request, route) pair(s) found no hard negative: left out")
    if not triplets:
        router.close()
        raise DocumentError(
            "no triplet to train on: no request found a negative in the catalog",
            where=str(args.requests),
            hint="Give a catalog with more routes, or more requests",
        )
    manifest = {
        "requests": about,
        "triplets": len(triplets),
        "without_negative": missing,
        "encoder_for_mining": miner.identity,
    }
    path = work / "triplets.jsonl"
    save_triplets(path, triplets, manifest)
    return triplets, manifest, path, router, held
