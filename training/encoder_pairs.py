"""Training triplets for the tool-retrieval encoder: (request, its tool, a hard negative).

From the tooltrain corpus (:mod:`.datasets.tooltrain`), source-balanced: SGD (88 intents) and
tldr (27,966 requests) would otherwise be most of the data, so every source has a cap on
pairs and on pairs per tool (:data:`DEFAULT_CAPS`), drawn with a fixed seed. A multi-tool
request gives one pair per tool it needs; so does each request of several parts composed from
the split's own requests (``EncoderPairConfig.composed``, :mod:`.datasets.composed`), its
negative mined in the source of the tool it pairs with.

Tool texts are the index's own dense endpoint texts
(:func:`schemarouter.index.documents.endpoint_texts` of the route the MCP adapter compiles),
so the encoder learns on exactly what it will embed.

**Hard negatives** come from the current index: each source's catalog is indexed by the
router's hybrid index (BM25 + the encoder given, fusion as shipped), each request searched,
its positives dropped, and one negative drawn from the top :data:`NEGATIVE_POOL` that remain.
For sources that list candidates with each request (BFCL, ToolAlpaca, tau-bench) those
candidates come first. A hit whose dense score is within :data:`FALSE_NEGATIVE_MARGIN` of the
best positive's is skipped (likely another correct tool: tldr has many ``ls``-alikes).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from schemarouter.training.datasets.composed import COMPOSED_SOURCE, compose_requests
from schemarouter.training.datasets.tooltrain import (
    ToolTrain,
    TrainRecord,
    TrainTool,
    tool_route,
)

__all__ = [
    "DEFAULT_CAPS",
    "EncoderPairConfig",
    "SourceIndex",
    "Triplet",
    "build_triplets",
    "config_dict",
    "load_triplets",
    "sample_pairs",
    "save_triplets",
    "source_index",
]

logger = logging.getLogger(__name__)

#: source -> (most pairs, most pairs per tool); None = no cap.
DEFAULT_CAPS: dict[str, tuple[int | None, int | None]] = {
    "seal_tools": (None, 6),
    "bfcl": (None, 6),
    "gorilla_apibench": (None, 4),
    "nestful": (None, None),
    "toolalpaca": (None, None),
    "api_bank": (None, 8),
    "tooltalk": (None, 8),
    "tooleyes": (None, 8),
    "tau_bench": (500, 30),
    "sgd": (3000, 40),
    "tldr": (8000, 2),
}
#: Hard negatives are drawn from this many best-ranked non-positive tools.
NEGATIVE_POOL = 5
#: Skip a would-be negative whose dense score is at least this share of the best positive's.
FALSE_NEGATIVE_MARGIN = 0.98


class Triplet(NamedTuple):
    query: str
    positive: str
    negative: str
    source: str


@dataclass(frozen=True)
class EncoderPairConfig:
    sources: tuple[str, ...] = tuple(DEFAULT_CAPS)
    caps: Mapping[str, tuple[int | None, int | None]] = field(
        default_factory=lambda: dict(DEFAULT_CAPS)
    )
    split: str = "train"
    seed: int = 0
    #: requests of several parts composed from the split's requests (:mod:`.datasets.composed`),
    #: one triplet per tool they need, mined in that tool's source
    composed: int = 0


@dataclass
class SourceIndex:
    """One source's catalog in a hybrid index, and the way back from routes to tools."""

    router: Any
    route_of: dict[str, str]  # tool key -> route id
    tool_of: dict[str, str]  # route id -> tool key
    dense_text: dict[str, str]  # tool key -> the index's dense endpoint text


def _unique_route(tool: TrainTool) -> Any:
    """The tool's route with a provider id made unique by the tool's key (texts unchanged)."""
    route = tool_route(tool)
    digest = hashlib.sha256(tool.key.encode()).hexdigest()[:8]
    provider = route.provider.model_copy(update={"id": f"{route.provider.id}-{digest}"[:120]})
    from schemarouter.contracts import Route

    return Route.build(provider, route.access, route.endpoint, source=route.source)


