"""Latency passes of the evaluation: fixed probe queries on every catalog, and on generated
catalogs of growing size (:mod:`schemarouter.training.datasets.synthetic`)."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

from schemarouter.training import metrics as M
from schemarouter.training.baselines import (
    BM25Retriever,
    IndexRetriever,
    Retriever,
    RouterRetriever,
)
from schemarouter.training.datasets.suite import shared_data_dir

__all__ = ["DEPTH", "PROBE_QUERIES", "probe_latency", "probe_queries", "synthetic_latency"]

#: Ranks kept per query (as the evaluation's).
DEPTH = 10
#: Probe queries per catalog for latency against catalog size.
PROBE_QUERIES = 50


def probe_latency(
    retrievers: Sequence[Retriever], probe: Sequence[str], size: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"routes": size}
    for retriever in retrievers:
        if retriever.name == "hybrid-index":
            continue
        times = []
        for text in probe:
            t0 = time.perf_counter()
            retriever.rank(text, DEPTH)
            times.append((time.perf_counter() - t0) * 1000)
        out[retriever.name] = M.percentiles(times)
    return out


def synthetic_latency(
    size: int, args: argparse.Namespace, encoder: Any, probe: Sequence[str], reranker: Any = None
) -> dict[str, Any]:
    """Latency on a generated catalog of ``size`` routes (see ``datasets.synthetic``)."""
    from schemarouter.training.datasets.synthetic import register_synthetic
    from schemarouter.training.harness import make_router

    router = make_router(encoder, cache=args.cache, reranker=reranker)
    info = register_synthetic(router, size, seed=args.seed, data=args.data)
    t0 = time.perf_counter()
    router.index  # noqa: B018 - builds the index
    build_s = time.perf_counter() - t0
    snapshot = router.snapshot()
    retrievers: list[Retriever] = [
        BM25Retriever(snapshot),
        IndexRetriever(router, "dense"),
        RouterRetriever(router, name="hybrid"),
    ]
    if reranker is not None:
        retrievers.append(RouterRetriever(router, name="hybrid+rerank", rerank=True))
    out = probe_latency(retrievers, probe, len(snapshot.routes))
    return {**out, **info, "index_build_s": build_s}


def probe_queries(args: argparse.Namespace) -> list[str]:
    """Fixed probe queries (a seeded sample of StableToolBench G1), else a few built-ins."""
    path = shared_data_dir(args.data) / "stabletoolbench" / "G1_instruction.json"
    if path.exists():
        texts = sorted({item["query"] for item in json.loads(path.read_text(encoding="utf-8"))})
        return random.Random(args.seed).sample(texts, min(PROBE_QUERIES, len(texts)))
    return ["band gap of silicon", "weather forecast for Paris", "search movies by title"]
