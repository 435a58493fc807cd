"""The Milvus index backend against the in-process index (a script, run on demand; not a test).

::

    python -m schemarouter.training.bench.milvus parity --out out/milvus-parity
    python -m schemarouter.training.bench.milvus scale --sizes 100000,1000000 --out out/milvus-scale

**parity**: StableToolBench G1, MetaTool (single tool, the harness's 2,000-query sample) and
RestBench TMDB are registered through the evaluation harness's loaders
(:func:`schemarouter.training.evaluate.load_suite`); every positive query is ranked by
``SchemaRouter.retrieve(k=5)`` over the in-process index and over a Milvus Lite collection
with each fusion (``router``, ``rrf``, ``weighted``), the same encoder (the default one,
whatever ``default_encoder()`` is on this commit) and no reranker; then the in-process and
the ``router``-fusion Milvus routers again with the shipped reranker. Recall@5 (share of
needs met, as the harness computes it) and p50 / p95 latency per query.

**scale**: generated catalogs (:mod:`schemarouter.training.datasets.recombined`) of each size, each
backend in fresh subprocesses so peak RSS is its own: build (register, embed, write; for Milvus the
collection on a Milvus Lite file), then ``retrieve(k=5, rerank=False)`` over real G1 and
MetaTool queries (for Milvus in another process that opens the built collection, as a
router replica would). The encoder is the deterministic :class:`HashingEncoder` at 384
dimensions (MiniLM's size): embedding a million documents with the real encoder costs
CPU hours on two cores and measures the encoder, not the index. A watchdog stops a run
whose RSS passes ``--max-rss-gib`` or that runs past ``--max-minutes`` and records that.
Writes ``results.json`` and ``scale.png`` (or ``parity.json``) under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["main", "parity", "scale"]

FUSIONS = ("router", "rrf", "weighted")
PARITY_SUITES = ("stabletoolbench", "metatool-single", "restbench")


def _ms(values: list[float]) -> dict[str, float]:
    from schemarouter.training.metrics import percentiles

    return {f"{k}_ms": round(1000 * v, 1) for k, v in percentiles(values).items()}


def _recall(router: Any, queries: list[Any], *, rerank: bool) -> dict[str, Any]:
    from schemarouter.training import metrics as M

    recalls, times = [], []
    router.retrieve(queries[0].text, k=5, rerank=rerank)  # warm up (index, reranker)
    for q in queries:
        t0 = time.perf_counter()
        ranked = list(router.retrieve(q.text, k=5, rerank=rerank).route_ids)
        times.append(time.perf_counter() - t0)
        recalls.append(M.recall_at(ranked, q.needs, 5))
    finite = [r for r in recalls if not math.isnan(r)]
    return {"r@5": round(sum(finite) / len(finite), 4), "queries": len(finite), **_ms(times)}


def parity(args: argparse.Namespace) -> dict[str, Any]:
    from schemarouter.index import MilvusIndex, default_encoder
    from schemarouter.retrieval.rerank import Reranker
    from schemarouter.router import SchemaRouter
    from schemarouter.training.evaluate import load_suite, make_router

    out = Path(args.out)
    lite = out / "parity.db"
    shutil.rmtree(lite, ignore_errors=True)
    encoder = default_encoder()
    reranker = Reranker.shipped() if args.rerank else None
    results: dict[str, Any] = {"encoder": encoder.identity, "suites": {}}
    for suite in args.suites.split(","):
        base = make_router(encoder)
        bench = load_suite(suite, base, args)
        queries = [q for q in bench.queries if q.needs]
        row: dict[str, Any] = {"routes": len(bench.snapshot), "inprocess": {}}
        row["inprocess"]["fusion"] = _recall(base, queries, rerank=False)
        for fusion in args.fusions.split(","):
            index = MilvusIndex(
                str(lite), collection=f"{suite.replace('-', '_')}_{fusion}", fusion=fusion
            )
            router = SchemaRouter(
                registry=base.registry,
                encoder=encoder,
                index=index,
                abstention=None,
                reranker=None,
            )
            row[f"milvus-{fusion}"] = {"fusion": _recall(router, queries, rerank=False)}
            if reranker is not None and fusion == "router":
                router.reranker = reranker
                row["milvus-router"]["rerank"] = _recall(router, queries, rerank=True)
        if reranker is not None:
            base.reranker = reranker
            row["inprocess"]["rerank"] = _recall(base, queries, rerank=True)
        results["suites"][suite] = row
        print(json.dumps({suite: row}, indent=1), flush=True)
    (out / "parity.json").write_text(json.dumps(results, indent=1))
    return results


# -- scale -------------------------------------------------------------------------------


def _snapshot(size: int, data: Any) -> Any:
    from schemarouter.contracts import Registration
    from schemarouter.registry.registry import Registry
    from schemarouter.training.datasets.recombined import load_pool, synth_providers

    routes = [r for p in synth_providers(size, seed=0, pool=load_pool(data)) for r in p.routes()]
    registry = Registry()
    registry.register(Registration(source="synth", routes=tuple(routes)))
    return registry


def run_one(backend: str, phase: str, size: int, out: Path, n_queries: int) -> dict[str, Any]:
    """One measurement in this process (the parent runs each in a subprocess)."""
    from schemarouter.index import HashingEncoder, HybridIndex, MilvusIndex
    from schemarouter.index.build import peak_rss_mib
    from schemarouter.router import SchemaRouter
    from schemarouter.training.bench.index import sample_queries
    from schemarouter.training.datasets.shared_data import shared_data_dir

    data = shared_data_dir(None)
    start = time.perf_counter()
    registry = _snapshot(size, data)
    snapshot = registry.snapshot()
    result: dict[str, Any] = {"backend": backend, "phase": phase, "routes": size}
    result["register_s"] = round(time.perf_counter() - start, 1)
    encoder = HashingEncoder(384)
    lite = out / f"lite-{size}.db"
    t0 = time.perf_counter()
    if backend == "milvus" and phase == "build":
        shutil.rmtree(lite, ignore_errors=True)
        index: Any = MilvusIndex(str(lite), encoder=encoder).rebuild(snapshot, progress=True)
    elif backend == "milvus":
        index = MilvusIndex(str(lite), encoder=encoder).open(snapshot)
    else:
        index = HybridIndex.build(snapshot, encoder=encoder, progress=True)
    opened = backend == "milvus" and phase == "query"
    result["open_s" if opened else "build_s"] = round(time.perf_counter() - t0, 1)
    result["documents"] = index.describe()["documents"]
    result["peak_rss_after_index_mib"] = round(peak_rss_mib(), 1)
    if phase == "query":
        router = SchemaRouter(
            registry=registry, encoder=encoder, index=index, abstention=None, reranker=None
        )
        queries = sample_queries(data, n_queries, seed=1)
        router.retrieve(queries[0], k=5, rerank=False)
        times = []
        for q in queries:
            t1 = time.perf_counter()
            router.retrieve(q, k=5, rerank=False)
            times.append(time.perf_counter() - t1)
        result["retrieve_k5"] = _ms(times)
        result["queries"] = len(queries)
    result["peak_rss_mib"] = round(peak_rss_mib(), 1)
    return result


def _watch(
    cmd: list[str], *, max_rss_gib: float, max_minutes: float
) -> tuple[str | None, list[tuple[float, float]]]:
    """Run ``cmd``; ``(None when it finished, else why it was stopped; (minutes, RSS GiB)
    sampled each minute)``."""
    proc = subprocess.Popen(cmd)
    start = time.monotonic()
    peak, reason = 0.0, None
    trace: list[tuple[float, float]] = []
    while proc.poll() is None:
        time.sleep(2)
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
            line = next(x for x in status.splitlines() if x.startswith("VmRSS"))
            rss = int(line.split()[1]) / 2**20
        except (OSError, StopIteration, ValueError):
            continue
        peak = max(peak, rss)
        minutes = (time.monotonic() - start) / 60
        if not trace or minutes - trace[-1][0] >= 1:
            trace.append((round(minutes, 1), round(rss, 2)))
        if peak > max_rss_gib:
            reason = f"stopped: RSS passed {max_rss_gib} GiB after {minutes:.1f} min"
        elif minutes > max_minutes:
            reason = f"stopped: still running after {max_minutes} min (RSS {peak:.1f} GiB)"
        if reason:
            proc.kill()
            proc.wait()
            return reason, trace
    if proc.returncode != 0:
        return f"failed with exit code {proc.returncode}", trace
    return None, trace


def scale(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = Path(args.out)
    sizes = [int(s) for s in args.sizes.split(",")]
    # earlier runs into the same folder are kept (a run of other sizes adds to them)
    earlier = out / "results.json"
    results: list[dict[str, Any]] = (
        [r for r in json.loads(earlier.read_text()) if r["routes"] not in sizes]
        if earlier.exists()
        else []
    )
    plan = [("inprocess", "query"), ("milvus", "build"), ("milvus", "query")]
    if args.backends != "all":
        plan = [p for p in plan if p[0] == args.backends]
    for size in sizes:
        for backend, phase in plan:
            if backend == "inprocess" and size > args.inprocess_max:
                continue
            tag = f"{backend}-{phase}-{size}"
            print(f"[{time.strftime('%H:%M:%S')}] {tag} ...", flush=True)
            file = out / f"{tag}.json"
            file.unlink(missing_ok=True)
            cmd = [sys.executable, "-m", "schemarouter.training.bench.milvus", "one"]
            cmd += [backend, phase, str(size), "--out", str(out), "--queries", str(args.queries)]
            stopped, trace = _watch(cmd, max_rss_gib=args.max_rss_gib, max_minutes=args.max_minutes)
            row = json.loads(file.read_text()) if file.exists() else {}
            row.update(backend=backend, phase=phase, routes=size, rss_trace_gib=trace)
            if stopped:
                row["stopped"] = stopped
            results.append(row)
            print(json.dumps(row), flush=True)
            (out / "results.json").write_text(json.dumps(results, indent=1))
            if stopped and phase == "build":
                break  # nothing to query
    _plot(results, out / "scale.png")
    return results


def _plot(results: list[dict[str, Any]], path: Path) -> None:
    """Bars side by side per catalog size: build time, peak RSS, retrieve p50 / p95."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({r["routes"] for r in results})

    def value(backend: str, phase: str, size: int, get: Any) -> float:
        for r in results:
            if (r["backend"], r["phase"], r["routes"]) == (backend, phase, size):
                try:
                    return float(get(r))
                except (KeyError, TypeError):
                    return float("nan")
        return float("nan")

    panels = [
        (
            "build (s)",
            [("in-process", "inprocess", "query"), ("Milvus Lite", "milvus", "build")],
            lambda r: r["build_s"],
        ),
        (
            "peak RSS (GiB)",
            [
                ("in-process", "inprocess", "query"),
                ("Milvus Lite, build", "milvus", "build"),
                ("Milvus Lite, replica", "milvus", "query"),
            ],
            lambda r: r["peak_rss_mib"] / 1024,
        ),
        (
            "retrieve(k=5) p50 (ms)",
            [("in-process", "inprocess", "query"), ("Milvus Lite", "milvus", "query")],
            lambda r: r["retrieve_k5"]["p50_ms"],
        ),
        (
            "retrieve(k=5) p95 (ms)",
            [("in-process", "inprocess", "query"), ("Milvus Lite", "milvus", "query")],
            lambda r: r["retrieve_k5"]["p95_ms"],
        ),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.8))
    for ax, (title, series, get) in zip(axes, panels, strict=True):
        width = 0.8 / len(series)
        for i, (label, backend, phase) in enumerate(series):
            heights = [value(backend, phase, n, get) for n in sizes]
            xs = [j + i * width for j in range(len(sizes))]
            bars = ax.bar(xs, heights, width=width, label=label)
            ax.bar_label(
                bars, fmt="%.0f" if "ms" in title or "(s)" in title else "%.1f", fontsize=7
            )
        ax.set_xticks(
            [j + width * (len(series) - 1) / 2 for j in range(len(sizes))],
            [f"{n:,} routes" for n in sizes],
        )
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(
        "In-process index vs Milvus Lite (HashingEncoder(384), 2 shared CPU cores)", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("parity")
    p.add_argument("--out", required=True)
    p.add_argument("--suites", default=",".join(PARITY_SUITES))
    p.add_argument("--data", default=None)
    p.add_argument("--metatool-sample", type=int, default=2000)
    p.add_argument("--split", default="test")
    p.add_argument("--no-rerank", dest="rerank", action="store_false")
    p.add_argument("--fusions", default=",".join(FUSIONS), help="Milvus fusions to run")
    s = commands.add_parser("scale")
    s.add_argument("--out", required=True)
    s.add_argument("--sizes", default="100000,1000000")
    s.add_argument("--inprocess-max", type=int, default=1_000_000)
    s.add_argument("--backends", default="all", choices=("all", "inprocess", "milvus"))
    s.add_argument("--plot-only", action="store_true", help="redraw scale.png from results.json")
    s.add_argument("--queries", type=int, default=100)
    s.add_argument("--max-rss-gib", type=float, default=14.0)
    s.add_argument("--max-minutes", type=float, default=90.0)
    one = commands.add_parser("one")
    one.add_argument("backend", choices=("inprocess", "milvus"))
    one.add_argument("phase", choices=("build", "query"))
    one.add_argument("size", type=int)
    one.add_argument("--out", required=True)
    one.add_argument("--queries", type=int, default=100)
    args = parser.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.command == "parity":
        parity(args)
    elif args.command == "scale" and args.plot_only:
        _plot(
            json.loads((Path(args.out) / "results.json").read_text()), Path(args.out) / "scale.png"
        )
    elif args.command == "scale":
        scale(args)
    else:
        result = run_one(args.backend, args.phase, args.size, Path(args.out), args.queries)
        tag = f"{args.backend}-{args.phase}-{args.size}"
        (Path(args.out) / f"{tag}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
