"""The write-intent development set: requests to create, send, update or delete, and their reads.

``data/queries/write_intent.json`` (written by hand per operation, before any retrieval was
run on it; docs/write_intent_set.md) names public documents of the shared data folder:
16 OpenAPI documents of ``openapi-permissive/`` and 15 MCP servers of
``mcp/livemcp_tools.json``. They are registered the way a user registers theirs
(``add_openapi`` of the file, ``add_mcp_tools`` of the server's listing), all in one router,
and each request's gold is its operation (plus the ``also`` operations that serve it as well:
one need, any of them meets it).

Other sets of the same fields (``WRITE_INTENT_SETS``): a second development set (``dev2``,
on APIs no other set registers), a held-out one on four other APIs, and three user-style
checks over catalogs no other set uses, whose ``catalog`` lists every document and server to
register beside those the requests name; an alternative on another document or server is
written ``home::operation``.

Queries are split in two by a hash of their document or server (every request on one API on
the same side): settings may be chosen on ``dev``, the ``test`` half is read only to report
(``dev2`` is development data whole: settings may be chosen on both its halves).
The category of a query is ``<intent>-<lang>`` (``write-en``, ``read-ko``, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from schemarouter.errors import SchemaRouterError
from schemarouter.training.datasets.suite import (
    Benchmark,
    EvalQuery,
    hash_split,
    unique_slug,
)

__all__ = [
    "WRITE_INTENT_SETS",
    "load_write_intent",
    "mcp_listings",
    "register_sources",
    "set_sources",
    "sibling_pairs",
    "write_intent_path",
]


#: The packaged sets: ``dev`` (settings chosen on its dev half), ``dev2`` (fresh development
#: data on eight APIs no other set registers; settings may be chosen on all of it),
#: ``heldout`` (four other APIs, written later, never used to choose anything) and three
#: user-style checks of reads and writes over catalogs the others do not ask about
#: (``user2``, ``user3`` held out; docs/write_intent_set.md).
WRITE_INTENT_SETS = {
    "dev": "write_intent.json",
    "dev2": "write_intent_dev2.json",
    "heldout": "write_intent_heldout.json",
    "user1": "user_check_1.json",
    "user2": "user_check_2.json",
    "user3": "user_check_3.json",
}


def write_intent_path(which: str = "dev") -> Traversable:
    """A packaged set (a resource of ``schemarouter.data``): a key of ``WRITE_INTENT_SETS``."""
    if which not in WRITE_INTENT_SETS:
        raise ValueError(f"unknown write-intent set {which!r} (one of {sorted(WRITE_INTENT_SETS)})")
    return resources.files("schemarouter.data") / "queries" / WRITE_INTENT_SETS[which]


def set_sources(spec: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The documents (``openapi-permissive/`` file names) and MCP servers (LiveMCPBench
    names) a set registers: every one a request names (its own, or an alternative's
    ``home::operation``), and those the set's ``catalog`` adds beside them."""
    items = spec["queries"]
    catalog = spec.get("catalog", {})
    homes = {a.rpartition("::")[0] for q in items for a in q.get("also", []) if "::" in a}
    documents = sorted(
        {q["document"] for q in items if q["kind"] == "openapi"}
        | {h for h in homes if h.endswith(".json")}
        | set(catalog.get("documents", []))
    )
    servers = sorted(
        {q["server"] for q in items if q["kind"] == "mcp"}
        | {h for h in homes if not h.endswith(".json")}
        | set(catalog.get("servers", []))
    )
    return documents, servers


