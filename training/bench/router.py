"""Router benchmark: ``retrieve(k=5)`` latency and prompt cost vs catalog size (on demand).

    python -m schemarouter.training.bench.router --sizes 1000 10000 --out out/bench-router

For the bundled catalog and synthetic catalogs of the given sizes (recombined from the real
documents in ``../shared/data`` by :mod:`schemarouter.training.datasets.recombined`), it registers
the catalog through the public API, builds the index (embedding cache on), then times
``SchemaRouter.retrieve(k=5)`` end to end (query understanding, hybrid search with query
embedding, abstention, candidates, gate) over real benchmark queries: first as shipped
(fusion only, the reranker never loaded), then with the shipped cross-encoder reranking the
fused top 20 and without (``rerank=False``), those two calls interleaved query by query so
both see the same machine load (the fusion-only calls there run beside the reranker's
onnxruntime threads, which spin on after each call and take the core the request's BM25
would run on: ``retrieve_k5_beside_rerank``). It also counts the
prompt cost with the packaged MiniLM tokenizer: the k=5 contract-only bundle against
*prompt-all* (every route's contract in the prompt). Prints a table and writes JSON + PNG.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from importlib import resources
from pathlib import Path
from typing import Any

from tqdm import tqdm

from schemarouter.fingerprint import canonical_json
from schemarouter.retrieval.rerank import Reranker
from schemarouter.retrieval.results import candidate_from_route
from schemarouter.router import SchemaRouter
from schemarouter.training.baselines import TokenCounter
from schemarouter.training.metrics import percentiles

__all__ = ["bench_catalog", "main"]


#: providers per catalog file of a generated catalog (a few thousand routes each)
_PROVIDERS_PER_FILE = 500


def _percentiles(values: list[float]) -> dict[str, float]:
    """p50 and p95 in milliseconds (:func:`metrics.percentiles`, as the harness reports)."""
    return {f"{key}_ms": round(1000 * value, 2) for key, value in percentiles(values).items()}


def bench_ranking(router: SchemaRouter, model: Any, queries: list[str], *, k: int = 5) -> dict:
    """Fusion only against the learned ranking stage, alternated query by query (the same
    load for both): each p50 / p95 in ms."""
    saved = router.ranking_model
    fusion: list[float] = []
    ranked: list[float] = []
    try:
        router.ranking_model = model
        router.retrieve("warm up", k=k, rerank=False)
        for query in tqdm(queries, desc="retrieve (ranking stage A/B)", unit="q", leave=False):
            for stage, out in ((None, fusion), (model, ranked)):
                router.ranking_model = stage
                t0 = time.perf_counter()
                router.retrieve(query, k=k, rerank=False)
                out.append(time.perf_counter() - t0)
    finally:
        router.ranking_model = saved
    return {"fusion": _percentiles(fusion), "ranking": _percentiles(ranked)}


def bench_catalog(
    name: str,
    catalog: Path,
    queries: list[str],
    *,
    k: int = 5,
    prompt_all_sample: int = 2000,
    ranking: Any = None,
    reranker: bool = True,
) -> dict[str, Any]:
    start = time.perf_counter()
    # the shipped reranker is measured even where its card leaves it off by default
    router = SchemaRouter.from_catalog(
        catalog, reranker=Reranker.shipped() if reranker else None, ranking=None
    )
    registered = time.perf_counter()
    router.build_index(progress=True)
    router.retrieve("warm up", k=k, rerank=False)
    indexed = time.perf_counter()
    # as shipped (the reranker off): a process that never loads the reranker, whose
    # onnxruntime threads keep spinning on the second core for a while after each call
    shipped = []
    for query in tqdm(queries, desc=f"retrieve {name} (no reranker)", unit="q", leave=False):
        t0 = time.perf_counter()
        router.retrieve(query, k=k, rerank=False)
        shipped.append(time.perf_counter() - t0)
    staged = bench_ranking(router, ranking, queries, k=k) if ranking is not None else None
    reranking = router.reranker is not None
    if reranking:
        router.retrieve("warm up", k=k)  # loads the reranker
        router.retrieve("warm up", k=k)
    latencies = []
    reranked: list[float] = []
    bundle_texts = []
    for query in tqdm(queries, desc=f"retrieve {name}", unit="q", leave=False):
        t0 = time.perf_counter()
        result = router.retrieve(query, k=k, rerank=False)
        latencies.append(time.perf_counter() - t0)
        if reranking:
            t0 = time.perf_counter()
            result = router.retrieve(query, k=k)
            reranked.append(time.perf_counter() - t0)
        bundle_texts.append(canonical_json(result.contracts()))
    counter = TokenCounter()  # the harness's counts: MiniLM pieces, no special tokens
    snapshot = router.snapshot()
    routes = list(snapshot)
    # prompt-all: every route's contract; counted on a sample and scaled for big catalogs
    sample = (
        routes
        if len(routes) <= prompt_all_sample
        else random.Random(0).sample(routes, prompt_all_sample)
    )
    contracts = [
        canonical_json(candidate_from_route(r, rank=1, score=0.0).contract()) for r in sample
    ]
    prompt_all = sum(map(counter.count, contracts)) * len(routes) / len(sample)
    bundle = sum(map(counter.count, bundle_texts)) / max(len(bundle_texts), 1)
    return {
        "catalog": name,
        "routes": len(routes),
        "queries": len(queries),
        "seconds_register": round(registered - start, 2),
        "seconds_index": round(indexed - registered, 2),
        "retrieve_k5": _percentiles(shipped),
        "retrieve_k5_beside_rerank": _percentiles(latencies),
        "retrieve_k5_rerank": _percentiles(reranked) if reranked else None,
        "retrieve_k5_ranking_ab": staged,
        "bundle_tokens_k5": round(bundle),
        "prompt_all_tokens": round(prompt_all),
        "ratio": round(prompt_all / max(bundle, 1), 1),
    }


def bench_encoding(queries: list[str], korean: list[str]) -> dict[str, Any]:
    """Query encoding alone with the default encoder: English requests, and Korean ones
    (the cross-lingual bridge, where the encoder has one)."""
    from schemarouter.index import default_encoder

    encoder = default_encoder()
    encode = getattr(encoder, "encode_query", None) or (lambda q: encoder.encode([q])[0])
    encode("warm up")
    out: dict[str, Any] = {"encoder": encoder.identity}
    for name, texts in (("english", queries), ("korean", korean)):
        if not texts:
            continue
        encode(texts[0])  # loads the bridge's model on the first Korean request
        times = []
        for text in texts:
            t0 = time.perf_counter()
            encode(text)
            times.append(time.perf_counter() - t0)
        out[name] = _percentiles(times)
    return out


_COLD = """
import time, sys
t0 = time.perf_counter()
from schemarouter import SchemaRouter
router = SchemaRouter.from_catalog(sys.argv[1])
result = router.retrieve("Young's modulus and band gap of GaN", k=5)
print(time.perf_counter() - t0, result.reranked)
"""


def bench_cold_start(catalog: Path, runs: int = 3) -> dict[str, Any]:
    """A fresh process (warm embedding cache, as after a first run): import, register the
    bundled catalog, first ``retrieve`` (index build from the cache, models loaded)."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", _COLD, str(catalog)], check=True, capture_output=True)
    seconds = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", _COLD, str(catalog)], check=True, capture_output=True, text=True
        )
        seconds.append(float(done.stdout.split()[0]))
    seconds.sort()
    return {"runs": runs, "median_s": round(seconds[len(seconds) // 2], 2), "all_s": seconds}


def _plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["routes"] for r in results]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(sizes, [r["retrieve_k5"]["p50_ms"] for r in results], "o-", label="fusion p50")
    left.plot(sizes, [r["retrieve_k5"]["p95_ms"] for r in results], "s--", label="fusion p95")
    if all("retrieve_k5_beside_rerank" in r for r in results):
        left.plot(
            sizes,
            [r["retrieve_k5_beside_rerank"]["p50_ms"] for r in results],
            "^:",
            label="fusion p50, reranker loaded",
        )
    if all(r["retrieve_k5_rerank"] for r in results):
        for stat, style in (("p50_ms", "o-"), ("p95_ms", "s--")):
            left.plot(
                sizes,
                [r["retrieve_k5_rerank"][stat] for r in results],
                style,
                label=f"reranked {stat[:3]}",
            )
    left.set(
        xscale="log", xlabel="routes", ylabel="retrieve(k=5) ms", title="latency vs catalog size"
    )
    left.legend()
    right.plot(sizes, [r["bundle_tokens_k5"] for r in results], "o-", label="k=5 bundle")
    right.plot(sizes, [r["prompt_all_tokens"] for r in results], "s--", label="prompt-all")
    right.set(
        xscale="log",
        yscale="log",
        xlabel="routes",
        ylabel="tokens (MiniLM tokenizer)",
        title="prompt cost vs catalog size",
    )
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="retrieve(k=5) latency and prompt cost")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--query-set",
        choices=["mixed", "g1"],
        default="mixed",
        help="mixed: a sample of G1 + MetaTool queries (mostly short MetaTool ones); "
        "g1: StableToolBench G1 only (40-60 word pieces, the reranker's slow case)",
    )
    parser.add_argument("--data", type=Path, default=None, help="../shared/data")
    parser.add_argument("--out", type=Path, default=Path("out/bench-router"))
    parser.add_argument(
        "--ranking",
        default="auto",
        help="the learned ranking stage to time against fusion: auto (the shipped model, "
        "whatever its card's default), none, or a model folder",
    )
    parser.add_argument(
        "--no-reranker", dest="reranker", action="store_false", help="skip the reranker passes"
    )
    args = parser.parse_args(argv)
    from schemarouter.training.baselines import load_ranking

    ranking, _ = load_ranking(args.ranking)
    from schemarouter.training.bench.index import sample_queries
    from schemarouter.training.datasets.recombined import catalog_document, synth_providers
    from schemarouter.training.datasets.shared_data import shared_data_dir

    data = args.data or shared_data_dir()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.query_set == "g1":
        from schemarouter.training.datasets.shared_data import load_g1

        texts = sorted({q for q, _ in load_g1(data)[1]})
        queries = random.Random(1).sample(texts, min(args.queries, len(texts)))
    else:
        queries = sample_queries(data, args.queries, seed=1)
    bundled = Path(str(resources.files("schemarouter.data").joinpath("catalogs", "materials")))
    from schemarouter.training.datasets.bundled import load_bundled_queries

    korean = [q.query for q in load_bundled_queries() if q.lang == "ko"]
    encoding = bench_encoding(queries, korean)
    cold = bench_cold_start(bundled)
    print(
        f"query encoding ({encoding['encoder']}): "
        + ", ".join(
            f"{k} p50 {v['p50_ms']} ms / p95 {v['p95_ms']} ms"
            for k, v in encoding.items()
            if isinstance(v, dict)
        )
    )
    print(f"cold start to the first retrieve (warm cache): median {cold['median_s']} s")
    results = [bench_catalog("bundled", bundled, queries, ranking=ranking, reranker=args.reranker)]
    for size in args.sizes:
        # a folder of catalog files, as a user lays out a large catalog: one file of 100,000
        # routes (about 100 MB) is past the document cap every local file is read under
        path = args.out / f"catalog-{size}"
        if not (path / "done").exists():
            providers = synth_providers(size, seed=0, data=data)
            path.mkdir(parents=True, exist_ok=True)
            for start in range(0, len(providers), _PROVIDERS_PER_FILE):
                chunk = providers[start : start + _PROVIDERS_PER_FILE]
                name = f"synth-{size}-{start // _PROVIDERS_PER_FILE:03d}"
                (path / f"{name}.json").write_text(json.dumps(catalog_document(chunk, name=name)))
            (path / "done").write_text("")
        results.append(
            bench_catalog(f"synth-{size}", path, queries, ranking=ranking, reranker=args.reranker)
        )
    summary = {"catalogs": results, "query_encoding": encoding, "cold_start": cold}
    (args.out / "bench_router.json").write_text(json.dumps(summary, indent=2) + "\n")
    _plot(results, args.out / "bench_router.png")
    print(
        f"{'catalog':<14}{'routes':>8}{'p50 ms':>9}{'p95 ms':>9}{'p50 b/rr':>9}{'rr p50':>9}"
        f"{'rr p95':>9}{'bundle tok':>12}{'prompt-all tok':>16}{'ratio':>9}"
    )
    for r in results:
        ab = r["retrieve_k5_ranking_ab"]
        if ab:
            print(
                f"{r['catalog']}: ranking stage A/B, fusion p50 {ab['fusion']['p50_ms']} / p95 "
                f"{ab['fusion']['p95_ms']} ms, with the stage p50 {ab['ranking']['p50_ms']} / "
                f"p95 {ab['ranking']['p95_ms']} ms"
            )
    for r in results:
        rr = r["retrieve_k5_rerank"] or {"p50_ms": "-", "p95_ms": "-"}
        print(
            f"{r['catalog']:<14}{r['routes']:>8}{r['retrieve_k5']['p50_ms']:>9}"
            f"{r['retrieve_k5']['p95_ms']:>9}{r['retrieve_k5_beside_rerank']['p50_ms']:>9}"
            f"{rr['p50_ms']:>9}{rr['p95_ms']:>9}"
            f"{r['bundle_tokens_k5']:>12}{r['prompt_all_tokens']:>16}{r['ratio']:>9}"
        )
    print(f"wrote {args.out / 'bench_router.json'} and {args.out / 'bench_router.png'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
