"""Training pairs for the reranker: labelled public sets and synthetic queries, with hard
negatives, kept apart from every set reported as held out.

Sources (names used on the command line and in the model card):

* labelled sets, loaded through the evaluation loaders (:mod:`.datasets`), so the routes
  are registered exactly as the evaluation registers them: ``metatool`` (single-tool
  queries), ``g1`` (StableToolBench G1), ``tmdb`` (RestBench TMDB), ``bundled`` (the bundled
  catalog's labelled queries). A ``:dev`` or ``:test`` suffix keeps one half (the loaders'
  fixed split); the bundled set is only ever used as ``bundled:dev``.
* synthetic queries (:mod:`.synth`) written from catalogs: ``openapi`` (the 124 Swagger
  documents of ``openapi-permissive``), ``mcp`` (LiveMCPBench tool listings), ``bundled``
  (the bundled materials catalog, OPTIMADE route included), the catalogs of the labelled
  sets (``g1``, ``metatool``, ``tmdb``), or ``catalog:PATH`` (any catalog file or folder).

Each query becomes one :class:`PairGroup` per positive route: the query, the positive's
route text and hard negatives (:mod:`.negatives`). Held-out sets are kept apart three ways:
by name (a held-out set is refused as a training source, its catalog too), by file (their
files' sha256 go in the manifest) and by hash (a training query whose normalized text
hashes like a held-out query is dropped; a synthetic route whose text hashes like a
held-out catalog route is skipped). The bundled test split is always held out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schemarouter.retrieval.rerank import route_text
from schemarouter.training.negatives import DEFAULT_DEPTH, NegativeMiner
from schemarouter.training.synth import synth_queries

__all__ = [
    "LABELLED",
    "SYNTHETIC",
    "PairConfig",
    "PairGroup",
    "build_pairs",
    "load_pairs",
    "query_hash",
    "save_pairs",
]

logger = logging.getLogger(__name__)

LABELLED = ("metatool", "g1", "tmdb", "bundled", "tooltrain")
#: tooltrain sources -> (most groups, most groups per tool) for reranker pairs (``tooltrain``
#: or ``tooltrain:SOURCE`` on the command line; the training split only).
TOOLTRAIN_CAPS: dict[str, tuple[int | None, int | None]] = {
    "seal_tools": (1500, 3),
    "bfcl": (1500, 3),
    "gorilla_apibench": (600, 2),
    "nestful": (None, None),
    "toolalpaca": (None, None),
    "api_bank": (300, 4),
    "tooltalk": (None, 6),
    "tooleyes": (None, 6),
    "tau_bench": (250, 15),
    "sgd": (1200, 15),
    "tldr": (2000, 1),
}
SYNTHETIC = ("openapi", "mcp", "bundled", "g1", "metatool", "tmdb")
#: Files (under the shared data folder) behind each public set, hashed into the manifest.
SET_FILES = {
    "metatool": ("metatool/plugin_des.json", "metatool/all_clean_data.csv"),
    "g1": tuple(f"stabletoolbench/{n}.json" for n in ("G1_instruction", "G1_category", "G1_tool")),
    "tmdb": ("restbench/tmdb_oas.json", "restbench/tmdb_queries.json"),
}
#: Queries per source unless the config says otherwise (labelled sets: all but MetaTool).
DEFAULT_CAPS = {
    "metatool": 1500,
    "synth:openapi": 1200,
    "synth:mcp": 500,
    "synth:bundled": 300,
    "synth:g1": 700,
    "synth:metatool": 300,
    "synth:tmdb": 120,
}


def query_hash(text: str) -> str:
    """sha256 of a query's normalized text (lowercase, single spaces)."""
    return hashlib.sha256(" ".join(text.lower().split()).encode("utf-8")).hexdigest()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class PairGroup:
    """A query, one positive route text and its negatives' texts (one listwise example)."""

    query: str
    positive: str
    negatives: list[str]
    source: str
    kind: str = "labelled"
    positive_id: str = ""
    #: fused rank of the positive in the router's list (0: not in the top ``depth``)
    rank: int = 0
    negative_kinds: list[str] = field(default_factory=list)
    #: fused z-scores over the router's rerank window, the positive's first then the
    #: negatives' (a route outside the window gets the window's lowest); empty in pairs
    #: files written before they were recorded
    fused: list[float] = field(default_factory=list)


