"""The tool-retrieval training corpus in ``shared/data/tooltrain/``: one reader for every trainer.

The corpus (see its README) holds 71,641 requests with their correct tools from eleven public
sets, plus 854 requests that none of their candidate tools serves (``bfcl_irrelevance``). Every
evaluation family this project reports on (StableToolBench / RapidAPI, RestBench, MetaTool,
LiveMCPBench) was removed from it by its authors; :mod:`schemarouter.training.overlap` checks
that again against the suites as this project loads them.

This module reads it into plain records and turns each tool into a registered-looking
:class:`~schemarouter.contracts.Route`, compiled by the same MCP adapter users call
(``add_mcp_tools``: the tool's ``parameters`` become its ``inputSchema``), so training text is
written by the very functions the index and the reranker use
(:func:`schemarouter.index.documents.endpoint_texts`,
:func:`schemarouter.retrieval.rerank.route_text`).

Each tool gets a provider, as a user's tool would: the service or API it belongs to where the
source names one (``Banks_1`` of ``Banks_1.TransferMoney``, ``Nager.Date`` of a ToolAlpaca API,
the tldr platform, the Gorilla hub, the tau-bench domain), else the source's own name.

Splits are by a hash of each positive tool's key (the corpus's ``split_key`` rule applied to
every positive), so a tool sits on one side only: ``split="val"`` holds about ``val_share`` of
the tools and the requests all of whose tools are there; a multi-tool request whose tools
fall on both sides is ``mixed`` and used by neither.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemarouter.training.datasets.composed import compose_requests
from schemarouter.training.datasets.shared_data import shared_data_dir
from schemarouter.training.datasets.train_record import TrainRecord

__all__ = [
    "CATALOG_SOURCES",
    "INLINE_SOURCES",
    "NEGATIVE_SOURCES",
    "SOURCES",
    "ToolTrain",
    "TrainRecord",
    "TrainTool",
    "load_tooltrain",
    "tool_route",
]

#: Sources whose records list only their positives; the whole catalog is ``<source>.tools.jsonl``.
CATALOG_SOURCES = (
    "seal_tools",
    "gorilla_apibench",
    "nestful",
    "api_bank",
    "tooltalk",
    "tooleyes",
    "sgd",
    "tldr",
)
#: Sources whose records carry their own candidate list (natural hard negatives).
INLINE_SOURCES = ("bfcl", "toolalpaca", "tau_bench")
#: Records whose candidates serve none of them (``positives == []``).
NEGATIVE_SOURCES = ("bfcl_irrelevance",)
SOURCES = CATALOG_SOURCES + INLINE_SOURCES

#: Licenses by source (tooltrain/README.md); the model cards repeat them.
LICENSES = {
    "seal_tools": "Apache-2.0",
    "bfcl": "Apache-2.0",
    "bfcl_irrelevance": "Apache-2.0",
    "gorilla_apibench": "Apache-2.0",
    "nestful": "Apache-2.0 (glaive part) / CC-BY-SA-4.0 (SGD part)",
    "toolalpaca": "Apache-2.0",
    "api_bank": "Apache-2.0",
    "tooltalk": "MIT",
    "tooleyes": "Apache-2.0",
    "tau_bench": "MIT",
    "sgd": "CC-BY-SA-4.0 (Rastogi et al. 2020, Google)",
    "tldr": "CC-BY-4.0 (the tldr-pages team and contributors)",
}

_DISPLAY = {
    "seal_tools": "Seal-Tools",
    "bfcl": "BFCL",
    "bfcl_irrelevance": "BFCL",
    "gorilla_apibench": "Gorilla",
    "nestful": "NESTFUL",
    "toolalpaca": "ToolAlpaca",
    "api_bank": "API-Bank",
    "tooltalk": "ToolTalk",
    "tooleyes": "ToolEyes",
    "tau_bench": "tau-bench",
    "sgd": "SGD",
    "tldr": "tldr",
}
_ALPACA_API = re.compile(r"\(API: ([^)]{1,80}?)(?: - [^)]*)?\)\s*$")


@dataclass(frozen=True)
class TrainTool:
    """One tool as the corpus writes it."""

    source: str
    name: str
    description: str
    parameters: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)

    @property
    def key(self) -> str:
        """Unique across sources and variants: two records may define a name differently."""
        body = json.dumps([self.description, self.parameters], sort_keys=True, default=str)
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:10]
        return f"{self.source}:{self.name}:{digest}"


@dataclass
class ToolTrain:
    records: list[TrainRecord]
    tools: dict[str, TrainTool]
    #: source -> keys of its catalog (the tools file, or the union of inline candidates)
    catalogs: dict[str, list[str]]
    root: Path
    files: dict[str, str] = field(default_factory=dict)  # file name -> sha256

    def by_source(self, split: str | None = None) -> dict[str, list[TrainRecord]]:
        out: dict[str, list[TrainRecord]] = {}
        for r in self.records:
            if split is None or r.split == split:
                out.setdefault(r.source, []).append(r)
        return out

    def manifest(self) -> dict[str, Any]:
        counts: dict[str, dict[str, int]] = {}
        for r in self.records:
            row = counts.setdefault(r.source, {"train": 0, "val": 0, "mixed": 0})
            row[r.split] = row.get(r.split, 0) + 1
        return {
            "root": "tooltrain/",
            "files_sha256": dict(sorted(self.files.items())),
            "records": counts,
            "tools": len(self.tools),
            "licenses": {s: LICENSES[s] for s in sorted(counts)},
        }


def _split_of(keys: Iterable[str], val_share: float, seed: int) -> str:
    """``val`` when every positive's key hashes into the validation share, ``train`` when
    none does, ``mixed`` otherwise (such a request is in neither split: training on it would
    show a validation tool)."""
    sides = set()
    for key in keys:
        digest = hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:8]
        sides.add("val" if int(digest, 16) % 10_000 < val_share * 10_000 else "train")
    return sides.pop() if len(sides) == 1 else "mixed"


def _norm_key(source: str, name: str) -> str:
    """The corpus's split key for a tool name (SGD version suffixes dropped; see README)."""
    low = name.lower()
    if source == "sgd" or re.match(r"^[a-z]+_\d+\.", low):
        low = re.sub(r"_\d+(?=\.|$)", "", low)
    if source == "tldr":
        return "cli:" + low.split("/", 1)[-1]
    return low


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def load_tooltrain(
    data: str | Path | None = None,
    *,
    sources: Sequence[str] | None = None,
    negatives: bool = True,
    val_share: float = 0.03,
    seed: int = 0,
) -> ToolTrain:
    """Read the corpus from ``<data>/tooltrain`` (``data``: the shared data folder)."""
    root = shared_data_dir(data) / "tooltrain"
    if not root.is_dir():
        raise FileNotFoundError(
            f"no tooltrain corpus at {root}: pass --data (the shared data folder) or set "
            "SCHEMAROUTER_SHARED_DATA"
        )
    wanted = list(sources or SOURCES) + (list(NEGATIVE_SOURCES) if negatives else [])
    unknown = [s for s in wanted if s not in SOURCES + NEGATIVE_SOURCES]
    if unknown:
        raise ValueError(f"unknown tooltrain sources {unknown}; known: {list(SOURCES)}")
    tools: dict[str, TrainTool] = {}
    catalogs: dict[str, list[str]] = {}
    records: list[TrainRecord] = []
    files: dict[str, str] = {}

    def add(source: str, raw: Mapping[str, Any]) -> str:
        tool = TrainTool(
            source=source,
            name=str(raw["name"]),
            description=str(raw.get("description") or ""),
            parameters=raw.get("parameters") if isinstance(raw.get("parameters"), dict) else None,
        )
        key = tool.key
        if key not in tools:
            tools[key] = tool
            catalogs.setdefault(source, []).append(key)
        return key

    for source in wanted:
        catalog_file = root / f"{source}.tools.jsonl"
        by_name: dict[str, str] = {}
        if source in CATALOG_SOURCES and catalog_file.exists():
            files[catalog_file.name] = hashlib.sha256(catalog_file.read_bytes()).hexdigest()
            for raw in _lines(catalog_file):
                by_name.setdefault(str(raw["name"]), add(source, raw))
        path = root / f"{source}.jsonl"
        files[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        for raw in _lines(path):
            inline = {str(t["name"]): add(source, t) for t in raw.get("tools") or []}
            names = [str(p) for p in raw.get("positives") or []]
            # the catalog's definition where there is one (records repeat it), else inline
            positives = tuple(
                by_name.get(n) or inline[n] for n in names if n in by_name or n in inline
            )
            pkeys = tuple(_norm_key(source, n) for n in names) or (str(raw.get("split_key", "")),)
            records.append(
                TrainRecord(
                    query=str(raw["query"]),
                    source=source,
                    split_key=str(raw.get("split_key") or ""),
                    positives=positives,
                    candidates=tuple(inline.values()) if source not in CATALOG_SOURCES else (),
                    positive_keys=pkeys,
                    split=_split_of(pkeys, val_share, seed),
                )
            )
    return ToolTrain(records=records, tools=tools, catalogs=catalogs, root=root, files=files)


def provider_of(tool: TrainTool) -> tuple[str, str]:
    """``(provider display name, tool name inside it)`` for ``tool`` (see the docstring)."""
    source, name = tool.source, tool.name
    if source == "sgd" and "." in name:
        service, _, intent = name.partition(".")
        return service, intent
    if source == "tldr" and "/" in name:
        platform, _, command = name.partition("/")
        return f"{platform} command line", command
    if source == "tooleyes" and "/" in name:
        category, _, kit = name.partition("/")
        return category, kit
    if source == "gorilla_apibench" and ":" in name:
        hub, _, model = name.partition(":")
        return {"tfhub": "TensorFlow Hub", "hf": "Hugging Face", "torchhub": "PyTorch Hub"}.get(
            hub, hub
        ), model
    if source == "toolalpaca":
        found = _ALPACA_API.search(tool.description)
        if found:
            return found.group(1).strip(), name
    if source == "tau_bench":
        return "tau-bench", name
    if "." in name and source in ("bfcl", "bfcl_irrelevance"):
        head, _, tail = name.rpartition(".")
        if head and tail:
            return head, name
    return _DISPLAY.get(source, source), name


def tool_route(tool: TrainTool) -> Any:
    """``tool`` compiled into a Route by the MCP adapter (as ``add_mcp_tools`` would)."""
    from schemarouter.adapters.mcp import mcp_tools_registration
    from schemarouter.contracts import Provider
    from schemarouter.registry.compile import slugify

    display, name = provider_of(tool)
    schema = dict(tool.parameters) if tool.parameters else {"type": "object", "properties": {}}
    if schema.get("type") != "object" or not isinstance(schema.get("properties", {}), dict):
        schema = {"type": "object", "properties": {}}
    provider = Provider(id=slugify(display) or "tool", display_name=display[:256])
    listing = {
        "tools": [{"name": name[:256], "description": tool.description, "inputSchema": schema}]
    }
    try:
        registration = mcp_tools_registration(listing, provider=provider)
    except Exception:  # a schema the adapter refuses: the tool without its parameters
        listing["tools"][0]["inputSchema"] = {"type": "object", "properties": {}}
        registration = mcp_tools_registration(listing, provider=provider)
    return registration.routes[0]


def register_tools(
    router: Any,
    corpus: ToolTrain,
    records: Sequence[TrainRecord],
    *,
    distractors: int,
    rng: Any,
) -> tuple[dict[str, str], dict[str, Any]]:
    """Register the tools ``records`` need (and their candidates), plus up to
    ``distractors`` seeded others from each of their sources' catalogs, in ``router``
    through ``add_mcp_tools`` (one provider per source and provider name).

    Returns ``(tool key -> route id, route id -> tool key)``. Two definitions of one name
    under one provider share the first's route.
    """
    from schemarouter.contracts import Provider
    from schemarouter.training.datasets.suite import unique_slug

    keys: dict[str, None] = {}
    for r in records:
        keys.update(dict.fromkeys(r.positives))
        keys.update(dict.fromkeys(r.candidates))
    for source in sorted({r.source for r in records}):
        pool = [k for k in corpus.catalogs.get(source, []) if k not in keys]
        keys.update(dict.fromkeys(rng.sample(pool, min(len(pool), distractors))))
    groups: dict[tuple[str, str], list[TrainTool]] = {}
    for key in keys:
        tool = corpus.tools[key]
        display, _ = provider_of(tool)
        groups.setdefault((tool.source, display), []).append(tool)
    taken: set[str] = set(router.snapshot().providers)
    route_of: dict[str, str] = {}
    route_keys: dict[str, Any] = {}
    for (source, display), tools in sorted(groups.items()):
        pid = unique_slug(f"{source}-{display}", taken)
        listing: list[dict[str, Any]] = []
        seen: set[str] = set()
        for tool in tools:
            name = provider_of(tool)[1][:256]
            if name in seen:
                continue
            seen.add(name)
            route = tool_route(tool)  # the adapter's own check of the schema
            schema = route.endpoint.input_schema or {"type": "object", "properties": {}}
            listing.append({"name": name, "description": tool.description, "inputSchema": schema})
        router.add_mcp_tools({"tools": listing}, provider=Provider(id=pid, display_name=display))
        ids = {r.endpoint.name: r.route_id for r in router.snapshot().routes_of(pid)}
        for tool in tools:
            route_id = ids[provider_of(tool)[1][:256]]
            route_of[tool.key] = route_id
            route_keys.setdefault(route_id, tool.key)
    return route_of, route_keys


#: Requests per source in the validation suite, and distractor tools per source.
SUITE_QUERIES = 150
SUITE_DISTRACTORS = 250
#: ``split`` of the development suite whose requests are composed of 2-3 validation requests.
COMPOSED_SPLIT = "composed"
COMPOSED_QUERIES = 300


def load_tooltrain_suite(
    router: Any,
    data: str | Path | None = None,
    *,
    split: str = "val",
    queries_per_source: int = SUITE_QUERIES,
    distractors: int = SUITE_DISTRACTORS,
    seed: int = 0,
) -> Any:
    """Register tooltrain's ``split`` tools (plus seeded distractors from each source's
    catalog) in ``router`` through ``add_mcp_tools`` and return its requests as a
    :class:`~schemarouter.training.datasets.suite.Benchmark`.

    This is the project's **development** suite: every setting chosen for the encoder, fusion,
    the reranker, abstention and multi-intent coverage is chosen here, never on the
    evaluation suites. Tools sit on one side of the train/val split only (see
    :func:`load_tooltrain`), so nothing here was trained on. Requests from
    ``bfcl_irrelevance`` (no tool serves them) become negative queries. ``split="composed"``
    gives :data:`COMPOSED_QUERIES` requests of 2-3 parts, each part a validation request
    (:mod:`schemarouter.training.datasets.composed`).
    """
    import random

    from schemarouter.training.datasets.suite import Benchmark, EvalQuery, all_needed

    corpus = load_tooltrain(data, seed=seed)
    rng = random.Random(seed)
    chosen: list[TrainRecord] = []
    negatives: list[TrainRecord] = []
    parts: list[TrainRecord] = []
    if split == COMPOSED_SPLIT:
        composed = compose_requests(
            corpus.by_source("val"), n=COMPOSED_QUERIES, seed=seed, split="val"
        )
        chosen = [record for record, _ in composed]
        parts = [part for _, used in composed for part in used]
    else:
        for source, records in sorted(corpus.by_source(split).items()):
            if source in NEGATIVE_SOURCES:
                negatives = rng.sample(records, min(len(records), queries_per_source))
                continue
            chosen += rng.sample(records, min(len(records), queries_per_source))
    # a composed request's tools come with the distractors of its parts' sources
    route_of, route_keys = register_tools(
        router, corpus, parts or chosen, distractors=distractors, rng=rng
    )
    queries: list[EvalQuery] = []
    for i, r in enumerate(chosen):
        gold = tuple(dict.fromkeys(route_of[p] for p in r.positives))
        queries.append(
            EvalQuery(
                id=f"{r.source}:{i}",
                text=r.query,
                gold=gold,
                needs=all_needed(gold),
                category=r.source,
                split="dev",
            )
        )
    for i, r in enumerate(negatives):
        queries.append(
            EvalQuery(
                id=f"{r.source}:{i}",
                text=r.query,
                gold=(),
                needs=(),
                category=r.source,
                split="dev",
            )
        )
    notes = {"split": split, "sources": sorted({r.source for r in chosen}), "seed": seed}
    return Benchmark.checked("tooltrain-val", router, queries, route_keys, notes)
