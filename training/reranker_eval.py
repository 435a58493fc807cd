"""Reranked vs not, on sets a model never saw (leave one dataset out), and the speed front.

::

    python -m schemarouter.training.reranker_eval score --model DIR --suites stabletoolbench \\
        restbench bundled --out runs/a.jsonl          # one model's scores on the fused top N
    python -m schemarouter.training.reranker_eval table --runs runs/a.jsonl --n 20 --weight 1
    python -m schemarouter.training.reranker_eval front --runs runs/*.jsonl --png front.png

``score`` loads each suite through the evaluation harness's loaders (a fresh router per
suite, the packaged MiniLM, no abstention), asks :meth:`SchemaRouter.retrieve` for the
fused top ``--depth`` of every labelled query, and scores the first ``--depth`` candidates
with the model (route text written by :meth:`Reranker.route_text` from the candidate's
``matched_fields``). It stores, per query, the fused order and scores, the reranker's
scores, the routes the query forces (named providers or tools) and the gold needs, plus
timings of the reranker on the top N for N in ``--latency-n`` (tokenization and onnxruntime,
one call per query, on a sample of queries).

``table`` and ``front`` recombine stored runs without scoring again: for a cut ``N``, the
top N are reordered by :func:`combine` (forced routes keep their place at the top; the rest
by ``z(rerank) + weight * z(fused)``, z-scores taken over the N), the tail stays in fused
order, and the harness's metrics are computed (Recall@k over needs, nDCG, MRR).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import takewhile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from schemarouter.training import metrics as M

__all__ = [
    "Record",
    "card_metrics",
    "combine",
    "load_runs",
    "score_suite",
    "summarize",
    "training_queries",
]

logger = logging.getLogger(__name__)

DEFAULT_DEPTH = 30
LATENCY_N = (10, 20, 30, 50)


@dataclass
class Record:
    """One labelled query of one suite: fused list, reranker scores, gold."""

    suite: str
    id: str
    split: str
    text: str
    needs: list[list[str]]
    gold: list[str]
    fused: list[str]
    fused_scores: list[float]
    rerank: list[float]
    forced: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def combine(
    record: Record,
    *,
    n: int,
    weight: float = 0.0,
    skip_margin: float | None = None,
    coefficient: float | None = None,
) -> list[str]:
    """The reranked list: forced routes first as fusion put them, then the rest of the top
    ``n`` by :func:`schemarouter.retrieval.rerank.blend_order` (``z(rerank) + weight * z(fused)``),
    then the fused tail.

    ``skip_margin``: keep fusion's order when its top score beats the second by at least
    this many standard deviations of the top-N fused scores (fusion already confident).
    ``coefficient``: a blend-trained model's ``a`` (see :func:`blend_order`).
    """
    from schemarouter.retrieval.rerank import blend_order

    fused = record.fused
    forced = record.forced
    top = min(n, len(fused), len(record.rerank))
    if top - forced < 2:
        return list(fused)
    head = np.asarray(record.fused_scores[forced:top], dtype=np.float64)
    if skip_margin is not None and head.size >= 2:
        std = float(head.std())
        if std > 1e-9 and (head[0] - head[1]) / std >= skip_margin:
            return list(fused)
    order = blend_order(record.rerank[forced:top], head, weight=weight, coefficient=coefficient)
    return fused[:forced] + [fused[forced + i] for i in order] + fused[top:]


def ceiling(record: Record, *, n: int) -> list[str]:
    """The best any reordering of the top ``n`` can do: gold routes there moved first."""
    gold = set(record.gold)
    top = record.fused[:n]
    return [r for r in top if r in gold] + [r for r in top if r not in gold] + record.fused[n:]


def _row(ranked: Sequence[str], record: Record) -> dict[str, float]:
    needs = tuple(frozenset(n) for n in record.needs)
    return {
        "r@1": M.recall_at(ranked, needs, 1),
        "r@5": M.recall_at(ranked, needs, 5),
        "r@10": M.recall_at(ranked, needs, 10),
        "ndcg@5": M.ndcg_at(ranked, record.gold, 5),
        "mrr": M.reciprocal_rank(ranked, record.gold),
    }


def summarize(
    records: Sequence[Record],
    *,
    n: int | None,
    weight: float = 0.0,
    skip_margin: float | None = None,
    split: str | None = None,
    coefficient: float | None = None,
    oracle: bool = False,
) -> dict[str, float]:
    """Mean metrics over ``records`` (``n=None``: fusion order, no reranking; ``oracle``:
    the :func:`ceiling` of reranking the top ``n``)."""
    rows = []
    for r in records:
        if split and r.split != split:
            continue
        if n is None:
            ranked = r.fused
        elif oracle:
            ranked = ceiling(r, n=n)
        else:
            ranked = combine(
                r, n=n, weight=weight, skip_margin=skip_margin, coefficient=coefficient
            )
        rows.append(_row(ranked, r))
    if not rows:
        return {"queries": 0}
    out = {k: float(np.mean([row[k] for row in rows])) for k in rows[0]}
    out["queries"] = len(rows)
    return out


# -- scoring -----------------------------------------------------------------------------------


def score_suite(
    name: str,
    reranker: Any,
    *,
    depth: int = DEFAULT_DEPTH,
    data: str | None = None,
    encoder: Any = None,
    metatool_sample: int = 2000,
    latency_n: Sequence[int] = LATENCY_N,
    latency_queries: int = 100,
    route_chars: int | None = None,
    seed: int = 0,
    progress: bool = False,
) -> tuple[list[Record], dict[str, Any]]:
    """Records for every labelled query of suite ``name`` and the reranker's timings."""
    from schemarouter.training.evaluate import load_suite, make_router

    router = make_router(  # fusion's own order: the window
        encoder, multi_intent=False, prerequisites=False
    )
    args: Any = SimpleNamespace(
        data=data, metatool_sample=metatool_sample, split="all", beir=None, tooltrain_split="val"
    )
    bench = load_suite(name, router, args)
    router.index  # noqa: B018 - built before timing
    routes = router.snapshot().routes
    records: list[Record] = []
    texts_of: dict[str, list[str]] = {}
    queries = [q for q in bench.queries if not q.negative]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(queries), desc=name, unit="query", dynamic_ncols=True, file=sys.stderr)
    chars = route_chars if route_chars is not None else reranker.route_chars
    from schemarouter.retrieval.rerank import route_text

    for q in queries:
        result = router.retrieve(q.text, k=depth)
        cands = list(result.candidates)
        forced = sum(1 for _ in takewhile(lambda c: "named" in c.scores, cands))
        texts = [
            route_text(routes[c.route_id], fields=c.matched_fields, max_chars=chars) for c in cands
        ]
        texts_of[q.id] = texts
        scores = reranker.score(q.text, texts) if texts else np.zeros(0)
        records.append(
            Record(
                suite=name,
                id=q.id,
                split=q.split,
                text=q.text,
                needs=[sorted(n) for n in q.needs],
                gold=list(q.gold),
                fused=[c.route_id for c in cands],
                fused_scores=[float(c.score) for c in cands],
                rerank=[float(s) for s in scores],
                forced=forced,
            )
        )
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    timings: dict[str, Any] = {}
    sample = random.Random(seed).sample(queries, min(latency_queries, len(queries)))
    for n in latency_n:
        times = []
        for q in sample:
            texts = texts_of[q.id][:n]
            if len(texts) < min(n, depth):
                continue
            t0 = time.perf_counter()
            reranker.score(q.text, texts)
            times.append((time.perf_counter() - t0) * 1000)
        if times:
            timings[str(n)] = M.percentiles(times)
    tokens = [
        reranker.encode(q.text, texts_of[q.id][:1])[1].sum() for q in sample if texts_of[q.id]
    ]
    info = {
        "suite": name,
        "routes": len(routes),
        "queries": len(records),
        "latency_ms": timings,
        "mean_pair_tokens": float(np.mean(tokens)) if tokens else 0.0,
        "catalog": bench.describe(),
    }
    return records, info