@dataclass
class PairConfig:
    """What to build pairs from (names as in the module docstring)."""

    train: tuple[str, ...] = ("metatool", "bundled:dev")
    synthetic: tuple[str, ...] = ("openapi", "mcp", "bundled")
    held_out: tuple[str, ...] = ("g1", "tmdb")
    caps: dict[str, int] = field(default_factory=dict)
    negatives: int = 7
    depth: int = DEFAULT_DEPTH
    per_route: int = 2
    seed: int = 0

    def cap(self, source: str) -> int | None:
        return self.caps.get(source, DEFAULT_CAPS.get(source))

    def check(self) -> None:
        """Refuse unknown names and any overlap between training and held-out sets."""
        whole = {h for h in self.held_out if ":" not in h}
        halves = {h.split(":")[0] for h in self.held_out if ":" in h}
        for name in self.train:
            base, _, half = name.partition(":")
            if base not in LABELLED:
                raise ValueError(f"unknown labelled set {name!r} (one of {', '.join(LABELLED)})")
            if base in whole or name in self.held_out or (base in halves and not half):
                raise ValueError(f"{name!r} is both a training source and held out")
            if base == "bundled" and half != "dev":
                raise ValueError("the bundled queries train only as 'bundled:dev'")
            if base == "tooltrain" and half and half not in TOOLTRAIN_CAPS:
                raise ValueError(f"unknown tooltrain source {half!r}")
        for name in self.synthetic:
            if not name.startswith("catalog:") and name not in SYNTHETIC:
                raise ValueError(f"unknown synthetic catalog {name!r}")
            if name in whole:
                raise ValueError(f"catalog {name!r} belongs to a held-out set")


# -- loading a set into a router ---------------------------------------------------------------


def _router(encoder: Any) -> Any:
    from schemarouter.router import SchemaRouter

    # fusion's own order (no multi-intent lifts): what the reranker's window holds
    return SchemaRouter(
        encoder=encoder, abstention=None, reranker=None, multi_intent=False, prerequisites=False
    )


#: Pair-source names -> the evaluation harness's suite names (loaded by the same loaders).
_SUITES = {"metatool": "metatool-single", "g1": "stabletoolbench", "tmdb": "restbench"}


def _benchmark(name: str, router: Any, data: Path, *, sample: int = 0) -> Any:
    """Labelled set ``name`` registered in ``router`` through the harness's
    :func:`~schemarouter.training.evaluate.load_suite` (``sample``: MetaTool queries, 0 all)."""
    from schemarouter.training.evaluate import load_suite

    if name not in LABELLED:
        raise ValueError(f"unknown set {name!r}")
    args = argparse.Namespace(data=data, metatool_sample=sample, split="all", beir=None)
    return load_suite(_SUITES.get(name, name), router, args)


def register_catalog(name: str, router: Any, data: Path) -> None:
    """Register the catalog of synthetic source ``name`` in ``router``."""
    from schemarouter.contracts import Provider
    from schemarouter.training.datasets.suite import unique_slug

    if name.startswith("catalog:"):
        router.add_catalog(name.removeprefix("catalog:"))
    elif name == "openapi":
        taken: set[str] = set()
        for path in sorted((data / "openapi-permissive").glob("*.json")):
            router.add_openapi(path, provider=unique_slug(path.stem.replace("__", "-"), taken))
    elif name == "mcp":
        taken = set()
        servers = json.loads((data / "mcp" / "livemcp_tools.json").read_text(encoding="utf-8"))
        for server in servers:
            tools = [t for listing in server["tools"].values() for t in listing.get("tools", [])]
            if tools:
                provider = Provider(
                    id=unique_slug(server["name"], taken), display_name=server["name"]
                )
                router.add_mcp_tools({"tools": tools}, provider=provider)
    elif name == "bundled":
        from schemarouter.training.datasets.bundled_suite import bundled_catalog_path

        router.add_catalog(bundled_catalog_path())
    else:
        _benchmark(name, router, data, sample=1)


