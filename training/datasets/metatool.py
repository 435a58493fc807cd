"""MetaTool (ToolE) as a routing benchmark: 199 plugins, single- and multi-tool queries.

* **Catalog**: each plugin of ``plugin_des.json`` is its own provider (``provider=`` the
  plugin name, id its slug made unique in file order) with one MCP-style tool: ``name``
  the plugin name, ``description`` its description, ``inputSchema`` an empty object (the
  set declares no parameters). Registered with :meth:`SchemaRouter.add_mcp_tools`; route
  ids are ``<slug>/mcp/<slug>`` and :attr:`Benchmark.route_keys` maps each to the plugin
  name.
* **Single-tool** (``all_clean_data.csv``: ``Query,Tool``, 20,614 rows): one need per row.
  ``sample`` rows are drawn with ``random.Random(seed)`` (``sample=None`` or ``0``: every
  row); the note in :attr:`Benchmark.notes` says which.
* **Multi-tool** (``multi_tool_query_golden.json``, 497 queries of two tools each): every
  listed tool is needed.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Provider
from schemarouter.training.datasets.suite import (
    Benchmark,
    EvalQuery,
    all_needed,
    check_gold,
    hash_split,
    route_map,
    shared_data_dir,
    unique_slug,
)

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = [
    "DEFAULT_SINGLE_SAMPLE",
    "METATOOL_BM25",
    "load_metatool_multi",
    "load_metatool_single",
    "register_metatool_tools",
]

#: Single-tool queries evaluated by default (a seeded sample; ``0`` = all 20,614).
DEFAULT_SINGLE_SAMPLE = 2000
#: The reference BM25 figures for MetaTool used k1 0.9, b 0.4 over name + description.
METATOOL_BM25 = {"k1": 0.9, "b": 0.4}


def register_metatool_tools(router: SchemaRouter, data: str | Path | None = None) -> dict[str, str]:
    """Register the 199 plugins; returns plugin name -> route id."""
    root = shared_data_dir(data) / "metatool"
    plugins: dict[str, str] = json.loads((root / "plugin_des.json").read_text(encoding="utf-8"))
    taken: set[str] = set(router.snapshot().providers)
    by_name: dict[str, str] = {}
    for name, description in plugins.items():
        pid = unique_slug(name, taken)
        tool = {
            "name": name,
            "description": str(description or "").strip(),
            "inputSchema": {"type": "object", "properties": {}},
        }
        router.add_mcp_tools({"tools": [tool]}, provider=Provider(id=pid, display_name=name[:256]))
        by_name[name] = route_map(router, pid)[name]
    return by_name


def _benchmark(
    name: str,
    router: SchemaRouter,
    by_name: dict[str, str],
    queries: list[EvalQuery],
    **notes: Any,
) -> Benchmark:
    check_gold(queries, router)
    return Benchmark(
        name=name,
        router=router,
        queries=queries,
        route_keys={route: plugin for plugin, route in by_name.items()},
        notes={"tools": len(by_name), **notes},
        bm25=METATOOL_BM25,
        bm25_text="name_description",
    )


def load_metatool_single(
    router: SchemaRouter,
    data: str | Path | None = None,
    *,
    sample: int | None = DEFAULT_SINGLE_SAMPLE,
    seed: int = 0,
) -> Benchmark:
    """Register the plugins; the single-tool queries (a seeded sample, see the docstring)."""
    by_name = register_metatool_tools(router, data)
    path = shared_data_dir(data) / "metatool" / "all_clean_data.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        rows = [(r["Query"], r["Tool"]) for r in csv.DictReader(handle)]
    total = len(rows)
    indices = list(range(total))
    if sample and sample < total:
        indices = sorted(random.Random(seed).sample(indices, sample))
    queries = []
    unknown = 0
    for i in indices:
        text, tool = rows[i]
        if tool not in by_name:
            unknown += 1
            continue
        route = by_name[tool]
        queries.append(
            EvalQuery(
                id=f"single:{i}",
                text=text,
                gold=(route,),
                needs=all_needed([route]),
                split=hash_split(text),
            )
        )
    return _benchmark(
        "metatool-single",
        router,
        by_name,
        queries,
        rows_in_file=total,
        sample=f"{len(indices)} of {total} rows, random.Random({seed}).sample"
        if len(indices) < total
        else f"all {total} rows",
        gold_tools_not_in_catalog=unknown,
    )


def load_metatool_multi(router: SchemaRouter, data: str | Path | None = None) -> Benchmark:
    """Register the plugins; the 497 multi-tool queries (every listed tool needed)."""
    by_name = register_metatool_tools(router, data)
    path = shared_data_dir(data) / "metatool" / "multi_tool_query_golden.json"
    items = json.loads(path.read_text(encoding="utf-8"))
    queries = []
    unknown = 0
    for i, item in enumerate(items):
        routes = [by_name[t] for t in item["tool"] if t in by_name]
        unknown += len(item["tool"]) - len(routes)
        if not routes:
            continue
        queries.append(
            EvalQuery(
                id=f"multi:{i}",
                text=item["query"],
                gold=tuple(dict.fromkeys(routes)),
                needs=all_needed(routes),
                category=f"{len(set(routes))} tools",
                split=hash_split(item["query"]),
            )
        )
    return _benchmark("metatool-multi", router, by_name, queries, gold_tools_not_in_catalog=unknown)
