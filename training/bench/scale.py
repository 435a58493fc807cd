"""Where a large catalog fits on one machine (run on demand; not a test): issue #26.

    python -m schemarouter.training.bench.scale [--sizes 10000,30000,100000]
        [--extrapolate 1000000] [--max-rss-gib 8] [--out DIR]

For each size, in a fresh subprocess (so its peak RSS is its own), on a catalog from
:mod:`schemarouter.training.datasets.recombined`: register it (one registration), build the
in-process index with ``HashingEncoder(384)`` (the shipped encoder's embedding time is
measured separately by :mod:`.hnsw`; this measures the index), and report

* build seconds per stage (``HybridIndex.timings``: documents, lexical, embed, vectors,
  bm25, faiss, tables);
* memory: float32 vectors, the FAISS indexes (serialized size: graph + codes), BM25 term
  counts and weights (CSR arrays), the document tables, and the process's peak RSS;
* ``SchemaRouter.retrieve(k=5, rerank=False)`` p50 / p95 over real G1 and MetaTool queries
  (first query excluded: it builds the per-snapshot lookup tables);
* dense recall@50 of the endpoint vector set's search (HNSW above the threshold) against
  exact search, for the same queries.

Then fits each figure over the measured sizes (least squares, ``a + b * n``; ``n log n``
for the HNSW build) and prints the extrapolation to ``--extrapolate`` routes, marked as
such. ``--out`` writes ``scale.json`` and ``scale.png`` (memory and latency against size).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main", "measure"]


def _nbytes(*arrays: Any) -> int:
    return int(sum(getattr(a, "nbytes", 0) for a in arrays))


def _memory(index: Any) -> dict[str, float]:
    mib = 2.0**20
    ep, fv = index._vectors
    lexical = index._lexical
    tf, weights = lexical._tf, lexical._weights
    faiss_bytes = 0
    for vs in (ep, fv):
        blob = vs.faiss_bytes()
        faiss_bytes += len(blob) if blob is not None else 0
    tables = _nbytes(
        index._doc_route, index._doc_kind, index._doc_field, index._doc_vec, index._doc_weight
    )
    return {
        "vectors_mib": round(_nbytes(ep.vectors, fv.vectors) / mib, 1),
        "faiss_hnsw_mib": round(faiss_bytes / mib, 1),
        "bm25_mib": round(
            _nbytes(tf.data, tf.indices, tf.indptr, weights.data, weights.indices, weights.indptr)
            / mib,
            1,
        ),
        "doc_tables_mib": round(tables / mib, 1),
    }


def measure(size: int, *, data: Path, n_queries: int) -> dict[str, Any]:
    """One size, in this process."""
    from schemarouter.contracts import Registration
    from schemarouter.index import HashingEncoder, HybridIndex
    from schemarouter.index.build import peak_rss_mib
    from schemarouter.index.encoders.dense import encode_request
    from schemarouter.registry.registry import Registry
    from schemarouter.router import SchemaRouter
    from schemarouter.training.bench.index import sample_queries
    from schemarouter.training.datasets.recombined import load_pool, synth_providers

    row: dict[str, Any] = {"routes": size}
    t0 = time.perf_counter()
    routes = [r for p in synth_providers(size, seed=0, pool=load_pool(data)) for r in p.routes()]
    row["generate_s"] = round(time.perf_counter() - t0, 1)
    registry = Registry()
    t0 = time.perf_counter()
    registry.register(Registration(source="synth", routes=tuple(routes)))
    row["register_s"] = round(time.perf_counter() - t0, 2)
    row["rss_before_index_mib"] = round(peak_rss_mib(), 1)
    encoder = HashingEncoder(384)
    t0 = time.perf_counter()
    index = HybridIndex.build(registry.snapshot(), encoder=encoder)
    row["build_s"] = round(time.perf_counter() - t0, 1)
    row["stages_s"] = {k: round(v, 1) for k, v in index.timings.items()}
    row.update(index.describe())
    row["memory"] = _memory(index)
    row["rss_after_index_mib"] = round(peak_rss_mib(), 1)
    router = SchemaRouter(
        registry=registry, encoder=encoder, index=index, abstention=None, reranker=None
    )
    queries = sample_queries(data, n_queries + 1, seed=1)
    router.retrieve(queries[0], k=5, rerank=False)
    times = []
    for q in queries[1:]:
        t1 = time.perf_counter()
        router.retrieve(q, k=5, rerank=False)
        times.append(time.perf_counter() - t1)
    ms = np.asarray(times) * 1000
    row["retrieve_k5_ms"] = {
        "p50": round(float(np.percentile(ms, 50)), 1),
        "p95": round(float(np.percentile(ms, 95)), 1),
        "queries": len(times),
    }
    ep = index._vectors[0]
    overlap, tie_aware = [], []
    for q in queries[1:]:
        vector = encode_request(encoder, q)
        found, _ = ep.search(vector, 50)
        truth, sims = ep.exact_search(vector, 50)
        overlap.append(len(set(found.tolist()) & set(truth.tolist())) / max(len(truth), 1))
        # a found vector as near as the exact 50th counts: hashing vectors tie a lot, and
        # which of many equally near vectors exact search lists is arbitrary
        if len(truth):
            exact = ep.vectors[found] @ np.asarray(vector, dtype=np.float32)
            tie_aware.append(min(1.0, float(np.sum(exact >= sims[-1] - 1e-5)) / len(truth)))
    row["dense_recall_at_50"] = round(float(np.mean(overlap)), 4)
    row["dense_recall_at_50_ties"] = round(float(np.mean(tie_aware)), 4)
    row["peak_rss_mib"] = round(peak_rss_mib(), 1)
    return row


def _fit(sizes: list[int], values: list[float], target: int, *, nlogn: bool = False) -> float:
    x = np.asarray(sizes, dtype=float)
    if nlogn:
        x = x * np.log(x)
        t = target * np.log(target)
    else:
        t = float(target)
    b, a = np.polyfit(x, np.asarray(values, dtype=float), 1)
    return round(float(a + b * t), 1)


def extrapolate(rows: list[dict[str, Any]], target: int) -> dict[str, Any]:
    """Least-squares fits over the measured sizes, evaluated at ``target`` routes."""
    sizes = [r["routes"] for r in rows]
    out: dict[str, Any] = {"routes": target, "extrapolated": True, "from_sizes": sizes}
    for key in ("vectors_mib", "faiss_hnsw_mib", "bm25_mib", "doc_tables_mib"):
        out[key] = _fit(sizes, [r["memory"][key] for r in rows], target)
    out["peak_rss_mib"] = _fit(sizes, [r["peak_rss_mib"] for r in rows], target)
    out["documents"] = int(_fit(sizes, [r["documents"] for r in rows], target))
    stages = rows[-1]["stages_s"]
    out["stages_s"] = {
        k: _fit(sizes, [r["stages_s"].get(k, 0.0) for r in rows], target, nlogn=k == "faiss")
        for k in stages
    }
    out["build_s"] = round(sum(out["stages_s"].values()), 1)
    return out


def _plot(rows: list[dict[str, Any]], guess: dict[str, Any] | None, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (mem, lat) = plt.subplots(1, 2, figsize=(10, 4))
    sizes = [r["routes"] for r in rows]
    for key, label in (
        ("vectors_mib", "float32 vectors"),
        ("faiss_hnsw_mib", "FAISS HNSW (graph + codes)"),
        ("bm25_mib", "BM25 counts + weights"),
    ):
        line = mem.plot(sizes, [r["memory"][key] for r in rows], marker="o", label=label)
        if guess:
            mem.plot([sizes[-1], guess["routes"]], [rows[-1]["memory"][key], guess[key]],
                     linestyle="--", color=line[0].get_color())  # fmt: skip
    line = mem.plot(sizes, [r["peak_rss_mib"] for r in rows], marker="s", label="peak RSS")
    if guess:
        mem.plot([sizes[-1], guess["routes"]], [rows[-1]["peak_rss_mib"], guess["peak_rss_mib"]],
                 linestyle="--", color=line[0].get_color())  # fmt: skip
    mem.set_xscale("log")
    mem.set_yscale("log")
    mem.set_xlabel("routes (dashed: extrapolated)")
    mem.set_ylabel("MiB")
    mem.legend(fontsize=8)
    lat.plot(sizes, [r["retrieve_k5_ms"]["p50"] for r in rows], marker="o", label="p50")
    lat.plot(sizes, [r["retrieve_k5_ms"]["p95"] for r in rows], marker="o", label="p95")
    lat.set_xscale("log")
    lat.set_xlabel("routes")
    lat.set_ylabel("retrieve(k=5) ms")
    lat.legend(fontsize=8)
    fig.suptitle("In-process index, HashingEncoder(384), 2 shared CPU cores (loaded)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.training.datasets.shared_data import shared_data_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None)
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--extrapolate", type=int, default=1_000_000)
    parser.add_argument("--max-rss-gib", type=float, default=8.0, help="ulimit -v per size")
    parser.add_argument("--out", default=None)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    data = shared_data_dir(args.data)
    if args.one is not None:
        print(json.dumps(measure(args.one, data=data, n_queries=args.queries)), flush=True)
        return 0
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        limit_kib = int(args.max_rss_gib * 2**20)
        cmd = (
            f"ulimit -v {limit_kib}; exec {sys.executable} -m schemarouter.training.bench.scale "
            f"--one {size} --data {data} --queries {args.queries}"
        )
        done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{size}: failed ({done.stderr.strip().splitlines()[-1:]})", flush=True)
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)
    guess = extrapolate(rows, args.extrapolate) if len(rows) >= 3 and args.extrapolate else None
    if guess:
        print(json.dumps(guess), flush=True)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "scale.json").write_text(json.dumps({"measured": rows, "guess": guess}, indent=1))
        if rows:
            _plot(rows, guess, out / "scale.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