# -- building ----------------------------------------------------------------------------------


def _held_out(config: PairConfig, data: Path, encoder: Any) -> tuple[set[str], set[str], dict]:
    """(query hashes, route-text hashes, manifest entry) of every held-out set."""
    from schemarouter.training.datasets.bundled import load_bundled_queries

    queries: set[str] = {query_hash(q.query) for q in load_bundled_queries(split="test")}
    routes: set[str] = set()
    files: dict[str, Any] = {
        "bundled:test": {
            "queries": len(queries),
            "query_hashes_sha256": hashlib.sha256("".join(sorted(queries)).encode()).hexdigest(),
        }
    }
    for name in config.held_out:
        base, _, half = name.partition(":")
        if base == "bundled":
            continue
        router = _router(encoder)
        bench = _benchmark(base, router, data)
        texts = [q.text for q in bench.queries if not half or q.split == half]
        hashes = {query_hash(t) for t in texts}
        queries |= hashes
        if not half:  # the whole set is held out: its catalog too
            routes |= {query_hash(route_text(r)) for r in router.snapshot()}
        files[name] = {
            "queries": len(hashes),
            "query_hashes_sha256": hashlib.sha256("".join(sorted(hashes)).encode()).hexdigest(),
            "files": {
                rel: _file_hash(data / rel)
                for rel in SET_FILES.get(base, ())
                if (data / rel).exists()
            },
        }
    return queries, routes, files


def _groups_for(
    miner: NegativeMiner,
    query: str,
    positives: Sequence[str],
    *,
    source: str,
    kind: str,
    config: PairConfig,
    fields: Sequence[str] = (),
) -> list[PairGroup]:
    mined = miner.mine(query, positives, n=config.negatives, fields=fields)
    if not mined.negatives:
        return []
    out = []
    floor = min(mined.fused_z.values(), default=0.0)

    def z(route_id: str) -> float:
        return round(mined.fused_z.get(route_id, floor), 4)

    for route_id, text in mined.positives.items():
        kept = [(r, t, k) for r, t, k in mined.negatives if t != text]
        if not kept:
            continue
        out.append(
            PairGroup(
                query=query,
                positive=text,
                negatives=[t for _, t, _ in kept],
                source=source,
                kind=kind,
                positive_id=route_id,
                rank=mined.ranks.get(route_id, 0),
                negative_kinds=[k for _, _, k in kept],
                fused=[z(route_id), *(z(r) for r, _, _ in kept)],
            )
        )
    return out


def _tooltrain_items(
    only: str, root: Path, encoder: Any, config: PairConfig, rng: random.Random
) -> Iterable[tuple[str, NegativeMiner, list[tuple[str, tuple, str, tuple]]]]:
    """Per tooltrain source: a miner over its whole catalog (hybrid index on ``encoder``)
    and its training-split requests under :data:`TOOLTRAIN_CAPS`."""
    from schemarouter.training.datasets.tooltrain import load_tooltrain
    from schemarouter.training.encoder_pairs import sample_pairs, source_index

    corpus = load_tooltrain(root, seed=config.seed)
    by_source = corpus.by_source("train")
    for source, caps in TOOLTRAIN_CAPS.items():
        if only and source != only:
            continue
        records = [r for r in by_source.get(source, []) if r.positives]
        if not records:
            continue
        chosen = sample_pairs(records, caps, random.Random(f"{config.seed}:tooltrain:{source}"))
        index = source_index(corpus.tools, corpus.catalogs[source], encoder=encoder)
        miner = NegativeMiner(index.router, depth=config.depth, seed=rng.randrange(1 << 30))
        items = [
            (record.query, (index.route_of[positive],), "labelled", ())
            for record, positive in chosen
        ]
        yield source, miner, items


