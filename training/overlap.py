"""Overlap between the training corpus and the evaluation suites: tools and requests.

::

    python -m schemarouter.training.overlap --out /tmp/overlap [--data ../shared/data]

The tooltrain corpus was built with the evaluation families removed (its README); this
check repeats the removal's test from this side, against the suites exactly as
``schemarouter eval`` loads them (same loaders, same route texts):

* **tools**: a suite route whose name (normalized: lowercase, letters and digits only)
  equals a training tool's name; and one whose description is a near duplicate of a
  training tool's (TF-IDF over character 3-5-grams, cosine >= ``--threshold``).
* **requests**: a suite query equal to a training request after normalization, or a near
  duplicate of one (the same TF-IDF cosine).

Writes ``overlap.json`` (counts and every match, with both texts) and prints a table. A
near-duplicate is not proof of a leak (``get_weather`` exists everywhere); the matches are
listed so a person can read them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["near_duplicates", "overlap_main", "suite_texts"]

DEFAULT_THRESHOLD = 0.9
_SUITES = ("stabletoolbench", "metatool-single", "metatool-multi", "restbench", "bundled")


def _norm(text: str) -> str:
    """Lowercase words and digits of any script, single spaces."""
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def _name(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def near_duplicates(
    left: Sequence[str], right: Sequence[str], *, threshold: float, chunk: int = 2048
) -> list[tuple[int, int, float]]:
    """``(i, j, cosine)`` for each ``left[i]`` whose nearest ``right[j]`` reaches
    ``threshold`` (TF-IDF over character 3-5-grams within word boundaries)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not left or not right:
        return []
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=1, lowercase=True)
    vectorizer.fit(list(right) + list(left))
    b = vectorizer.transform(right).T.tocsc()
    out: list[tuple[int, int, float]] = []
    for lo in range(0, len(left), chunk):
        a = vectorizer.transform(left[lo : lo + chunk])
        sims = (a @ b).tocsr()
        for row in range(sims.shape[0]):
            start, end = sims.indptr[row], sims.indptr[row + 1]
            if start == end:
                continue
            best = int(np.argmax(sims.data[start:end]))
            score = float(sims.data[start + best])
            if score >= threshold:
                out.append((lo + row, int(sims.indices[start + best]), score))
    return out


def suite_texts(name: str, data: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """``([(route name, description)], [query text])`` of suite ``name`` as eval loads it."""
    from schemarouter.index import HashingEncoder
    from schemarouter.training.evaluate import load_suite, make_router

    router = make_router(HashingEncoder(), cache="none")
    args = argparse.Namespace(data=data, metatool_sample=0, split="all", beir=None)
    bench = load_suite(name, router, args)
    tools = [
        (r.endpoint.name, r.endpoint.description or r.endpoint.summary or "")
        for r in router.snapshot().routes.values()
    ]
    return tools, [q.text for q in bench.queries]


def run(data: Path, threshold: float, suites: Sequence[str]) -> dict[str, Any]:
    from schemarouter.training.datasets.tooltrain import load_tooltrain

    corpus = load_tooltrain(data)
    train_tools = list(corpus.tools.values())
    train_names: dict[str, list[str]] = {}
    for tool in train_tools:
        train_names.setdefault(_name(tool.name.rsplit("/", 1)[-1].rsplit(".", 1)[-1]), []).append(
            tool.key
        )
    train_desc = [t.description for t in train_tools]
    train_queries = [r.query for r in corpus.records]
    exact_queries: dict[str, int] = {}
    for i, q in enumerate(train_queries):
        if _norm(q):
            exact_queries.setdefault(_norm(q), i)
    report: dict[str, Any] = {
        "threshold": threshold,
        "training": {"tools": len(train_tools), "requests": len(train_queries)},
        "suites": {},
    }
    for name in suites:
        tools, queries = suite_texts(name, data)
        same_name = [
            (n, train_names[_name(n)][:3]) for n, _ in tools if _name(n) and _name(n) in train_names
        ]
        descs = [d for _, d in tools]
        desc_dups = [
            {
                "route": tools[i][0],
                "description": descs[i][:300],
                "training_tool": train_tools[j].key,
                "training_description": train_desc[j][:300],
                "cosine": round(s, 3),
            }
            for i, j, s in near_duplicates(
                [d if d.strip() else "\0" for d in descs], train_desc, threshold=threshold
            )
            if descs[i].strip()
        ]
        exact = [
            (q, train_queries[exact_queries[_norm(q)]])
            for q in queries
            if _norm(q) in exact_queries
        ]
        near = [
            {"query": queries[i], "training_request": train_queries[j], "cosine": round(s, 3)}
            for i, j, s in near_duplicates(queries, train_queries, threshold=threshold)
        ]
        report["suites"][name] = {
            "routes": len(tools),
            "queries": len(queries),
            "routes_with_a_training_tool_name": len(same_name),
            "routes_with_near_duplicate_description": len(desc_dups),
            "queries_equal_to_a_training_request": len(exact),
            "queries_near_duplicate_of_a_training_request": len(near),
            "examples": {
                "same_name": same_name[:20],
                "description": desc_dups[:20],
                "exact_queries": exact[:20],
                "near_queries": near[:50],
            },
        }
    return report


def overlap_main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.training.datasets.suite import shared_data_dir

    parser = argparse.ArgumentParser(prog="python -m schemarouter.training.overlap")
    parser.add_argument("--data", default=None)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--suites", nargs="*", default=list(_SUITES))
    args = parser.parse_args(argv)
    data = shared_data_dir(args.data)
    report = run(data, args.threshold, args.suites)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "overlap.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(
        "| suite | routes | same tool name | near-duplicate description | queries "
        "| equal request | near-duplicate request |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, row in report["suites"].items():
        print(
            f"| {name} | {row['routes']} | {row['routes_with_a_training_tool_name']} | "
            f"{row['routes_with_near_duplicate_description']} | {row['queries']} | "
            f"{row['queries_equal_to_a_training_request']} | "
            f"{row['queries_near_duplicate_of_a_training_request']} |"
        )
    print(f"wrote {out / 'overlap.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(overlap_main())
