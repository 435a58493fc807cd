"""The Markdown report and PNG plots of a ``schemarouter eval`` run.

:func:`write_report` turns the ``results.json`` figures into ``report.md`` with, per suite,
the routers side by side (ranking metrics with bootstrap 95% intervals, context tokens,
latency), the router's plan metrics and per-category recall; and three plots:

* ``recall_vs_tokens.png`` -- answer-relevant recall@k against the contract tokens of the
  top-k bundle, per router and suite, with prompt-all (every contract, recall 1);
* ``latency_vs_size.png`` -- p50 latency per query against catalog size (the suites'
  catalogs and the generated ones);
* ``per_category.png`` -- Recall@5 per category, per router.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["markdown_report", "write_report"]

_ORDER = ("bm25", "dense", "hybrid-index", "hybrid", "hybrid+rerank")
_RANK_KS = (1, 3, 5, 10)


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, int) or (isinstance(value, float) and digits == 0):
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def _mean(metrics: Mapping[str, Any], name: str) -> float:
    return float(metrics.get(name, {}).get("mean", math.nan))


def _ci(metrics: Mapping[str, Any], name: str) -> str:
    entry = metrics.get(name)
    if not entry:
        return "–"
    lo, hi = entry["ci95"]
    return f"{entry['mean']:.3f} [{lo:.3f}, {hi:.3f}]"


def _routers(suite: Mapping[str, Any]) -> list[str]:
    names = list(suite["routers"])
    return sorted(names, key=lambda n: _ORDER.index(n) if n in _ORDER else len(_ORDER))


def _suite_table(suite: Mapping[str, Any]) -> list[str]:
    lines = [
        "| router | R@1 | R@5 [95% CI] | R@10 | nDCG@5 | nDCG@10 | MRR | COMP@5 | tokens@5 "
        "| p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in _routers(suite):
        entry = suite["routers"][name]
        m = entry["metrics"]
        lat = entry["latency_ms"]
        cells = [
            name,
            _num(_mean(m, "r@1")),
            _ci(m, "r@5"),
            _num(_mean(m, "r@10")),
            _num(_mean(m, "ndcg@5")),
            _num(_mean(m, "ndcg@10")),
            _num(_mean(m, "mrr")),
            _num(_mean(m, "comp@5")),
            _num(_mean(m, "tokens@5"), 0),
            _num(lat.get("p50"), 1),
            _num(lat.get("p95"), 1),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append(
        f"| prompt-all (every contract) | 1 | 1 | 1 | – | – | – | 1 | "
        f"{_num(suite['prompt_all_tokens'], 0)} | – | – |"
    )
    return lines


def _splits_line(suite: Mapping[str, Any]) -> str:
    parts = []
    for name in _routers(suite):
        test = suite["routers"][name].get("splits", {}).get("test", {})
        if "r@5" in test:
            parts.append(f"{name} {test['r@5']['mean']:.3f} (n={test['r@5']['n']})")
    return "Recall@5 on the held-out test half: " + ", ".join(parts) if parts else ""


_SCHEMA_ROWS = (
    ("plan_nonempty", "plan has a route (positives)"),
    ("plan_recall", f"plan route recall (≤{3} calls)"),
    ("param_valid", "parameter validity (plans with a route)"),
    ("executable", "executable-plan rate (positives)"),
    ("plan_tokens", "plan payload tokens"),
    ("meta_unit", "unit present (numeric fields fetched)"),
    ("meta_provenance", "provenance present (fields fetched)"),
    ("meta_license", "license present (fields fetched)"),
    ("plan_field_p", "field precision (plan, recall projection)"),
    ("plan_field_r", "field recall (plan, recall projection)"),
    ("plan_field_f1", "field F1 (plan, recall projection)"),
    ("plan_over_fetch", "over-fetch ratio (plan, recall projection)"),
    ("min_field_f1", "field F1 (plan, minimal projection)"),
    ("min_over_fetch", "over-fetch ratio (plan, minimal projection)"),
    ("flagged", "negatives flagged off the catalog (as shipped)"),
    ("hidden", "positives hidden (as shipped: never, unless abstain=True)"),
    ("false_flag", "positives flagged off the catalog (as shipped)"),
    ("off_catalog_flagged", "other suites' requests flagged off the catalog (as shipped)"),
)


def _schema_table(suite: Mapping[str, Any]) -> list[str]:
    figures = suite.get("schemarouter", {})
    rows = [(label, figures[key]) for key, label in _SCHEMA_ROWS if key in figures]
    if not rows:
        return []
    lines = ["| SchemaRouter (plan, gate, abstention) | mean [95% CI] | n |", "|---|---|---|"]
    for label, entry in rows:
        lo, hi = entry["ci95"]
        digits = 0 if "tokens" in label else 3
        lines.append(
            f"| {label} | {_num(entry['mean'], digits)} [{_num(lo, digits)}, "
            f"{_num(hi, digits)}] | {entry['n']} |"
        )
    return lines


def _field_table(suite: Mapping[str, Any]) -> list[str]:
    if not any("top1_field_f1" in e["metrics"] for e in suite["routers"].values()):
        return []
    lines = [
        "| fields of the top route, no projection | precision | recall | F1 | over-fetch "
        "| payload tokens |",
        "|---|---|---|---|---|---|",
    ]
    for name in _routers(suite):
        m = suite["routers"][name]["metrics"]
        cells = [
            _num(_mean(m, f"top1_{x}")) for x in ("field_p", "field_r", "field_f1", "over_fetch")
        ]
        cells.append(_num(_mean(m, "top1_tokens"), 0))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _category_table(suite: Mapping[str, Any]) -> list[str]:
    names = _routers(suite)
    cats = sorted({c for n in names for c in suite["routers"][n]["by_category"]["r@5"]})
    if len(cats) < 2:
        return []
    lines = ["| category | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for cat in cats:
        values = [suite["routers"][n]["by_category"]["r@5"].get(cat) for n in names]
        if all(v is None or not math.isfinite(v) for v in values):
            continue  # negatives: no recall (see the abstention rows)
        lines.append(f"| {cat} | " + " | ".join(_num(v) for v in values) + " |")
    return lines


def _trained_models_lines(catalog: Mapping[str, Any]) -> list[str]:
    """Suite ``requests``: for each model trained on the user's requests, whether the
    measured requests were held out for it (the folder's ``heldout_requests.jsonl``)."""
    lines = []
    for role, entry in (catalog.get("trained_models") or {}).items():
        n, of = entry["measured_not_held_out"], entry["measured"]
        if not n:
            lines.append(
                f"- the {role} of `{entry['folder']}`: all {of} measured requests are among "
                "its held-out requests (never trained on)"
            )
            continue
        why = "" if entry.get("heldout_listed") else " (its folder lists no held-out requests)"
        lines.append(
            f"- **the {role} of `{entry['folder']}`: {n} of the {of} measured requests are "
            f"not among its held-out requests{why}: it may have trained on them, so the rows "
            "it ranks are not held-out figures**"
        )
    return [*lines, ""] if lines else []


def _exposure_lines(results: Mapping[str, Any]) -> list[str]:
    """What each model trained on (out-of-domain: the suites it never saw)."""
    exposure = results.get("exposure") or {}
    lines = []
    for role in ("encoder", "reranker", "ranking"):
        entry = exposure.get(role) or {}
        if not entry.get("identity"):
            continue
        requests = entry.get("requests")
        if isinstance(requests, dict):
            lines.append(
                f"- {role} `{entry['identity']}` trained on your labelled requests: "
                f"{requests.get('train')} of {requests.get('file')} (held out: "
                f"{requests.get('heldout')}, {requests.get('split')}); out of domain for the "
                "public suites; on the requests suite, its line says whether the measured "
                "requests were held out for it"
            )
            continue
        trained = entry.get("trained_on")
        seen = entry.get("suites_seen") or []
        what = ", ".join(trained) if trained else "(no card: the packaged model)"
        lines.append(
            f"- {role} `{entry['identity']}` trained on {what}; evaluation suites it saw: "
            f"{', '.join(seen) if seen else 'none (every figure here is out of domain for it)'}"
        )
    if results.get("compared_encoder"):
        lines.append(
            f"- rows `NAME@minilm`: today's router on `{results['compared_encoder']}` "
            "(its own fusion weights 0.4 / 0.6, no reranker)"
        )
    return [*lines, ""] if lines else []


def _korean_lines(korean: Mapping[str, Any] | None) -> list[str]:
    if not korean:
        return []
    names = sorted(set(korean.get("ko", {})) | set(korean.get("en", {})))
    out = [
        f"## Korean requests and their English counterparts ({korean['pairs']} pairs)",
        "",
        "| measure | Korean | English |",
        "|---|---|---|",
    ]
    for name in names:
        ko, en = korean["ko"].get(name, {}), korean["en"].get(name, {})
        out.append(
            f"| {name} | {_num(ko.get('mean', float('nan')))} (n={ko.get('n', 0)}) | "
            f"{_num(en.get('mean', float('nan')))} (n={en.get('n', 0)}) |"
        )
    return [*out, ""]


def markdown_report(results: Mapping[str, Any], *, plots: Sequence[str] = ()) -> str:
    """The report as Markdown (tables only; ``plots`` are linked at the end)."""
    out = [
        "# SchemaRouter evaluation",
        "",
        f"Encoder: {results['encoder']}. Tokens: {results['tokenizer']}. "
        f"{results['reranker']}. Wall time: {results['wall_s']:.0f} s.",
        "",
        *_exposure_lines(results),
    ]
    for name, suite in results["suites"].items():
        cat = suite["catalog"]
        out += [
            f"## {name}",
            "",
            f"{cat['routes']:,} routes, {cat['queries']:,} queries; index built in "
            f"{suite['index_build_s']:.1f} s, suite wall {suite['wall_s']:.0f} s. "
            f"Prompt-all {suite['prompt_all_tokens']:,} tokens; fetch-all payload "
            f"{suite['fetch_all_tokens']:,} tokens.",
            "",
            *_suite_table(suite),
            "",
        ]
        out += _trained_models_lines(cat)
        line = _splits_line(suite)
        if line:
            out += [line, ""]
        for block in (_field_table(suite), _schema_table(suite), _category_table(suite)):
            if block:
                out += [*block, ""]
    out += _korean_lines(results.get("korean"))
    scaling = results.get("synthetic_latency") or []
    if scaling:
        out += ["## Latency against catalog size (p50 / p95 ms, 50 probe queries)", ""]
        names = [n for n in ("bm25", "dense", "hybrid", "hybrid+rerank") if n in scaling[0]]
        out += [
            "| catalog | routes | " + " | ".join(names) + " | index build s |",
            "|---" * (len(names) + 3) + "|",
        ]
        for name, suite in results["suites"].items():
            out.append(_latency_row(name, suite["latency_vs_size"], names, suite["index_build_s"]))
        for entry in scaling:
            out.append(_latency_row(entry["catalog"], entry, names, entry["index_build_s"]))
        out.append("")
    out += [f"![{p}]({p})" for p in plots]
    return "\n".join(out) + "\n"


def _latency_row(label: str, entry: Mapping[str, Any], names: Sequence[str], build: float) -> str:
    cells = []
    for n in names:
        lat = entry.get(n) or {}
        cells.append(f"{_num(lat.get('p50'), 1)} / {_num(lat.get('p95'), 1)}")
    return f"| {label} | {entry['routes']:,} | " + " | ".join(cells) + f" | {build:.1f} |"


def write_report(results: Mapping[str, Any], folder: Path, *, plots: bool = True) -> Path:
    """Write ``report.md`` (and the PNGs unless ``plots=False``) under ``folder``."""
    made = _plots(results, folder) if plots else []
    path = Path(folder) / "report.md"
    path.write_text(markdown_report(results, plots=made), encoding="utf-8")
    return path


def _plots(results: Mapping[str, Any], folder: Path) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is in the train extra
        return []
    suites = results["suites"]
    made = []
    if suites:
        fig, axes = plt.subplots(1, len(suites), figsize=(4.2 * len(suites), 3.6), squeeze=False)
        for ax, (name, suite) in zip(axes[0], suites.items(), strict=True):
            for router in _routers(suite):
                m = suite["routers"][router]["metrics"]
                xs = [_mean(m, f"tokens@{k}") for k in _RANK_KS]
                ys = [_mean(m, f"r@{k}") for k in _RANK_KS]
                ax.plot(xs, ys, marker="o", label=router)
            ax.scatter(
                [suite["prompt_all_tokens"]], [1.0], marker="*", s=120, c="k", label="prompt-all"
            )
            ax.set_xscale("log")
            ax.set_title(name)
            ax.set_xlabel("context tokens (top-k contracts)")
            ax.set_ylim(0, 1.05)
        axes[0][0].set_ylabel("Recall@k (k = 1, 3, 5, 10)")
        axes[0][-1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(folder / "recall_vs_tokens.png", dpi=110)
        plt.close(fig)
        made.append("recall_vs_tokens.png")
    points: dict[str, list[tuple[int, float]]] = {}
    entries = [s["latency_vs_size"] for s in suites.values()]
    entries += list(results.get("synthetic_latency") or [])
    for entry in entries:
        for router, lat in entry.items():
            if isinstance(lat, dict) and "p50" in lat:
                points.setdefault(router, []).append((entry["routes"], lat["p50"]))
    if points:
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for router, pts in sorted(points.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=router)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("routes in the catalog")
        ax.set_ylabel("p50 latency per query (ms)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(folder / "latency_vs_size.png", dpi=110)
        plt.close(fig)
        made.append("latency_vs_size.png")
    with_cats = {
        n: s
        for n, s in suites.items()
        if len({c for e in s["routers"].values() for c in e["by_category"]["r@5"]}) > 1
    }
    if with_cats:
        fig, axes = plt.subplots(
            len(with_cats), 1, figsize=(9, 3.2 * len(with_cats)), squeeze=False
        )
        for ax, (name, suite) in zip(axes[:, 0], with_cats.items(), strict=True):
            routers = _routers(suite)
            cats = sorted(
                c
                for r in routers
                for c, v in suite["routers"][r]["by_category"]["r@5"].items()
                if math.isfinite(v)
            )
            cats = list(dict.fromkeys(cats))
            width = 0.8 / max(1, len(routers))
            for i, router in enumerate(routers):
                vals = suite["routers"][router]["by_category"]["r@5"]
                ax.bar(
                    [j + i * width for j in range(len(cats))],
                    [vals.get(c, 0.0) for c in cats],
                    width,
                    label=router,
                )
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))])
            ax.set_xticklabels(cats, rotation=20, fontsize=8)
            ax.set_ylim(0, 1.05)
            ax.set_title(f"{name}: Recall@5 per category")
        axes[0][0].legend(fontsize=7, ncol=len(_ORDER))
        fig.tight_layout()
        fig.savefig(folder / "per_category.png", dpi=110)
        plt.close(fig)
        made.append("per_category.png")
    return made
