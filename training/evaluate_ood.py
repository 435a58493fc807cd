"""The evaluation's out-of-domain passes: which models saw which suite, the same suite under
the packaged MiniLM (today's router) beside the shipped encoder, other suites' requests asked
of a catalog (off-catalog abstention), and Korean requests beside their English counterparts.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from typing import Any

from schemarouter.training import harness
from schemarouter.training import metrics as M
from schemarouter.training.baselines import IndexRetriever, QueryMemo, RouterRetriever
from schemarouter.training.datasets.suite import Benchmark

__all__ = [
    "OFF_CATALOG_PER_SUITE",
    "compared_retrievers",
    "exposure",
    "index_settings",
    "korean_pairs",
    "named_encoder",
    "off_catalog_pool",
    "off_catalog_requests",
]


def named_encoder(name: str) -> Any:
    """``default`` (the router's: the shipped encoder), ``minilm`` (the packaged MiniLM as
    it ships, int8 ONNX), ``hashing`` (tests), or a model folder written by train-encoder."""
    from schemarouter.index import HashingEncoder, default_encoder
    from schemarouter.index.encoders.defaults import encoder_of
    from schemarouter.index.encoders.onnx import default_minilm_encoder

    if name == "hashing":
        return HashingEncoder()
    if name == "minilm":
        return default_minilm_encoder()
    if name == "default":
        return default_encoder()
    return encoder_of(name)  # with the bridge fitted into the folder, as the router loads it


#: Requests of each other suite asked of a suite's catalog in the off-catalog abstention pass.
OFF_CATALOG_PER_SUITE = 50


def off_catalog_pool(suites: Sequence[str], args: argparse.Namespace) -> dict[str, list[str]]:
    """suite -> a seeded sample of its positive requests (asked of the *other* suites'
    catalogs: a router should abstain on most; some may truly be served elsewhere)."""
    from schemarouter.index import HashingEncoder

    pool: dict[str, list[str]] = {}
    for name in suites:
        if name in ("beir", "tooltrain"):
            continue
        bench = harness.load_suite(name, harness.make_router(HashingEncoder(), cache="none"), args)
        texts = [q.text for q in bench.queries if not q.negative]
        rng = random.Random(f"off-catalog:{name}:{args.seed}")
        pool[name] = rng.sample(texts, min(OFF_CATALOG_PER_SUITE, len(texts)))
    return pool


#: Suites asked of one and the same catalog (MetaTool's 199 tools): each one's requests are
#: answerable on the other's catalog, so neither is the other's off-catalog request.
SHARED_CATALOG = {"metatool-single": "metatool", "metatool-multi": "metatool"}


def off_catalog_requests(pool: dict[str, list[str]], name: str) -> list[str]:
    """The requests of ``pool`` (:func:`off_catalog_pool`) to ask of suite ``name``'s catalog
    as off it: those of every suite over another catalog."""
    own = SHARED_CATALOG.get(name, name)
    return [
        text
        for other, texts in pool.items()
        if SHARED_CATALOG.get(other, other) != own
        for text in texts
    ]


def index_settings(args: argparse.Namespace) -> Any:
    """Index settings from ``--fusion-weights`` (``None``: the defaults)."""
    if not getattr(args, "fusion_weights", None):
        return None
    from schemarouter.index import IndexSettings

    lexical, dense = (float(x) for x in args.fusion_weights.split(","))
    return IndexSettings(lexical_weight=lexical, dense_weight=dense)


def compared_retrievers(
    name: str, bench: Benchmark, args: argparse.Namespace, encoder: Any
) -> list[Any]:
    """Rows ``dense@minilm`` / ``hybrid@minilm``: the same suite in a router on ``encoder``
    (today's router when it is the packaged MiniLM), no reranker."""
    if encoder is None:
        return []
    from schemarouter.index import IndexSettings
    from schemarouter.index.fusion import MINILM_WEIGHTS

    today = args.compare_encoder == "minilm"  # today's router: its own fusion weights
    lexical, dense = MINILM_WEIGHTS
    settings = IndexSettings(lexical_weight=lexical, dense_weight=dense) if today else None
    other = harness.make_router(
        QueryMemo(encoder),
        cache=args.cache,
        reranker=None,
        multi_intent=not today and args.multi_intent == "on",
        prerequisites=not today and args.prerequisites == "on",
        settings=settings,
    )
    twin = harness.load_suite(name, other, args)
    if set(twin.router.snapshot().routes) != set(bench.router.snapshot().routes):
        raise RuntimeError(f"suite {name} loaded different routes twice")
    tag = "minilm" if args.compare_encoder == "minilm" else "compared"
    return [
        IndexRetriever(other, "dense", name=f"dense@{tag}"),
        RouterRetriever(other, name=f"hybrid@{tag}"),
    ]


#: Training-source names (as model cards write them) -> the evaluation suites they come from;
#: ``synth:NAME`` (queries written from that catalog) counts as having seen its catalog.
_SUITES_OF_SOURCE = {
    "g1": ("stabletoolbench",),
    "metatool": ("metatool-single", "metatool-multi"),
    "tmdb": ("restbench",),
    "bundled": ("bundled",),
}


def exposure(encoder: Any, reranker: Any, ranking: Any = None) -> dict[str, Any]:
    """What each model was trained on, from its card: which suites it saw (out-of-domain
    figures are those of suites it never saw), and, for one trained on a user's labelled
    requests (``--requests``), the card's ``data.requests`` (file, counts, split)."""
    out: dict[str, Any] = {}
    roles = (("encoder", encoder), ("reranker", reranker), ("ranking", ranking))
    for role, model in roles:
        if model is None and role == "ranking":
            continue
        card = getattr(model, "card", None)
        if not isinstance(card, dict):
            out[role] = {"identity": getattr(model, "identity", None), "trained_on": None}
            continue
        data = card.get("data", {})
        requests = data.get("requests")
        if isinstance(requests, dict) and isinstance(requests.get("requests"), dict):
            requests = requests["requests"]  # train-ranking nests it once more
        if isinstance(requests, dict) and "heldout_ids_sha256" in requests:  # --requests
            out[role] = {
                "identity": getattr(model, "identity", None),
                "trained_on": [f"requests:{requests.get('file')}"],
                "suites_seen": [],
                "requests": requests,
            }
            continue
        if role == "ranking":  # listed only where trained on --requests, as before
            continue
        corpus = data.get("corpus") or {}
        sources = sorted(corpus.get("records", {})) or sorted(data.get("sources", {}))
        seen = {
            suite
            for source in sources
            for prefix, suites in _SUITES_OF_SOURCE.items()
            if source.split(":")[-1 if source.startswith("synth:") else 0] == prefix
            for suite in suites
        }
        out[role] = {
            "identity": getattr(model, "identity", None),
            "trained_on": sources,
            "suites_seen": sorted(seen),
        }
    return out


def korean_pairs(encoder: Any, reranker: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The 30 Korean bundled queries beside their English counterparts
    (``data/queries/materials_ko_en.json``, same gold), every split: Recall@5 of the router
    (fusion and reranked) and, with the shipped abstention model, false abstention on the
    positives and rejection of the negatives, for each language."""
    from importlib import resources

    from schemarouter.retrieval.abstention import AbstentionModel
    from schemarouter.training.datasets.bundled_suite import load_bundled

    router = harness.make_router(QueryMemo(encoder), cache=args.cache, reranker=reranker)
    bench = load_bundled(router, split=None)
    by_id = {q.id: q for q in bench.queries}
    path = resources.files("schemarouter.data").joinpath("queries", "materials_ko_en.json")
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    model = AbstentionModel.shipped() if args.abstention else None
    rows: dict[str, list[dict[str, float]]] = {"ko": [], "en": []}
    for pair in pairs:
        q = by_id[pair["id"]]
        for lang, text in (("ko", q.text), ("en", pair["en"])):
            row: dict[str, float] = {}
            if not q.negative:
                for name, rerank in (("hybrid", False), ("hybrid+rerank", True)):
                    if rerank and reranker is None:
                        continue
                    ranked = list(router.retrieve(text, k=5, rerank=rerank).route_ids)
                    row[f"{name} r@5"] = M.recall_at(ranked, q.needs, 5)
            if model is not None:
                row.update(harness.verdict_row(router, model, text, negative=q.negative))
            rows[lang].append(row)
    out: dict[str, Any] = {"pairs": len(pairs)}
    for lang, items in rows.items():
        names = sorted({k for r in items for k in r})
        out[lang] = {
            name: {
                "mean": M.mean([r.get(name, float("nan")) for r in items]),
                "n": sum(1 for r in items if name in r),
            }
            for name in names
        }
    return out