def save_run(path: Path, records: Sequence[Record], meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"meta": meta}, ensure_ascii=False) + "\n")
        for r in records:
            handle.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")


def load_runs(
    path: str | Path, *, exclude: set[str] | None = None
) -> tuple[list[Record], dict[str, Any]]:
    """A stored run; ``exclude``: query hashes to leave out (e.g. the training queries)."""
    from schemarouter.training.pairs import query_hash

    records, meta = [], {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            if "meta" in item:
                meta = item["meta"]
            elif not exclude or query_hash(item["text"]) not in exclude:
                records.append(Record(**item))
    return records, meta


def training_queries(pairs_files: Sequence[str]) -> set[str]:
    """Hashes of every query in the given pairs files."""
    from schemarouter.training.pairs import load_pairs, query_hash

    out: set[str] = set()
    for path in pairs_files:
        out |= {query_hash(g.query) for g in load_pairs(path)[0]}
    return out


# -- commands ----------------------------------------------------------------------------------


def _cmd_score(args: argparse.Namespace) -> int:
    from schemarouter.retrieval.rerank import Reranker
    from schemarouter.training.evaluate_ood import named_encoder

    reranker = Reranker(args.model)
    encoder = named_encoder(args.encoder)
    all_records: list[Record] = []
    suites: dict[str, Any] = {}
    for name in args.suites:
        t0 = time.perf_counter()
        records, info = score_suite(
            name,
            reranker,
            depth=args.depth,
            data=args.data,
            encoder=encoder,
            metatool_sample=args.metatool_sample,
            latency_n=[int(n) for n in args.latency_n],
            route_chars=args.route_chars,
            progress=args.progress,
        )
        info["wall_s"] = time.perf_counter() - t0
        suites[name] = info
        all_records.extend(records)
        base = summarize(records, n=None)
        best = summarize(
            records,
            n=min(20, args.depth),
            weight=args.weight,
            coefficient=reranker.fusion_coefficient,
        )
        print(
            f"{name}: fused R@5 {base['r@5']:.3f} -> reranked@20 R@5 {best['r@5']:.3f} "
            f"({info['wall_s']:.0f} s; latency {json.dumps(info['latency_ms'])})",
            file=sys.stderr,
            flush=True,
        )
    meta = {
        "model": str(args.model),
        "identity": reranker.identity,
        "card_settings": reranker.card.get("settings", {}),
        "held_out": reranker.card.get("data", {}).get("config", {}).get("held_out", []),
        "train": reranker.card.get("data", {}).get("config", {}).get("train", []),
        "route_chars": args.route_chars or reranker.route_chars,
        "fusion_coefficient": reranker.fusion_coefficient,
        "depth": args.depth,
        "suites": suites,
        "label": args.label or Path(args.model).name,
    }
    save_run(Path(args.out), all_records, meta)
    return 0


def _table(
    runs: Sequence[str],
    ns: Sequence[int],
    weights: Sequence[float],
    margin: float | None,
    exclude: set[str] | None = None,
    split: str | None = None,
) -> str:
    lines = []
    for path in runs:
        records, meta = load_runs(path, exclude=exclude)
        if split:
            records = [r for r in records if r.split == split]
        label = meta.get("label", path)
        coefficient = meta.get("fusion_coefficient")
        for suite in dict.fromkeys(r.suite for r in records):
            subset = [r for r in records if r.suite == suite]
            base = summarize(subset, n=None)
            cells = [f"{label}", suite, str(base["queries"]), f"{base['r@5']:.3f}"]
            for n in ns:
                for w in weights:
                    s = summarize(
                        subset, n=n, weight=w, skip_margin=margin, coefficient=coefficient
                    )
                    cells.append(f"{s['r@5']:.3f} ({s['r@5'] - base['r@5']:+.3f})")
                best = summarize(subset, n=n, oracle=True)
                cells.append(f"{best['r@5']:.3f} ({best['r@5'] - base['r@5']:+.3f})")
            lines.append("| " + " | ".join(cells) + " |")
    head = ["run", "suite", "queries", "fused R@5"]
    for n in ns:
        head += [f"N={n} w={w}" for w in weights] + [f"N={n} ceiling"]
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *lines])


