"""``schemarouter eval``: every router side by side on the public sets and the bundled one.

::

    schemarouter eval --suite all --out /tmp/sr-eval [--data ../shared/data]
    python -m schemarouter.training.evaluate --suite bundled --out /tmp/sr-eval

For each suite the catalog is registered in a fresh :class:`~schemarouter.SchemaRouter`
(the shipped encoder, ``abstention=None``) by its loader, and every query is ranked by every
router of :mod:`schemarouter.training.baselines` (BM25 only, dense only, the hybrid index
alone, the router's ``retrieve``, and the reranked router when a model exists), timed per
query. Then, with the router as shipped: a field-first plan per query (none where the
shipped abstention model flags the request, unless ``--no-abstention``; parameter validity,
executable plans, field precision / recall / F1, over-fetch, metadata completeness, payload
tokens) and a pass with the shipped abstention model (negative rejection, false
abstention). Last, latency against catalog size: the same probe queries on every suite's
catalog and on generated catalogs (:mod:`schemarouter.training.datasets.recombined`).

Writes ``results.json`` (every figure), ``per_query.jsonl`` (each router's top 10 per
query), ``report.md`` and PNG plots (:mod:`schemarouter.training.report`) under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from schemarouter.training import metrics as M
from schemarouter.training.baselines import (
    BM25Retriever,
    IndexRetriever,
    QueryMemo,
    Retriever,
    RouterRetriever,
    TokenCounter,
    load_ranking,
    load_reranker,
    ranking_identity,
)
from schemarouter.training.datasets.requests_suite import config_models
from schemarouter.training.datasets.suite import Benchmark, EvalQuery, shared_data_dir
from schemarouter.training.eval_latency import (
    DEPTH,
    probe_latency,
    probe_queries,
    synthetic_latency,
)
from schemarouter.training.evaluate_ood import (
    compared_retrievers,
    exposure,
    index_settings,
    korean_pairs,
    named_encoder,
    off_catalog_pool,
    off_catalog_requests,
)
from schemarouter.training.harness import (
    SUITES,
    load_suite,
    make_router,
    plan_as_shipped,
    verdict_as_shipped,
    verdict_row,
)
from schemarouter.training.requests import add_requests_arguments

__all__ = [
    "SUITES",
    "add_eval_arguments",
    "eval_main",
    "evaluate_benchmark",
    "load_suite",
    "make_router",
    "run_eval_command",
]


#: ``--suite all``: the evaluation suites (tooltrain is the development suite, asked by name)
EVAL_SUITES = ("stabletoolbench", "metatool-single", "metatool-multi", "restbench", "bundled")
#: Ranks kept per query; every ranking metric reads this prefix (eval_latency.DEPTH).
TOKEN_KS = (1, 3, 5, 10)
#: Plans may use up to this many routes (complementary routes only where fields need them).
PLAN_MAX_CALLS = 3
RANK_METRICS = ("r@1", "r@3", "r@5", "r@10", "ndcg@5", "ndcg@10", "mrr", "comp@5")
_FIELD_METRICS = ("field_p", "field_r", "field_f1", "over_fetch")
#: Figures of the router's plans and abstention pass (``plan_`` / ``min_``: projections).
SCHEMA_METRICS = (
    *["plan_nonempty", "param_valid", "executable", "plan_recall", "plan_tokens"],
    *["meta_unit", "meta_provenance", "meta_license", "flagged", "hidden", "false_flag"],
    "off_catalog_flagged",
    *(f"{t}{m}" for t in ("plan_", "min_") for m in _FIELD_METRICS),
)


# -- one query ---------------------------------------------------------------------------------


def _ranking_row(ranked: Sequence[str], q: EvalQuery) -> dict[str, float]:
    return {
        "r@1": M.recall_at(ranked, q.needs, 1),
        "r@3": M.recall_at(ranked, q.needs, 3),
        "r@5": M.recall_at(ranked, q.needs, 5),
        "r@10": M.recall_at(ranked, q.needs, 10),
        "ndcg@5": M.ndcg_at(ranked, q.gold, 5),
        "ndcg@10": M.ndcg_at(ranked, q.gold, 10),
        "mrr": M.reciprocal_rank(ranked, q.gold),
        "comp@5": M.complete_at(ranked, q.needs, 5),
    }


def _field_key(routes: Any) -> Callable[[str, str], str]:
    def key(route_id: str, name: str) -> str:
        route = routes.get(route_id)
        if route is not None:
            for item in route.endpoint.output_fields:
                if item.name == name and item.semantic_id:
                    return str(item.semantic_id)
        return f"name:{name}"

    return key


def _field_row(
    selected: dict[str, Sequence[str]], q: EvalQuery, key: Any, tag: str
) -> dict[str, float]:
    prf = M.field_prf(selected, q.gold_fields, key=key, alternatives=q.alternatives)
    return {
        f"{tag}field_p": prf.precision,
        f"{tag}field_r": prf.recall,
        f"{tag}field_f1": prf.f1,
        f"{tag}over_fetch": M.over_fetch_ratio(
            selected, q.gold_fields, key=key, alternatives=q.alternatives
        ),
    }


def _plan_row(
    router: Any, q: EvalQuery, counter: TokenCounter, key: Any, model: Any = None
) -> dict[str, float]:
    from schemarouter.contracts import Effect
    from schemarouter.planning.planner import PlanRequest

    routes = router.snapshot().routes
    row: dict[str, float] = {}
    for projection in ("recall", "minimal") if q.gold_fields else ("recall",):
        request = PlanRequest(
            query=q.text,
            allowed_effects=frozenset({Effect.READ, Effect.WRITE}),
            projection=projection,
        )
        plan = plan_as_shipped(router, request, max_calls=PLAN_MAX_CALLS, model=model)
        selected = {s.route_id: s.fields for s in plan.steps}
        if q.gold_fields:
            row.update(_field_row(selected, q, key, "plan_" if projection == "recall" else "min_"))
        if projection != "recall":
            continue
        valid = [
            M.arguments_valid(
                s.arguments, {p.name: p.json_schema for p in routes[s.route_id].endpoint.parameters}
            )
            for s in plan.steps
        ]
        row["plan_nonempty"] = float(bool(plan.steps))
        row["param_valid"] = float(all(valid)) if plan.steps else math.nan
        row["executable"] = float(
            bool(plan.steps) and all(valid) and not any(s.missing_parameters for s in plan.steps)
        )
        row["plan_recall"] = M.recall_at(list(plan.route_ids), q.needs, PLAN_MAX_CALLS)
        row["plan_tokens"] = sum(counter.payload(routes[s.route_id], s.fields) for s in plan.steps)
        fetched = []
        for s in plan.steps:
            route = routes[s.route_id]
            for name, meta in s.meta.items():
                kind = route.endpoint.field(name).json_schema.get("type")
                kinds = set(kind) if isinstance(kind, list) else {kind}
                fetched.append({**meta, "numeric": bool(kinds & {"number", "integer"})})
        for what, share in M.metadata_completeness(fetched).items():
            row[f"meta_{what}"] = share
    return row


# -- one benchmark -------------------------------------------------------------------------------


def _retrievers(bench: Benchmark, ranking: Any = None) -> list[Retriever]:
    """The rows of a suite: BM25, the dense channel, the index's fusion, ``fusion`` (the
    router without the action rule), ``hybrid`` (the router as shipped: fusion and the
    action rule; the ranking stage where its card turns it on), and where given the
    ``hybrid+ranking`` (the learned stage on) and ``hybrid+rerank`` rows."""
    router = bench.router
    out: list[Retriever] = [
        BM25Retriever(bench.snapshot, style=bench.bm25_text, **bench.bm25),
        IndexRetriever(router, "dense"),
        IndexRetriever(router, "hybrid", name="hybrid-index"),
        RouterRetriever(router, name="fusion", actions=False),
        RouterRetriever(router, name="hybrid"),
    ]
    if ranking is not None:
        out.append(RouterRetriever(router, name="hybrid+ranking", ranking=ranking))
    if getattr(router, "reranker", None) is not None:
        out.append(RouterRetriever(router, name="hybrid+rerank", rerank=True))
    return out


def _summary(
    rows: list[dict[str, Any]], names: Sequence[str], args: argparse.Namespace
) -> dict[str, Any]:
    out = {}
    for name in names:
        values = [r.get(name, math.nan) for r in rows]
        n = sum(1 for v in values if v is not None and math.isfinite(v))
        if n == 0:
            continue
        lo, hi = M.bootstrap_ci(values, resamples=args.resamples, seed=args.seed)
        out[name] = {"mean": M.mean(values), "ci95": [lo, hi], "n": n}
    return out


def evaluate_benchmark(
    bench: Benchmark,
    args: argparse.Namespace,
    *,
    counter: TokenCounter,
    probe: Sequence[str] = (),
    per_query: Any = None,
    extra: Sequence[Retriever] = (),
    off_catalog: Sequence[str] = (),
) -> dict[str, Any]:
    """Every router on every query of ``bench`` (and the ``extra`` ones, over the same
    catalog loaded into another router); returns the suite's figures."""
    from schemarouter.retrieval.abstention import AbstentionModel

    router = bench.router
    start = time.perf_counter()
    index = router.index  # built here, timed
    build_s = time.perf_counter() - start
    snapshot = router.snapshot()
    routes = snapshot.routes
    key = _field_key(routes)
    queries = bench.queries
    retrievers = [*_retrievers(bench, getattr(args, "ranking_model", None)), *extra]
    rows: dict[str, list[dict[str, Any]]] = {r.name: [] for r in retrievers}
    schema_rows: list[dict[str, Any]] = []
    latency: dict[str, list[float]] = {r.name: [] for r in retrievers}
    model = AbstentionModel.shipped() if args.abstention else None
    bar = _bar(args, len(queries), bench.name)
    for q in queries:
        ranks = {}
        for retriever in retrievers:
            t0 = time.perf_counter()
            ranked = retriever.rank(q.text, DEPTH)
            latency[retriever.name].append((time.perf_counter() - t0) * 1000)
            ranks[retriever.name] = ranked
            row: dict[str, Any] = {"id": q.id, "category": q.category, "split": q.split}
            if not q.negative:
                row.update(_ranking_row(ranked, q))
            for k in TOKEN_KS:
                row[f"tokens@{k}"] = counter.bundle(routes, ranked[:k])
            if ranked:
                row["top1_tokens"] = counter.payload(routes[ranked[0]])
            if q.gold_fields and ranked:
                top: dict[str, Sequence[str]] = {
                    ranked[0]: [f.name for f in routes[ranked[0]].endpoint.output_fields]
                }
                row.update(_field_row(top, q, key, "top1_"))
            rows[retriever.name].append(row)
        srow = {"id": q.id, "category": q.category, "negative": q.negative}
        _untimed_reuse(router, True)
        if args.plans and not q.negative:
            srow.update(_plan_row(router, q, counter, key, model))
        if model is not None:
            srow.update(verdict_row(router, model, q.text, negative=q.negative))
        _untimed_reuse(router, False)
        schema_rows.append(srow)
        if per_query is not None:
            per_query.write(json.dumps({"suite": bench.name, "id": q.id, "ranks": ranks}) + "\n")
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    if model is not None:  # other suites' requests against this catalog: should be flagged
        for text in off_catalog:
            schema_rows.append(
                {
                    "id": "off-catalog",
                    "category": "off-catalog",
                    "negative": True,
                    "off_catalog_flagged": verdict_as_shipped(router, model, text)[1],
                }
            )
    ranking_names = [*RANK_METRICS, *(f"tokens@{k}" for k in TOKEN_KS), "top1_tokens"]
    ranking_names += [f"top1_{m}" for m in _FIELD_METRICS]
    result: dict[str, Any] = {
        "catalog": bench.describe(),
        "index": index.describe(),
        "index_build_s": build_s,
        "prompt_all_tokens": sum(counter.contract(r) for r in routes.values()),
        "fetch_all_tokens": sum(counter.payload(r) for r in routes.values()),
        "routers": {},
    }
    for retriever in retrievers:
        name = retriever.name
        entry = {
            "metrics": _summary(rows[name], ranking_names, args),
            "latency_ms": M.percentiles(latency[name]),
            "by_category": {m: M.by_category(rows[name], m) for m in ("r@5", "ndcg@5")},
            "splits": {
                s: _summary([r for r in rows[name] if r["split"] == s], ("r@5", "ndcg@5"), args)
                for s in ("dev", "test")
            },
        }
        if isinstance(retriever, BM25Retriever):
            entry["settings"] = retriever.settings
        result["routers"][name] = entry
    result["schemarouter"] = _summary(schema_rows, SCHEMA_METRICS, args)
    result["schemarouter_by_category"] = {
        m: M.by_category(schema_rows, m) for m in ("plan_field_f1", "executable", "flagged")
    }
    result["latency_vs_size"] = probe_latency(retrievers, probe, len(routes))
    return result