def source_index(
    tools: Mapping[str, TrainTool], keys: Sequence[str], *, encoder: Any, cache: Any = None
) -> SourceIndex:
    """A router (no reranker, no abstention) holding ``keys`` of ``tools``, index built."""
    from schemarouter.contracts import Registration
    from schemarouter.index.documents import endpoint_texts
    from schemarouter.router import SchemaRouter

    routes = []
    route_of: dict[str, str] = {}
    dense: dict[str, str] = {}
    for key in keys:
        route = _unique_route(tools[key])
        routes.append(route)
        route_of[key] = route.route_id
        dense[key] = endpoint_texts(route)[1]
    kwargs: dict[str, Any] = {
        "encoder": encoder,
        "reranker": None,
        "abstention": None,
        "multi_intent": False,  # fusion's own order: what the reranker's window holds
        "prerequisites": False,
    }
    if cache is not None:
        kwargs["embedding_cache"] = cache
    router = SchemaRouter(**kwargs)
    providers = {r.provider.id: r.provider for r in routes}
    router.register(
        Registration(
            source="tooltrain",
            providers=tuple(providers[k] for k in sorted(providers)),
            routes=tuple(sorted(routes, key=lambda r: r.route_id)),
        )
    )
    _ = router.index  # build now, with its progress, not on the first query
    return SourceIndex(router, route_of, {v: k for k, v in route_of.items()}, dense)


def sample_pairs(
    records: Sequence[TrainRecord], caps: tuple[int | None, int | None], rng: random.Random
) -> list[tuple[TrainRecord, str]]:
    """(record, positive key) pairs under the source's caps, in a seeded order."""
    total, per_tool = caps
    pairs = [(r, p) for r in records for p in r.positives]
    rng.shuffle(pairs)
    kept: list[tuple[TrainRecord, str]] = []
    used: dict[str, int] = {}
    for record, positive in pairs:
        if per_tool is not None and used.get(positive, 0) >= per_tool:
            continue
        used[positive] = used.get(positive, 0) + 1
        kept.append((record, positive))
        if total is not None and len(kept) >= total:
            break
    return kept


def _negative(
    index: SourceIndex, record: TrainRecord, rng: random.Random, *, depth: int = 30
) -> str | None:
    """A hard negative's tool key for ``record`` (see the module docstring)."""
    hits = index.router.index.search(record.query, k=depth)
    positives = set(record.positives)
    texts = {index.dense_text[p] for p in positives if p in index.dense_text}
    best_positive = max(
        (h.dense_score for h in hits if index.tool_of.get(h.route_id) in positives), default=None
    )
    ranked: list[str] = []
    for hit in hits:
        key = index.tool_of.get(hit.route_id)
        if key is None or key in positives or index.dense_text.get(key) in texts:
            continue
        if best_positive is not None and hit.dense_score >= FALSE_NEGATIVE_MARGIN * best_positive:
            continue
        ranked.append(key)
    if record.candidates:  # the request's own candidates first (natural hard negatives)
        own = set(record.candidates)
        ranked = [k for k in ranked if k in own] + [k for k in ranked if k not in own]
        if not ranked:
            ranked = [k for k in record.candidates if k not in positives]
    pool = ranked[:NEGATIVE_POOL]
    return rng.choice(pool) if pool else None