def _cmd_table(args: argparse.Namespace) -> int:
    margin = None if args.skip_margin is None else float(args.skip_margin)
    exclude = training_queries(args.exclude_pairs) if args.exclude_pairs else None
    ns, weights = [int(n) for n in args.n], [float(w) for w in args.weight]
    print(_table(args.runs, ns, weights, margin, exclude, args.split))
    return 0


def _cmd_front(args: argparse.Namespace) -> int:
    """Accuracy against reranker latency for each run (a model and a text length) and N."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points: list[dict[str, Any]] = []
    timings = json.loads(Path(args.latency).read_text("utf-8")) if args.latency else None
    exclude = training_queries(args.exclude_pairs) if args.exclude_pairs else None
    for path in args.runs:
        records, meta = load_runs(path, exclude=exclude)
        suites = [s for s in args.suites if any(r.suite == s for r in records)] or sorted(
            {r.suite for r in records}
        )
        base = np.mean(
            [summarize([r for r in records if r.suite == s], n=None)["r@5"] for s in suites]
        )
        for n in (int(x) for x in args.n):
            if timings is not None:  # measured apart, on a quiet machine
                key = f"{meta['label']} N={n}"
                lat = [timings[key]["p50"]] if key in timings else []
            else:
                lat = [meta["suites"][s]["latency_ms"].get(str(n), {}).get("p50") for s in suites]
                lat = [x for x in lat if x is not None]
            acc = np.mean(
                [
                    summarize(
                        [r for r in records if r.suite == s],
                        n=n,
                        weight=args.weight,
                        coefficient=meta.get("fusion_coefficient"),
                    )["r@5"]
                    for s in suites
                ]
            )
            if lat:
                points.append(
                    {
                        "label": f"{meta['label']} N={n}",
                        "ms": float(np.median(lat)),
                        "r@5": float(acc),
                        "fused": float(base),
                    }
                )
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p in points:
        ax.scatter(p["ms"], p["r@5"], color="tab:blue")
        ax.annotate(
            p["label"], (p["ms"], p["r@5"]), fontsize=7, xytext=(3, 3), textcoords="offset points"
        )
    if points:
        ax.axhline(points[0]["fused"], color="gray", linestyle="--", label="fusion only")
    front = sorted(points, key=lambda p: p["ms"])
    best, pareto = -math.inf, []
    for p in front:
        if p["r@5"] > best:
            pareto.append(p)
            best = p["r@5"]
    if pareto:
        ax.plot(
            [p["ms"] for p in pareto], [p["r@5"] for p in pareto], color="tab:orange", label="front"
        )
    ax.set_xlabel("reranker p50 latency per query, ms (tokenization + onnxruntime, 2 cores)")
    ax.set_ylabel(f"mean Recall@5 ({', '.join(args.suites) or 'all suites'})")
    ax.set_title(args.title)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)
    print(json.dumps(points, indent=1))
    return 0


def card_metrics(
    runs: Sequence[str],
    *,
    n: int,
    weight: float,
    split: str | None = None,
    exclude: set[str] | None = None,
) -> dict[str, Any]:
    """Fused vs reranked figures per run and suite, for a model card's ``metrics``."""
    out: dict[str, Any] = {"n": n, "weight": weight, "split": split or "all", "runs": {}}
    for path in runs:
        records, meta = load_runs(path, exclude=exclude)
        if split:
            records = [r for r in records if r.split == split]
        suites = {}
        for suite in dict.fromkeys(r.suite for r in records):
            subset = [r for r in records if r.suite == suite]
            suites[suite] = {
                "fused": summarize(subset, n=None),
                "reranked": summarize(
                    subset, n=n, weight=weight, coefficient=meta.get("fusion_coefficient")
                ),
                "ceiling": summarize(subset, n=n, oracle=True),
            }
        out["runs"][meta.get("label", str(path))] = {
            "trained_on": meta.get("train", []),
            "held_out": meta.get("held_out", []),
            "suites": suites,
        }
    return out