def _untimed_reuse(router: Any, on: bool) -> None:
    """Let the untimed passes reuse the query vector of the timed ones (see QueryMemo)."""
    encoder = router.index.encoder
    if isinstance(encoder, QueryMemo):
        encoder.reuse = on


# -- the command ----------------------------------------------------------------------------------


def _bar(args: argparse.Namespace, total: int, desc: str) -> Any:
    if not args.progress or total == 0:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="query", dynamic_ncols=True, file=sys.stderr)


def add_eval_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``schemarouter eval`` (for a subparser or a parser of its own)."""
    parser.add_argument("--suite", required=True, choices=[*SUITES, "all"])
    parser.add_argument("--out", required=True, help="folder for results.json, report.md, PNGs")
    parser.add_argument(
        "--data",
        default=None,
        help="shared data folder (default: $SCHEMAROUTER_SHARED_DATA or ../shared/data)",
    )
    parser.add_argument(
        "--split",
        default="test",
        choices=["test", "dev", "all"],
        help="bundled query split (default test; tune on dev only)",
    )
    parser.add_argument(
        "--metatool-sample",
        type=int,
        default=2000,
        help="single-tool queries to sample (0: all 20,614)",
    )
    parser.add_argument(
        "--tooltrain-split",
        default="val",
        choices=["val", "mixed", "composed"],
        help="tooltrain requests (val: tools never trained on; mixed: multi-tool requests "
        "whose tools straddle the split, never trained on themselves; composed: 300 requests "
        "of 2-3 parts, each a validation request)",
    )
    parser.add_argument(
        "--write-intent-set",
        default="dev",
        choices=["dev", "dev2", "heldout", "user1", "user2", "user3"],
        help="write-intent requests (dev: data/queries/write_intent.json, settings were chosen "
        "on its dev half; dev2: write_intent_dev2.json, fresh development data on eight APIs "
        "and four MCP servers' other tools, settings may be chosen on all of it; "
        "heldout: write_intent_heldout.json, four other APIs, never used "
        "to choose anything; user1 / user2 / user3: user-style checks of reads and writes "
        "over catalogs the other sets do not ask about, user2 and user3 held out; "
        "docs/write_intent_set.md)",
    )
    parser.add_argument("--beir", default=None, help="a BEIR-format folder (suite beir)")
    parser.add_argument("--beir-split", default="test")
    parser.add_argument(
        "--encoder",
        default="default",
        help="default (the shipped encoder), minilm (the packaged MiniLM), hashing, or a folder",
    )
    parser.add_argument(
        "--compare-encoder",
        default="minilm",
        help="also rank with a second router on this encoder (rows NAME@minilm); '' for none",
    )
    parser.add_argument(
        "--cache", default=None, help="embedding cache folder or 'none' (default: the router's)"
    )
    parser.add_argument(
        "--reranker",
        default="auto",
        help="none, auto (the shipped model if any), a model folder from `schemarouter "
        "train-reranker`, or MODULE:FACTORY",
    )
    parser.add_argument(
        "--ranking",
        default="auto",
        help="the learned ranking stage's row: none, auto (the shipped model if any, whatever "
        "its card's default) or a model folder from `schemarouter train-ranking`",
    )
    parser.add_argument(
        "--scaling", default="1000,10000", help="generated catalog sizes for latency ('' for none)"
    )
    parser.add_argument(
        "--multi-intent",
        default="off",
        choices=["on", "off"],
        help="the router's multi-intent coverage (schemarouter.retrieval.intents)",
    )
    parser.add_argument(
        "--prerequisites",
        default="on",
        choices=["on", "off"],
        help="lift the route that produces an identifier a top-k route needs "
        "(schemarouter.retrieval.prerequisites)",
    )
    parser.add_argument(
        "--fusion-weights",
        default=None,
        help="LEXICAL,DENSE weights of weighted fusion (default: the index's own)",
    )
    parser.add_argument("--no-plans", dest="plans", action="store_false")
    parser.add_argument("--no-abstention", dest="abstention", action="store_false")
    parser.add_argument("--no-plots", dest="plots", action="store_false")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0)
    add_requests_arguments(parser)
    parser.add_argument(
        "--requests-split",
        default="heldout",
        choices=["heldout", "train", "all"],
        help="suite requests: which of --requests to measure (default: the held-out ones)",
    )
    return parser


def _provenance() -> dict[str, Any]:
    """Where the figures came from: commit (and whether the tree had changes), machine."""
    import os
    import platform
    import subprocess

    root = Path(__file__).resolve().parents[1]

    def git(*cmd: str) -> str:
        try:
            done = subprocess.run(["git", *cmd], cwd=root, capture_output=True, text=True)
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": git("rev-parse", "HEAD") or None,
        "tracked_files_changed": len(changed.splitlines()) if changed else 0,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _suites(args: argparse.Namespace) -> list[str]:
    if args.suite != "all":
        return [args.suite]
    names = list(EVAL_SUITES) + (["requests"] if getattr(args, "requests", None) else [])
    return [*names, "beir"] if args.beir else names


def run_eval_command(args: argparse.Namespace, out: Callable[[str], Any] = print) -> int:
    """Run ``schemarouter eval`` with parsed ``args``; 0 on success, 2 without data."""
    from schemarouter.training.report import write_report

    wall = time.perf_counter()
    suites = _suites(args)
    config_models(args, out)  # --config's models: the gateway measured as it serves
    data = shared_data_dir(args.data)
    public = [s for s in suites if s not in ("bundled", "beir", "requests")]
    if public and not data.is_dir():
        out(f"shared data not found at {data}; pass --data or set SCHEMAROUTER_SHARED_DATA")
        return 2
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    encoder = named_encoder(args.encoder)
    compare = named_encoder(args.compare_encoder) if args.compare_encoder else None
    if compare is not None and compare.identity == encoder.identity:
        compare = None
    reranker, reranker_note = load_reranker(args.reranker)
    args.ranking_model, ranking_note = load_ranking(getattr(args, "ranking", "none"))
    counter = TokenCounter()
    probe = probe_queries(args)
    pool = off_catalog_pool(suites, args) if args.abstention and len(suites) > 1 else {}
    results: dict[str, Any] = {
        "config": {
            **{k: v for k, v in vars(args).items() if k != "func"},
            "ranking_model": ranking_identity(args.ranking_model),  # not the object's repr
        },
        "encoder": encoder.identity,
        "compared_encoder": compare.identity if compare is not None else None,
        "exposure": exposure(encoder, reranker, args.ranking_model),
        "tokenizer": counter.identity,
        "reranker": reranker_note,
        "ranking": ranking_note,
        "provenance": _provenance(),
        "suites": {},
    }
    with open(folder / "per_query.jsonl", "w", encoding="utf-8") as per_query:
        for name in suites:
            t0 = time.perf_counter()
            router = make_router(
                QueryMemo(encoder),
                cache=args.cache,
                reranker=reranker,
                multi_intent=args.multi_intent == "on",
                prerequisites=args.prerequisites == "on",
                settings=index_settings(args),
            )
            bench = load_suite(name, router, args)
            register_s = time.perf_counter() - t0
            extra = compared_retrievers(name, bench, args, compare)
            others = off_catalog_requests(pool, name)
            figures = evaluate_benchmark(
                bench,
                args,
                counter=counter,
                probe=probe,
                per_query=per_query,
                extra=extra,
                off_catalog=others,
            )
            figures["register_s"] = register_s
            figures["wall_s"] = time.perf_counter() - t0
            results["suites"][name] = figures
            out(_one_line(name, figures))
    if "bundled" in suites:
        results["korean"] = korean_pairs(encoder, reranker, args)
    scaling = []
    if args.scaling and data.is_dir():
        for size in (int(s) for s in args.scaling.split(",") if s.strip()):
            t0 = time.perf_counter()
            entry = synthetic_latency(size, args, encoder, probe, reranker)
            entry["wall_s"] = time.perf_counter() - t0
            scaling.append(entry)
            out(
                f"synthetic {size}: "
                + ", ".join(
                    f"{k} p50 {v['p50']:.1f} ms" for k, v in entry.items() if isinstance(v, dict)
                )
            )
    results["synthetic_latency"] = scaling
    results["wall_s"] = time.perf_counter() - wall
    (folder / "results.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    write_report(results, folder, plots=args.plots)
    out(
        f"wrote {folder / 'results.json'} and {folder / 'report.md'} "
        f"({results['wall_s']:.0f} s wall)"
    )
    return 0


def _one_line(name: str, figures: dict[str, Any]) -> str:
    parts = []
    for router, entry in figures["routers"].items():
        r5 = entry["metrics"].get("r@5", {}).get("mean", math.nan)
        parts.append(f"{router} R@5 {r5:.3f}")
    return f"{name} ({figures['wall_s']:.0f} s): " + ", ".join(parts)


def eval_main(argv: Sequence[str] | None = None) -> int:
    """``schemarouter eval`` as a stand-alone command."""
    parser = add_eval_arguments(
        argparse.ArgumentParser(prog="schemarouter eval", description=__doc__.splitlines()[0])
    )
    return run_eval_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(eval_main())