def build_pairs(
    config: PairConfig,
    *,
    data: str | Path | None = None,
    encoder: Any = None,
    progress: bool = False,
    log: Callable[[str], Any] = logger.info,
) -> tuple[list[PairGroup], dict[str, Any]]:
    """Every training group of ``config`` and a manifest (sources, counts, hashes)."""
    from schemarouter.training.datasets.suite import shared_data_dir

    config.check()
    root = shared_data_dir(data)
    rng = random.Random(config.seed)
    held_queries, held_routes, held_manifest = _held_out(config, root, encoder)
    groups: list[PairGroup] = []
    sources: dict[str, Any] = {}
    dropped_by_hash = 0

    def bar(total: int, desc: str) -> Any:
        if not progress:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="query", dynamic_ncols=True)

    def run(source: str, miner: NegativeMiner, items: Iterable[tuple[str, tuple, str, tuple]]):
        nonlocal dropped_by_hash
        items = list(items)
        made, queries, shown = 0, 0, bar(len(items), source)
        for text, positives, kind, fields in items:
            if shown is not None:
                shown.update(1)
            if query_hash(text) in held_queries:
                dropped_by_hash += 1
                continue
            new = _groups_for(
                miner, text, positives, source=source, kind=kind, config=config, fields=fields
            )
            groups.extend(new)
            made += len(new)
            queries += bool(new)
        if shown is not None:
            shown.close()
        digest = hashlib.sha256("".join(sorted(query_hash(i[0]) for i in items)).encode())
        sources[source] = {
            "queries": queries,
            "groups": made,
            "query_hashes_sha256": digest.hexdigest(),
        }
        log(f"pairs: {source}: {queries} queries, {made} groups")

    routers: dict[str, Any] = {}
    for name in config.train:
        base, _, half = name.partition(":")
        if base == "tooltrain":
            for source, miner, items in _tooltrain_items(half, root, encoder, config, rng):
                run(f"tooltrain:{source}", miner, items)
            continue
        router = _router(encoder)
        cap = config.cap(base)
        # samples are seeded by source name: a seed shared with an evaluation sample would
        # draw the same rows (random.sample's first k picks do not depend on k)
        bench = _benchmark(base, router, root)
        routers[base] = router
        chosen = [q for q in bench.queries if not q.negative and (not half or q.split == half)]
        if cap and len(chosen) > cap:
            chosen = random.Random(f"{config.seed}:{name}").sample(chosen, cap)
        miner = NegativeMiner(router, depth=config.depth, seed=rng.randrange(1 << 30))
        run(name, miner, ((q.text, q.gold, "labelled", ()) for q in chosen))
        files = {
            rel: _file_hash(root / rel) for rel in SET_FILES.get(base, ()) if (root / rel).exists()
        }
        sources[name]["files"] = files
    for name in config.synthetic:
        key = name if name.startswith("catalog:") else f"synth:{name}"
        router = routers.get(name)
        if router is None:
            router = _router(encoder)
            register_catalog(name, router, root)
        routes = [r for r in router.snapshot() if query_hash(route_text(r)) not in held_routes]
        skipped = len(router.snapshot().routes) - len(routes)
        queries = synth_queries(routes, per_route=config.per_route, seed=rng.randrange(1 << 30))
        cap = config.cap(key)
        if cap and len(queries) > cap:
            queries = random.Random(f"{config.seed}:{key}").sample(queries, cap)
        miner = NegativeMiner(router, depth=config.depth, seed=rng.randrange(1 << 30))
        run(key, miner, ((q.text, q.routes, q.family, q.fields) for q in queries))
        sources[key]["routes"] = len(routes)
        sources[key]["routes_skipped_as_held_out"] = skipped
    manifest = {
        "config": asdict(config),
        "sources": sources,
        "held_out": held_manifest,
        "dropped_as_held_out_by_hash": dropped_by_hash,
        "groups": len(groups),
        "pairs": sum(1 + len(g.negatives) for g in groups),
    }
    return groups, manifest


