"""RestBench TMDB as a routing benchmark: the TMDB OpenAPI document and 100 queries.

* **Catalog**: ``tmdb_oas.json`` registered with
  ``router.add_openapi(path, provider="tmdb")`` (54 operations). Route ids are whatever the
  OpenAPI adapter makes of each operation; :attr:`Benchmark.route_keys` maps each to its
  ``(METHOD, path template)``.
* **Gold**: each query's ``solution``, a sequence of ``GET /path`` calls. A route is
  relevant if its call appears; every distinct call is needed. Calls are matched on method
  and path template after trimming whitespace; a call whose template differs only in the
  names of its ``{parameters}`` (the file has ``/person/{movie_id}/movie_credits`` once)
  matches the route with the same shape. Categories: the number of distinct calls.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from schemarouter.training.datasets.suite import (
    Benchmark,
    EvalQuery,
    all_needed,
    hash_split,
    shared_data_dir,
)

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

logger = logging.getLogger(__name__)

__all__ = ["load_restbench", "parse_call"]

_PARAM = re.compile(r"\{[^{}]*\}")


def parse_call(call: str) -> tuple[str, str]:
    """``"GET /movie/{movie_id} "`` -> ``("GET", "/movie/{movie_id}")``."""
    method, _, path = call.strip().partition(" ")
    return method.strip().upper(), path.strip()


def _shape(path: str) -> str:
    return _PARAM.sub("{}", path.rstrip("/"))


def load_restbench(
    router: SchemaRouter, data: str | Path | None = None, *, provider: str = "tmdb"
) -> Benchmark:
    """Register TMDB in ``router`` and return the 100 queries (see the docstring)."""
    root = shared_data_dir(data) / "restbench"
    router.add_openapi(root / "tmdb_oas.json", provider=provider)
    route_keys: dict[str, tuple[str, str]] = {}
    exact: dict[tuple[str, str], str] = {}
    shaped: dict[tuple[str, str], list[str]] = {}
    for route in router.snapshot().routes_of(provider):
        op = route.endpoint.operation
        key = (str(op.method or "").upper(), str(op.path or ""))
        route_keys[route.route_id] = key
        exact[key] = route.route_id
        shaped.setdefault((key[0], _shape(key[1])), []).append(route.route_id)
    items = json.loads((root / "tmdb_queries.json").read_text(encoding="utf-8"))
    queries: list[EvalQuery] = []
    repaired: list[str] = []
    unmatched: list[str] = []
    for i, item in enumerate(items):
        routes = []
        for call in item["solution"]:
            key = parse_call(call)
            if key in exact:
                routes.append(exact[key])
                continue
            candidates = shaped.get((key[0], _shape(key[1])), [])
            if len(candidates) == 1:
                routes.append(candidates[0])
                repaired.append(call.strip())
            else:
                unmatched.append(call.strip())
        routes = list(dict.fromkeys(routes))
        if not routes:
            continue
        queries.append(
            EvalQuery(
                id=f"tmdb:{i}",
                text=item["query"],
                gold=tuple(routes),
                needs=all_needed(routes),
                category=f"{len(routes)} call{'s' if len(routes) > 1 else ''}",
                split=hash_split(item["query"]),
            )
        )
    if unmatched or repaired:  # the figures then score fewer (or repaired) gold calls: said
        logger.warning(
            "restbench: %d gold call(s) matched by their path's shape (%s), %d not in the "
            "catalog and left out of the gold (%s); results.json notes list them",
            len(set(repaired)),
            ", ".join(sorted(set(repaired))[:3]),
            len(set(unmatched)),
            ", ".join(sorted(set(unmatched))[:3]),
        )
    notes = {
        "operations": len(route_keys),
        "calls_matched_by_template_shape": sorted(set(repaired)),
        "calls_not_in_catalog": sorted(set(unmatched)),
    }
    return Benchmark.checked("restbench", router, queries, route_keys, notes, bm25_text="full")
