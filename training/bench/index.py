"""Index benchmark on generated catalogs (run on demand; not a test).

    python -m schemarouter.training.bench.index [--sizes 1000,10000,100000] [--out /tmp/sr-bench]

For each size, in a fresh subprocess (so peak RSS is that size's own), on a catalog from
:mod:`schemarouter.training.datasets.recombined`: cold build (empty embedding cache), warm build
(same cache), embedding throughput, size on disk, load time, p50 / p95 latency of lexical-only,
dense-only and hybrid top-50 search (query embedding included) over real queries (StableToolBench G1
and MetaTool), ``rank_bm25.BM25Okapi`` latency on the same documents for the ratio, HNSW
recall@50 against exact search at efSearch 64 / 128 / 256, and incremental registration,
replacement and removal of a 50-endpoint provider. Prints a table, writes
``results.json`` and ``latency.png`` under ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.contracts import AccessKind, AccessPath, Provider, Registration, Route
from schemarouter.index.build import peak_rss_mib
from schemarouter.index.documents import route_documents
from schemarouter.index.encoders.defaults import default_encoder
from schemarouter.index.hybrid import HybridIndex
from schemarouter.index.tokenize import tokenize
from schemarouter.registry.registry import Registry
from schemarouter.training.datasets.recombined import load_pool, synth_providers
from schemarouter.training.datasets.shared_data import load_g1, load_metatool, shared_data_dir

__all__ = ["bench_one", "main", "sample_queries"]


def _pct(values: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(values) * 1000.0
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
    }


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def sample_queries(data: Path, n: int, seed: int) -> list[str]:
    """``n`` distinct G1 and MetaTool requests, drawn by ``seed`` (the benchmarks' queries)."""
    texts = [q for q, _ in load_g1(data)[1]] + [q for q, _ in load_metatool(data)[1]]
    return random.Random(seed).sample(sorted(set(texts)), n)


def _disk_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _probe_provider(data: Path, tag: str, description_suffix: str = "") -> list[Route]:
    """50 real endpoints (the largest OpenAPI document) under a new provider."""
    apis, _ = load_pool(data)
    template = max((a for a in apis if a.source == "openapi"), key=lambda a: len(a.endpoints))
    provider = Provider(id=f"bench-probe-{tag}", display_name=f"Probe {tag} Cloud")
    access = AccessPath(id="rest", kind=AccessKind.OPENAPI, base_url="https://probe.example.com")
    routes = []
    for endpoint in template.endpoints[:50]:
        if description_suffix:
            endpoint = endpoint.model_copy(
                update={"description": endpoint.description + description_suffix}
            )
        routes.append(Route.build(provider, access, endpoint, source="bench"))
    return routes


def bench_one(size: int, out: Path, *, data: Path, n_queries: int, bm25_queries: int) -> dict:
    result: dict[str, Any] = {"routes": size}
    pool = load_pool(data)
    providers, t = _timed(lambda: synth_providers(size, seed=0, pool=pool))
    routes = [r for p in providers for r in p.routes()]
    registry = Registry()
    registry.register(Registration(source="synth", routes=tuple(routes)))
    snapshot = registry.snapshot()
    result["generate_register_s"] = round(t, 2)
    encoder = default_encoder()
    cache_dir = out / f"cache-{size}"
    shutil.rmtree(cache_dir, ignore_errors=True)

    index, t = _timed(lambda: HybridIndex.build(snapshot, encoder=encoder, cache=cache_dir))
    embed = index.last_embed
    result.update(
        cold_build_s=round(t, 2),
        documents=index.n_documents,
        texts_embedded=embed.encoded,
        embed_s=round(embed.seconds, 2),
        embed_texts_per_s=round(embed.encoded / embed.seconds, 1) if embed.seconds else None,
        describe=index.describe(),
        peak_rss_after_cold_build_mib=round(peak_rss_mib(), 1),
    )
    del index
    gc.collect()
    index, t = _timed(lambda: HybridIndex.build(snapshot, encoder=encoder, cache=cache_dir))
    result.update(warm_build_s=round(t, 2), warm_texts_embedded=index.last_embed.encoded)
    folder = out / f"index-{size}"
    _, t = _timed(lambda: index.save(folder))
    result.update(save_s=round(t, 2), disk_mib=round(_disk_size(folder) / 2**20, 1))
    del index
    gc.collect()
    index, t = _timed(lambda: HybridIndex.load(folder, snapshot, encoder=encoder))
    result["load_s"] = round(t, 2)
    result["peak_rss_mib"] = round(peak_rss_mib(), 1)

    queries = sample_queries(data, n_queries, seed=1)
    for q in queries[:5]:
        index.search(q, k=50)
    for mode in ("lexical", "dense", "hybrid"):
        times = [_timed(partial(index.search, q, k=50, mode=mode))[1] for q in queries]
        result[f"{mode}_top50"] = _pct(times)

    # HNSW recall@50 against exact search, on the endpoint vectors.
    vs = index._vectors[0]
    vectors = encoder.encode(queries)
    exact = [set(vs.exact_search(v, 50)[0].tolist()) for v in vectors]
    result["endpoint_index"] = vs.kind
    flat_times = [_timed(partial(vs.exact_search, v, 50))[1] for v in vectors[:50]]
    result["exact_numpy_search"] = _pct(flat_times)
    if vs.kind == "hnsw":
        default_ef = vs.ef_search
        for ef in (64, 128, 256):
            vs.ef_search = ef
            found, times = [], []
            for v, truth in zip(vectors, exact, strict=True):
                (rows, _), t = _timed(partial(vs.search, v, 50))
                found.append(len(truth.intersection(rows.tolist())) / max(1, len(truth)))
                times.append(t)
            result[f"hnsw_ef{ef}"] = {
                "recall_at_50": round(float(np.mean(found)), 4),
                **_pct(times),
            }
        vs.ef_search = default_ef

    # Incremental registration, replacement and removal of a 50-endpoint provider.
    probe = _probe_provider(data, "a")
    registry.register(Registration(source="probe", routes=tuple(probe)))
    stats, t = _timed(lambda: index.apply(registry.snapshot()))
    result["incremental_add_50_s"] = round(t, 3)
    result["incremental_add_texts_embedded"] = stats.encoded
    changed = _probe_provider(data, "a", " (revised)")
    registry.register(Registration(source="probe", routes=tuple(changed)), replace=True)
    _, t = _timed(lambda: index.apply(registry.snapshot()))
    result["incremental_replace_50_s"] = round(t, 3)
    registry.remove(provider="bench-probe-a")
    _, t = _timed(lambda: index.apply(registry.snapshot()))
    result["incremental_remove_50_s"] = round(t, 3)
    gone = {r.route_id for r in probe}
    leaked = [h.route_id for q in queries[:20] for h in index.search(q, k=50) if h.route_id in gone]
    result["removed_routes_returned"] = len(leaked)

    # rank_bm25 on the same documents, and our scorer on the same queries.
    from rank_bm25 import BM25Okapi

    settings = index.settings
    docs = [
        tokenize(d.text, settings.tokenizer)
        for r in snapshot
        for d in route_documents(r, settings.limits)
    ]
    reference, t = _timed(lambda: BM25Okapi(docs))
    result["rank_bm25_build_s"] = round(t, 2)
    lexical = index._lexical
    sample = [tokenize(q, settings.tokenizer) for q in queries[:bm25_queries]]
    ref_times, our_times, agree = [], [], 0
    for tokens in sample:
        ref, t = _timed(partial(reference.get_scores, tokens))
        ref_times.append(t)
        mine, t = _timed(partial(lexical.scores, tokens))
        our_times.append(t)
        if mine is not None:
            mine = mine[: len(ref)]  # the probe provider is gone: same rows
            agree += int(np.allclose(np.sort(ref)[-50:], np.sort(mine)[-50:]))
    result["rank_bm25_scores"] = _pct(ref_times)
    result["vectorized_bm25_scores"] = _pct(our_times)
    result["bm25_top50_scores_agree"] = f"{agree}/{len(sample)}"
    ours = max(1e-9, result["vectorized_bm25_scores"]["p50_ms"])
    result["speedup_vs_rank_bm25"] = round(result["rank_bm25_scores"]["p50_ms"] / ours, 1)
    result["peak_rss_end_mib"] = round(peak_rss_mib(), 1)
    return result


def _plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["routes"] for r in results]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key, label in (
        ("lexical_top50", "lexical (BM25, sparse)"),
        ("dense_top50", "dense (MiniLM int8 + FAISS)"),
        ("hybrid_top50", "hybrid"),
        ("rank_bm25_scores", "rank_bm25 get_scores"),
    ):
        ax.plot(sizes, [r[key]["p50_ms"] for r in results], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("routes in catalog")
    ax.set_ylabel("p50 latency per query (ms)")
    ax.set_title("SchemaRouter index: top-50 latency, 2 CPU cores")
    ax.axhline(15, color="grey", linestyle="--", linewidth=0.8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _table(results: list[dict]) -> str:
    rows = [
        ("cold build (s)", lambda r: r["cold_build_s"]),
        ("warm build (s)", lambda r: r["warm_build_s"]),
        ("documents", lambda r: r["documents"]),
        ("texts embedded (cold)", lambda r: r["texts_embedded"]),
        ("embedding texts/s", lambda r: r["embed_texts_per_s"]),
        ("index on disk (MiB)", lambda r: r["disk_mib"]),
        ("load (s)", lambda r: r["load_s"]),
        ("peak RSS (MiB)", lambda r: r["peak_rss_mib"]),
        ("lexical top-50 p50/p95 ms", lambda r: "{p50_ms}/{p95_ms}".format(**r["lexical_top50"])),
        ("dense top-50 p50/p95 ms", lambda r: "{p50_ms}/{p95_ms}".format(**r["dense_top50"])),
        ("hybrid top-50 p50/p95 ms", lambda r: "{p50_ms}/{p95_ms}".format(**r["hybrid_top50"])),
        ("rank_bm25 scores p50 ms", lambda r: r["rank_bm25_scores"]["p50_ms"]),
        ("vectorized BM25 p50 ms", lambda r: r["vectorized_bm25_scores"]["p50_ms"]),
        ("speed-up vs rank_bm25", lambda r: r["speedup_vs_rank_bm25"]),
        ("endpoint vector index", lambda r: r["endpoint_index"]),
        (
            "HNSW recall@50 ef64/128/256",
            lambda r: "/".join(
                str(r.get(f"hnsw_ef{e}", {}).get("recall_at_50", "-")) for e in (64, 128, 256)
            ),
        ),
        ("add 50-endpoint provider (s)", lambda r: r["incremental_add_50_s"]),
        ("replace it (s)", lambda r: r["incremental_replace_50_s"]),
        ("remove it (s)", lambda r: r["incremental_remove_50_s"]),
    ]
    lines = [f"{'':32}" + "".join(f"{r['routes']:>16,}" for r in results)]
    for label, get in rows:
        lines.append(f"{label:32}" + "".join(f"{get(r)!s:>16}" for r in results))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--out", default="/tmp/schemarouter-bench")
    parser.add_argument("--data", default=None)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--bm25-queries", type=int, default=20)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = shared_data_dir(args.data)
    if not data.exists():
        print(f"shared data not found at {data}; pass --data or set SCHEMAROUTER_SHARED_DATA")
        return 2
    if args.one is not None:
        result = bench_one(
            args.one, out, data=data, n_queries=args.queries, bm25_queries=args.bm25_queries
        )
        (out / f"result-{args.one}.json").write_text(json.dumps(result, indent=1))
        return 0
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        cmd = [
            sys.executable,
            "-m",
            "schemarouter.training.bench.index",
            "--one",
            str(size),
            "--out",
            str(out),
            "--data",
            str(data),
            "--queries",
            str(args.queries),
            "--bm25-queries",
            str(args.bm25_queries),
        ]
        print(f"[{time.strftime('%H:%M:%S')}] {size:,} routes ...", flush=True)
        subprocess.run(cmd, check=True)
        results.append(json.loads((out / f"result-{size}.json").read_text()))
        print(json.dumps(results[-1], indent=1), flush=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    _plot(results, out / "latency.png")
    print(_table(results))
    print(f"\nresults: {out / 'results.json'}  plot: {out / 'latency.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