def _cmd_card(args: argparse.Namespace) -> int:
    """Write the figures of ``--runs`` into the model card of ``--model`` (under a key)."""
    exclude = training_queries(args.exclude_pairs) if args.exclude_pairs else None
    path = Path(args.model) / "card.json"
    card = json.loads(path.read_text("utf-8"))
    card.setdefault("metrics", {})[args.key] = card_metrics(
        args.runs, n=args.n, weight=args.weight, split=args.split, exclude=exclude
    )
    path.write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schemarouter.training.reranker_eval")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("score", help="score suites with one model")
    p.add_argument("--model", required=True)
    p.add_argument("--suites", nargs="+", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--label", default=None)
    p.add_argument("--data", default=None)
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    p.add_argument("--route-chars", type=int, default=None)
    p.add_argument("--metatool-sample", type=int, default=2000)
    p.add_argument("--latency-n", nargs="*", default=[str(n) for n in LATENCY_N])
    p.add_argument("--weight", type=float, default=1.0)
    p.add_argument("--encoder", default="default", help="default, minilm, hashing or a folder")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    p.set_defaults(func=_cmd_score)
    p = sub.add_parser("table", help="reranked vs fused from stored runs")
    p.add_argument("--runs", nargs="+", required=True)
    p.add_argument("--n", nargs="+", default=["10", "20", "30"])
    p.add_argument("--weight", nargs="+", default=["0", "0.5", "1"])
    p.add_argument("--skip-margin", default=None)
    p.add_argument("--exclude-pairs", nargs="*", default=[], help="leave out training queries")
    p.add_argument("--split", default=None, choices=["dev", "test"], help="one half only")
    p.set_defaults(func=_cmd_table)
    p = sub.add_parser("front", help="accuracy against latency (PNG)")
    p.add_argument("--runs", nargs="+", required=True)
    p.add_argument("--suites", nargs="*", default=[])
    p.add_argument("--n", nargs="+", default=["10", "20", "30"])
    p.add_argument("--weight", type=float, default=1.0)
    p.add_argument("--png", required=True)
    p.add_argument("--latency", default=None, help="JSON: '<label> N=<n>' -> {p50, ...}")
    p.add_argument("--exclude-pairs", nargs="*", default=[], help="leave out training queries")
    p.add_argument("--title", default="Reranker: accuracy against latency")
    p.set_defaults(func=_cmd_front)
    p = sub.add_parser("card", help="write figures into a model card")
    p.add_argument("--model", required=True)
    p.add_argument("--key", required=True, help="name of the entry under metrics")
    p.add_argument("--runs", nargs="+", required=True)
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--weight", type=float, default=1.0)
    p.add_argument("--split", default=None, choices=["dev", "test"])
    p.add_argument("--exclude-pairs", nargs="*", default=[])
    p.set_defaults(func=_cmd_card)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