def build_triplets(
    corpus: ToolTrain,
    config: EncoderPairConfig,
    *,
    encoder: Any,
    cache: Any = None,
    progress: bool = True,
    log: Callable[[str], Any] = logger.info,
) -> tuple[list[Triplet], dict[str, Any]]:
    """Triplets and a manifest (config, counts per source, corpus hashes)."""
    rng = random.Random(config.seed)
    by_source = corpus.by_source(config.split)
    composed_pairs = _composed_pairs(corpus, by_source, config)
    triplets: list[Triplet] = []
    counts: dict[str, dict[str, int]] = {}
    for source in config.sources:
        records = by_source.get(source, [])
        if not records:
            continue
        chosen = sample_pairs(records, config.caps.get(source, (None, None)), rng)
        extra = composed_pairs.get(source, [])
        chosen += extra
        keys = corpus.catalogs[source]
        log(
            f"{source}: {len(chosen)} pairs from {len(records)} requests; "
            f"indexing {len(keys)} tools"
        )
        index = source_index(corpus.tools, keys, encoder=encoder, cache=cache)
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(chosen), desc=f"mining {source}", unit="pair", file=sys.stderr)
        missing = 0
        for record, positive in chosen:
            negative = _negative(index, record, rng)
            if negative is None:
                missing += 1
            else:
                triplets.append(
                    Triplet(
                        record.query,
                        index.dense_text[positive],
                        index.dense_text[negative],
                        record.source if record.source == COMPOSED_SOURCE else source,
                    )
                )
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        counts[source] = {
            "requests": len(records),
            "composed_pairs": len(extra),
            "pairs": len(chosen) - missing,
            "without_negative": missing,
            "tools": len(keys),
        }
    manifest = {
        "config": config_dict(config),
        "encoder_for_mining": getattr(encoder, "identity", repr(encoder)),
        "counts": counts,
        "corpus": corpus.manifest(),
    }
    return triplets, manifest


def _composed_pairs(
    corpus: ToolTrain,
    by_source: Mapping[str, Sequence[TrainRecord]],
    config: EncoderPairConfig,
) -> dict[str, list[tuple[TrainRecord, str]]]:
    """source -> (composed record, one of its positives from that source) pairs."""
    if not config.composed:
        return {}
    pool = {s: by_source.get(s, []) for s in config.sources}
    out: dict[str, list[tuple[TrainRecord, str]]] = {}
    for record, _parts in compose_requests(
        pool, n=config.composed, seed=config.seed, split=config.split
    ):
        for positive in record.positives:
            out.setdefault(corpus.tools[positive].source, []).append((record, positive))
    return out


def config_dict(config: EncoderPairConfig) -> dict[str, Any]:
    out = asdict(config)
    out["caps"] = {k: list(v) for k, v in config.caps.items()}
    out["sources"] = list(config.sources)
    return out


def save_triplets(path: Path, triplets: Sequence[Triplet], manifest: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_suffix(".tmp")
    with open(staged, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"manifest": manifest}) + "\n")
        for t in triplets:
            handle.write(json.dumps(t._asdict(), ensure_ascii=False) + "\n")
    staged.replace(path)


def load_triplets(path: str | Path) -> tuple[list[Triplet], dict[str, Any]]:
    """The triplets and manifest :func:`save_triplets` wrote; a
    :class:`~schemarouter.errors.DocumentError` at ``file:line`` for an empty file, a line
    that is no JSON or nests too deep, or a record with the wrong keys or types."""
    from schemarouter.errors import DocumentError
    from schemarouter.training.records import check_record, read_json_lines

    what = "triplets file"
    lines = read_json_lines(path, what=what)
    number, head = lines[0]
    if not (
        isinstance(head, dict) and set(head) == {"manifest"} and isinstance(head["manifest"], dict)
    ):
        raise DocumentError(
            'the first line of a triplets file is {"manifest": {...}}',
            where=f"{path}:{number}",
            hint="Pass a triplets file `schemarouter train-encoder` wrote (work/triplets.jsonl)",
        )
    fields = dict.fromkeys(Triplet._fields, str)
    triplets = [
        Triplet(**check_record(value, required=fields, where=f"{path}:{n}", what=what))
        for n, value in lines[1:]
    ]
    if not triplets:
        raise DocumentError(
            "the triplets file holds a manifest and no triplets",
            where=str(path),
            hint="Build the triplets anew (drop --triplets)",
        )
    return triplets, head["manifest"]