def register_sources(
    router: Any,
    data: Path,
    documents: Sequence[str],
    servers: Sequence[str],
    *,
    listings: Mapping[str, list[dict[str, Any]]] | None = None,
    skipped: dict[str, str] | None = None,
) -> dict[str, str]:
    """Register ``documents`` (of ``data/openapi-permissive``) and LiveMCPBench ``servers``
    (from ``listings``, else read) in ``router``, each under a provider id from its name;
    name -> provider id. With ``skipped``, a document that does not register is recorded
    there (name -> error code) instead of raised."""
    taken: set[str] = set(router.snapshot().providers)
    provider_of: dict[str, str] = {}
    for name in documents:
        slug = unique_slug(name.split("__", 1)[0].split(".")[0], taken)
        try:
            router.add_openapi(data / "openapi-permissive" / name, provider=slug)
        except SchemaRouterError as exc:
            if skipped is None:
                raise
            skipped[name] = exc.code
            continue
        provider_of[name] = slug
    listings = mcp_listings(data) if listings is None else listings
    for name in servers:
        slug = unique_slug(name.split(":", 1)[0], taken)
        router.add_mcp_tools({"tools": listings[name]}, provider=slug)
        provider_of[name] = slug
    return provider_of


def mcp_listings(data: Path) -> dict[str, list[dict[str, Any]]]:
    """Server name (the dump's top-level ``name``) -> its tools, as ``tools/list`` gives them."""
    out: dict[str, list[dict[str, Any]]] = {}
    for server in json.loads((data / "mcp" / "livemcp_tools.json").read_text(encoding="utf-8")):
        tools: list[dict[str, Any]] = []
        for listing in (server.get("tools") or {}).values():
            for tool in listing.get("tools") or []:
                if not any(t["name"] == tool["name"] for t in tools):
                    tools.append(
                        {
                            "name": tool["name"],
                            "description": tool.get("description") or "",
                            "inputSchema": tool.get("inputSchema")
                            or {"type": "object", "properties": {}},
                        }
                    )
        out[str(server["name"])] = tools
    return out


def _operation_ids(router: Any, provider: str) -> dict[str, str]:
    """``"METHOD /path"`` (or a tool name) -> route id for the routes of ``provider``."""
    out: dict[str, str] = {}
    for route in router.snapshot().routes_of(provider):
        op = route.endpoint.operation
        if op.method and op.path is not None:
            out[f"{op.method.upper()} {op.path}"] = route.route_id
        out.setdefault(route.endpoint.name, route.route_id)
    return out


def load_write_intent(
    router: Any, data: str | Path, *, queries: str | Path | Traversable | None = None
) -> Benchmark:
    """Register the set's documents and servers in ``router``; its requests as a benchmark."""
    data = Path(data)
    source = Path(queries) if isinstance(queries, str | Path) else queries or write_intent_path()
    spec = json.loads(source.read_text(encoding="utf-8"))
    items = spec["queries"]
    documents, servers = set_sources(spec)
    provider_of = register_sources(router, data, documents, servers)
    ids = {key: _operation_ids(router, slug) for key, slug in provider_of.items()}
    out: list[EvalQuery] = []
    for q in items:
        home = q["document"] if q["kind"] == "openapi" else q["server"]
        gold = ids[home][f"{q['method']} {q['path']}" if q["kind"] == "openapi" else q["tool"]]
        also = []
        for other in q.get("also", []):
            where, _, operation = other.rpartition("::")
            also.append(ids[where or home][operation])
        routes = tuple(dict.fromkeys([gold, *also]))
        out.append(
            EvalQuery(
                id=q["id"],
                text=q["text"],
                gold=routes,
                needs=(frozenset(routes),),
                category=f"{q['intent']}-{q['lang']}",
                split=hash_split(home),
                alternatives=True,
            )
        )
    notes = {
        "documents": documents,
        "servers": servers,
        "written": spec.get("written"),
        "siblings": {q["id"]: _siblings(q, ids) for q in items},
    }
    return Benchmark.checked("write-intent", router, out, {}, notes)


def _siblings(q: Mapping[str, Any], ids: Mapping[str, Mapping[str, str]]) -> list[str]:
    home = q["document"] if q["kind"] == "openapi" else q["server"]
    return [ids[home][s] for s in q.get("siblings", []) if s in ids[home]]


def sibling_pairs(bench: Benchmark) -> Iterator[tuple[EvalQuery, str, str]]:
    """(query, its gold route, a sibling of the other intent) for every listed sibling."""
    siblings = bench.notes.get("siblings", {})
    for q in bench.queries:
        for sibling in siblings.get(q.id, []):
            yield q, q.gold[0], sibling
