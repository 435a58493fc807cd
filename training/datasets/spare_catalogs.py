"""Catalogs like a user's that no evaluation reads, and requests written from them: the
ranking stage's rows from OpenAPI documents and MCP listings (``train-ranking --synthetic``).

The packaged write-intent sets that existed when the shipped ranking model's rows were drawn
(:data:`SPARE_OF`: the dev and test halves, the held-out set and the three user-style checks)
register 52 of the 124 documents of ``openapi-permissive/`` and 56 of LiveMCPBench's 70
servers; the others (72 documents and 14 servers, about 1,700 routes) are *spare*. The
second development set (``dev2``), written later, asks about eight of those spare documents:
it is left out of :data:`SPARE_OF` so that ``train-ranking --synthetic`` still draws the rows
the shipped card records (its sha256s), and its readings of the ranking stage are not held
out (the stage is off by default; dev2 serves the rule-based reading of write intent).
:func:`register_spare_catalogs`
registers them, and :func:`spare_requests` writes one request per route with
:func:`schemarouter.training.synth.synth_queries` (the route's summary turned into a request,
its name in words, its provider named, two requests joined, a Korean one, a field asked for),
drawn with a fixed seed. The requests copy more of a route's own words than people do
(fusion finds 90% of them in its top 5), so they teach the stage little about paraphrase; what
they add is windows from REST and MCP catalogs, where a route sits among many siblings of one
provider, which tooltrain's catalogs rarely have.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from schemarouter.training.datasets.suite import EvalQuery, all_needed
from schemarouter.training.datasets.write_intent import (
    mcp_listings,
    register_sources,
    set_sources,
    write_intent_path,
)
from schemarouter.training.synth import synth_queries

__all__ = [
    "SPARE_OF",
    "SYNTH_SEED",
    "SYNTH_WEIGHTS",
    "evaluation_sources",
    "register_spare_catalogs",
    "spare_requests",
    "spare_sources",
]

#: The seed the requests are written and drawn with.
SYNTH_SEED = 7
#: How often each :func:`~schemarouter.training.synth.synth_queries` family is drawn.
SYNTH_WEIGHTS = {
    "describe": 0.45,
    "name": 0.15,
    "provider": 0.1,
    "multi": 0.2,
    "korean": 0.05,
    "field": 0.05,
}


#: The packaged sets whose documents and servers are not spare (see the module docstring).
SPARE_OF = ("dev", "heldout", "user1", "user2", "user3")


def evaluation_sources() -> tuple[set[str], set[str]]:
    """The documents and MCP servers that the sets of :data:`SPARE_OF` register."""
    documents: set[str] = set()
    servers: set[str] = set()
    for which in SPARE_OF:
        spec = json.loads(write_intent_path(which).read_text(encoding="utf-8"))
        docs, names = set_sources(spec)
        documents.update(docs)
        servers.update(names)
    return documents, servers


def spare_sources(
    data: Path, listings: dict[str, Any] | None = None
) -> tuple[list[str], list[str]]:
    """The documents of ``data/openapi-permissive`` and the LiveMCPBench servers (of
    ``listings``, else read) that no evaluation set registers."""
    used_documents, used_servers = evaluation_sources()
    documents = sorted(
        p.name for p in (data / "openapi-permissive").glob("*.json") if p.name not in used_documents
    )
    listings = mcp_listings(data) if listings is None else listings
    servers = sorted(name for name in listings if name not in used_servers)
    return documents, servers


def register_spare_catalogs(router: Any, data: Path) -> dict[str, Any]:
    """Register, in one batch, the :func:`spare_sources` of ``data``; what was registered,
    with each file's sha256 (a document that does not register is left out and named)."""
    listings = mcp_listings(data)
    documents, servers = spare_sources(data, listings)
    skipped: dict[str, str] = {}
    with router.batch():
        register_sources(router, data, documents, servers, listings=listings, skipped=skipped)
    files = [data / "openapi-permissive" / d for d in documents if d not in skipped]
    return {
        "documents": [d for d in documents if d not in skipped],
        "servers": servers,
        "skipped": skipped,
        "routes": len(router.snapshot()),
        "files_sha256": {
            **{f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files},
            "mcp/livemcp_tools.json": hashlib.sha256(
                (data / "mcp" / "livemcp_tools.json").read_bytes()
            ).hexdigest(),
        },
    }


def spare_requests(router: Any, n: int, *, seed: int = SYNTH_SEED) -> list[EvalQuery]:
    """Up to ``n`` synthetic requests over ``router``'s routes (one written per route with
    :data:`SYNTH_WEIGHTS`, then ``n`` of them drawn), each with the routes that serve it as
    gold."""
    snapshot = router.snapshot()
    routes = sorted(snapshot.routes.values(), key=lambda r: r.route_id)
    made = synth_queries(routes, per_route=1, seed=seed, weights=SYNTH_WEIGHTS)
    random.Random(seed).shuffle(made)
    return [
        EvalQuery(f"synthetic:{i}", q.text, q.routes, all_needed(q.routes), q.family)
        for i, q in enumerate(made[:n])
    ]