def save_pairs(path: str | Path, groups: Sequence[PairGroup], manifest: dict[str, Any]) -> None:
    """``path`` (JSON lines, one group each) and ``path`` + ``.manifest.json``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for group in groups:
            handle.write(json.dumps(asdict(group), ensure_ascii=False) + "\n")
    Path(f"{path}.manifest.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


#: The fields of a pairs file's records (:class:`PairGroup`), required and optional.
_PAIR_FIELDS: dict[str, type | str] = {
    "query": str,
    "positive": str,
    "negatives": "list[str]",
    "source": str,
}
_PAIR_OPTIONAL: dict[str, type | str] = {
    "kind": str,
    "positive_id": str,
    "rank": int,
    "negative_kinds": "list[str]",
    "fused": "list[float]",
}


def load_pairs(path: str | Path) -> tuple[list[PairGroup], dict[str, Any]]:
    """The groups and manifest :func:`save_pairs` wrote; a
    :class:`~schemarouter.errors.DocumentError` at ``file:line`` for an empty file, a line
    that is no JSON or nests too deep, or a record with the wrong keys or types."""
    from schemarouter.training.records import check_record, read_json_file, read_json_lines

    path = Path(path)
    what = "pairs file"
    groups = [
        PairGroup(
            **check_record(
                value,
                required=_PAIR_FIELDS,
                optional=_PAIR_OPTIONAL,
                where=f"{path}:{number}",
                what=what,
            )
        )
        for number, value in read_json_lines(path, what=what)
    ]
    manifest_path = Path(f"{path}.manifest.json")
    exists = manifest_path.exists() or manifest_path.is_symlink()
    manifest = read_json_file(manifest_path, what="pairs manifest") if exists else {}
    return groups, manifest


@dataclass
class GroupCheck:
    """What :func:`check_groups` found in a file's groups (for the card and the warnings)."""

    given: int = 0
    without_negatives: int = 0
    duplicates: int = 0
    #: positive ids the catalog given does not register (checked only with a catalog)
    unknown_ids: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        out = []
        if self.without_negatives:
            out.append(
                f"{self.without_negatives} of {self.given} groups have no negatives (a listwise "
                "loss learns nothing from them): left out"
            )
        if self.duplicates:
            out.append(f"{self.duplicates} groups repeat an earlier one: each read once")
        if self.unknown_ids:
            named = ", ".join(map(repr, self.unknown_ids[:5]))
            more = f" and {len(self.unknown_ids) - 5} more" if len(self.unknown_ids) > 5 else ""
            out.append(
                f"{len(self.unknown_ids)} positive_id(s) the catalog does not register: "
                f"{named}{more}"
            )
        return out


def check_groups(
    groups: Sequence[PairGroup], registered: Any = None
) -> tuple[list[PairGroup], GroupCheck]:
    """``groups`` without those that have no negatives or repeat an earlier group (same
    query, positive and negatives), and the counts; ``registered`` (route ids), where given,
    is checked against each group's ``positive_id``."""
    check = GroupCheck(given=len(groups))
    seen: set[str] = set()
    unknown: dict[str, None] = {}
    kept = []
    for g in groups:
        if not g.negatives:
            check.without_negatives += 1
            continue
        key = json.dumps([query_hash(g.query), g.positive, g.negatives])
        if key in seen:
            check.duplicates += 1
            continue
        seen.add(key)
        if registered is not None and g.positive_id and g.positive_id not in registered:
            unknown[g.positive_id] = None
        kept.append(g)
    check.unknown_ids = list(unknown)
    return kept, check
