"""Route-retrieval evaluation (a script, not a test).

    python -m schemarouter.training.bench.index_recall [--data DIR] [--metatool-queries N] [--grid]

* **g1**: StableToolBench G1; catalog = the union of the ``api_list`` entries of
  G1_instruction, G1_category and G1_tool (1,673 APIs); query = ``query``; gold =
  ``relevant APIs``. Split 50/50 into dev / test by a seeded hash of the query text.
* **metatool**: catalog = the 199 tools of ``plugin_des.json`` (name + description);
  queries = ``all_clean_data.csv`` subsampled to ``--metatool-queries`` with a fixed seed,
  split like G1.
* **materials**: the bundled catalog (``data/catalogs/materials``) and its labelled queries
  (``data/queries/materials.json``, English and Korean, the file's own dev / test split;
  queries with an empty gold are left out). Gold fields give **F@5**: the share of gold
  (route, field) pairs whose route is in the top 5 *and* whose field is in that hit's
  ``matched_fields``.

Recall@k = |gold ∩ top k| / |gold|, averaged over queries. Settings were chosen on dev
(``--grid``, ``--lexical-variants``); the figures to quote are test. Test split, default
settings, ONNX int8 MiniLM (with sentence-transformers fp32 hybrid moves by <= 0.01):

==================  ===========  ===========  ===========
test split           lexical       dense        hybrid
R@5 / R@50
==================  ===========  ===========  ===========
G1 (250 queries)    0.779 0.954  0.749 0.923  0.822 0.962
MetaTool (1,039)    0.621 0.767  0.760 0.948  0.775 0.954
materials (96)      0.859 0.939  0.733 1.000  0.874 1.000
==================  ===========  ===========  ===========

For reference, plain BM25 as described in ``shared/data/README.md`` scores R@5 0.658 on
all of G1 and 0.423 on all MetaTool single-tool queries.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np

from schemarouter.contracts import Registration
from schemarouter.index.cache import EmbeddingCache
from schemarouter.index.encoders.defaults import default_encoder
from schemarouter.index.encoders.dense import Encoder
from schemarouter.index.hybrid import HybridIndex
from schemarouter.index.settings import IndexSettings
from schemarouter.registry.registry import Registry
from schemarouter.training.datasets.shared_data import (
    hash_split,
    load_g1,
    load_metatool,
    shared_data_dir,
    source_routes,
)

__all__ = ["Dataset", "MemoEncoder", "Query", "load_datasets", "run_eval"]

KS = (5, 50)
FIELD_WEIGHTS = ((0.5, 1.0), (1.0, 1.0), (0.5, 0.5))


@dataclasses.dataclass(frozen=True)
class Query:
    text: str
    routes: frozenset[str]
    fields: frozenset[tuple[str, str]] = frozenset()
    lang: str = "en"


@dataclasses.dataclass
class Dataset:
    name: str
    registry: Registry
    dev: list[Query]
    test: list[Query]


class MemoEncoder:
    """Wraps an encoder; single texts encoded before (``prime``) come from memory."""

    def __init__(self, inner: Encoder) -> None:
        self.inner = inner
        self.memo: dict[str, np.ndarray] = {}

    @property
    def identity(self) -> str:
        return self.inner.identity

    @property
    def dim(self) -> int:
        return self.inner.dim

    def prime(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        for lo in range(0, len(todo), 1024):
            chunk = todo[lo : lo + 1024]
            for text, vector in zip(chunk, self.inner.encode(chunk), strict=True):
                self.memo[text] = vector

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1 and texts[0] in self.memo:
            return self.memo[texts[0]][None, :]
        return self.inner.encode(texts)


def _split(queries: list[Query]) -> tuple[list[Query], list[Query]]:
    dev = [q for q in queries if hash_split(q.text) == "dev"]
    return dev, [q for q in queries if hash_split(q.text) == "test"]


def _registry(name: str, registration: Registration) -> Registry:
    registry = Registry()
    registry.register(registration)
    return registry


def _materials() -> Dataset:
    from schemarouter.registry.catalog import load_catalog

    root = files("schemarouter.data")
    catalog = Path(str(root.joinpath("catalogs", "materials")))
    labels = json.loads(root.joinpath("queries", "materials.json").read_text(encoding="utf-8"))
    registry = _registry("materials", load_catalog(catalog))
    split: dict[str, list[Query]] = {"dev": [], "test": []}
    for item in labels["queries"]:
        if not item["gold"]:
            continue
        split[item["split"]].append(
            Query(
                item["query"],
                frozenset(g["route"] for g in item["gold"]),
                frozenset((g["route"], f) for g in item["gold"] for f in g["fields"]),
                item.get("lang", "en"),
            )
        )
    return Dataset("materials", registry, split["dev"], split["test"])


def load_datasets(
    data: Path, *, metatool_queries: int = 2000, seed: int = 7, names: Sequence[str] = ()
) -> list[Dataset]:
    out = []
    for name, loader in (("g1", load_g1), ("metatool", load_metatool)):
        if names and name not in names:
            continue
        apis, raw = loader(data)
        routes, by_key = source_routes(apis)
        registry = _registry(name, Registration(source=name, routes=tuple(routes)))
        queries = [Query(q, frozenset(by_key[g] for g in gold if g in by_key)) for q, gold in raw]
        queries = [q for q in queries if q.routes]
        if name == "metatool" and metatool_queries and len(queries) > metatool_queries:
            queries = random.Random(seed).sample(queries, metatool_queries)
        out.append(Dataset(name, registry, *_split(queries)))
    if not names or "materials" in names:
        out.append(_materials())
    return out


def run_eval(index: HybridIndex, queries: Sequence[Query], mode: str) -> dict[str, float]:
    """Mean R@5, R@50 and F@5 (NaN where no query has gold fields)."""
    sums = {f"R@{k}": 0.0 for k in KS}
    field_hits = field_total = 0
    for query in queries:
        hits = index.search(query.text, k=max(KS), mode=mode)  # type: ignore[arg-type]
        ranked = [h.route_id for h in hits]
        for k in KS:
            sums[f"R@{k}"] += len(query.routes.intersection(ranked[:k])) / len(query.routes)
        if query.fields:
            matched = {(h.route_id, f) for h in hits[:5] for f in h.matched_fields}
            field_hits += len(query.fields & matched)
            field_total += len(query.fields)
    result = {key: value / max(1, len(queries)) for key, value in sums.items()}
    result["F@5"] = field_hits / field_total if field_total else float("nan")
    return result


def _line(split: str, label: str, r: dict[str, float]) -> str:
    return f"{split:6} {label:42} {r['R@5']:7.3f} {r['R@50']:7.3f} {r['F@5']:7.3f}"


def _with(index: HybridIndex, **changes: object) -> HybridIndex:
    index.settings = dataclasses.replace(index.settings, **changes)  # type: ignore[arg-type]
    index._derive()
    return index


def _grid() -> list[tuple[str, dict[str, object]]]:
    """Fusion settings compared on dev (hybrid mode)."""
    grid: list[tuple[str, dict[str, object]]] = []
    for lfw, dfw in FIELD_WEIGHTS:
        base: dict[str, object] = {"lexical_field_weight": lfw, "dense_field_weight": dfw}
        tag = f"fw={lfw}/{dfw}"
        rrf = {"fusion": "rrf", "rrf_k": 60.0, "lexical_weight": 1.0, "dense_weight": 1.0}
        grid.append((f"rrf60 {tag}", {**base, **rrf}))
        for lw in (0.3, 0.35, 0.4, 0.5):
            for norm, floor in (
                ("max", 0.0),
                ("max", 0.4),
                ("max", 0.5),
                ("max", 0.6),
                ("none", 0.0),
            ):
                weighted = {
                    "fusion": "weighted",
                    "lexical_weight": lw,
                    "dense_weight": round(1 - lw, 2),
                    "lexical_normalize": "max",
                    "dense_normalize": norm,
                    "dense_norm_floor": floor,
                }
                label = f"w{lw}/{1 - lw:.2f} dense:{norm}>={floor} {tag}"
                grid.append((label, {**base, **weighted}))
    return grid


GRID = _grid()


def _lexical_variants() -> list[tuple[str, IndexSettings]]:
    from schemarouter.index.lexical import BM25Params
    from schemarouter.index.tokenize import TokenizerSettings

    base = IndexSettings()

    def tok(stopwords: bool, stem: bool) -> IndexSettings:
        return dataclasses.replace(base, tokenizer=TokenizerSettings(stopwords, stem))

    return [
        ("default", base),
        ("no stopwords", tok(False, True)),
        ("no plural stem", tok(True, False)),
        ("neither", tok(False, False)),
        ("idf floor zero", dataclasses.replace(base, bm25=BM25Params(idf_floor="zero"))),
        ("k1=0.9 b=0.4", dataclasses.replace(base, bm25=BM25Params(k1=0.9, b=0.4))),
    ]


def main(argv: Sequence[str] | None = None, out: Callable[[str], object] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="shared data folder")
    parser.add_argument("--datasets", default="g1,metatool,materials")
    parser.add_argument("--metatool-queries", type=int, default=2000)
    parser.add_argument("--cache", default="/tmp/schemarouter-eval-cache")
    parser.add_argument("--encoder", choices=["default", "torch"], default="default")
    parser.add_argument("--grid", action="store_true", help="also print the fusion grid (dev)")
    parser.add_argument("--grid-field-weights", default="", help="e.g. 0.5/1.0 (limit the grid)")
    parser.add_argument(
        "--lexical-variants", action="store_true", help="tokenizer and idf variants (dev)"
    )
    args = parser.parse_args(argv)
    data = shared_data_dir(args.data)
    names = [n for n in args.datasets.split(",") if n]
    if not data.exists() and set(names) - {"materials"}:
        out(f"shared data not found at {data}; pass --data or set SCHEMAROUTER_SHARED_DATA")
        return 2
    if args.encoder == "torch":
        from schemarouter.index.encoders.dense import MiniLMEncoder

        base: Encoder = MiniLMEncoder()
    else:
        base = default_encoder()
    encoder = MemoEncoder(base)
    cache = EmbeddingCache(args.cache)
    for ds in load_datasets(data, metatool_queries=args.metatool_queries, names=names):
        start = time.perf_counter()
        index = HybridIndex.build(ds.registry.snapshot(), encoder=encoder, cache=cache)
        encoder.prime([q.text for q in ds.dev + ds.test])
        out(
            f"\n## {ds.name}: {len(index)} routes, {index.n_documents} documents, "
            f"dev {len(ds.dev)} / test {len(ds.test)} queries, encoder {encoder.identity}, "
            f"built in {time.perf_counter() - start:.1f}s"
        )
        out(f"{'split':6} {'mode':42} {'R@5':>7} {'R@50':>7} {'F@5':>7}")
        for split, queries in (("dev", ds.dev), ("test", ds.test)):
            for mode in ("lexical", "dense", "hybrid"):
                label = mode if mode != "hybrid" else f"hybrid ({index.settings.fusion})"
                out(_line(split, label, run_eval(index, queries, mode)))
            langs = sorted({q.lang for q in queries})
            if len(langs) > 1:
                for lang in langs:
                    subset = [q for q in queries if q.lang == lang]
                    for mode in ("lexical", "dense", "hybrid"):
                        label = f"  {lang} ({len(subset)}) {mode}"
                        out(_line(split, label, run_eval(index, subset, mode)))
        if args.grid:
            if args.grid_field_weights:
                lfw, dfw = (float(x) for x in args.grid_field_weights.split("/"))
                tag = f"fw={lfw}/{dfw}"
                grid = [(label, c) for label, c in GRID if label.endswith(tag)]
            else:
                grid = GRID
            defaults = index.settings
            seen: set[tuple[object, object]] = set()
            for label, changes in grid:
                _with(index, **changes)
                out(_line("dev", label, run_eval(index, ds.dev, "hybrid")))
                weights = (changes["lexical_field_weight"], changes["dense_field_weight"])
                if weights not in seen:
                    seen.add(weights)
                    for mode in ("lexical", "dense"):
                        out(_line("dev", "  " + mode, run_eval(index, ds.dev, mode)))
            index.settings = defaults
            index._derive()
        if args.lexical_variants:
            for label, settings in _lexical_variants():
                variant = HybridIndex.build(
                    ds.registry.snapshot(), encoder=encoder, cache=cache, settings=settings
                )
                for mode in ("lexical", "hybrid"):
                    out(_line("dev", f"{mode} {label}", run_eval(variant, ds.dev, mode)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
