"""StableToolBench G1 (ToolBench RapidAPI test queries) as a routing benchmark.

* **Catalog**: the union of the ``api_list`` entries of the files used (by default
  ``G1_instruction``, ``G1_category`` and ``G1_tool``: 1,673 APIs of 339 tools). Each
  RapidAPI *tool* becomes one provider (``provider=tool_name``, id its slug, made unique in
  sorted order) registered with :meth:`SchemaRouter.add_mcp_tools`; each of its APIs one
  MCP-style tool: ``name`` the API name, ``description`` the API description,
  ``inputSchema`` an object whose properties are the required and optional parameters
  (typed, described, ``required`` from the required list). With ``output_schema=True``
  the API's ``template_response`` also becomes its ``outputSchema``; that is off by
  default because it lowered Recall@5 on the dev half (hybrid index 0.812 -> 0.795: the
  response field names are mostly generic words such as ``name``, ``id``, ``data``).
* **Route ids** are ``<tool slug>/mcp/<api slug>``; :attr:`Benchmark.route_keys` maps
  each back to its ``(tool_name, api_name)``.
* **Gold**: each query's ``relevant APIs``; every one is needed (one need per API).
  Categories are the file a query comes from (``instruction``, ``category``, ``tool``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Provider
from schemarouter.errors import SchemaRouterError
from schemarouter.training.datasets import suite

if TYPE_CHECKING:
    from schemarouter.router import SchemaRouter

__all__ = ["G1_FILES", "g1_tool_listing", "load_stabletoolbench", "template_schema"]

G1_FILES = ("G1_instruction", "G1_category", "G1_tool")
_TYPES = {
    "str": "string",
    "string": "string",
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "bool": "boolean",
    "boolean": "boolean",
}
#: ``template_response`` nests deeply in places; the router flattens a few levels anyway.
_MAX_DEPTH = 6


def template_schema(value: Any, depth: int = 0) -> dict[str, Any]:
    """A JSON Schema for a ToolBench ``template_response`` (``{"name": "str", ...}``)."""
    if depth > _MAX_DEPTH:
        return {}
    if isinstance(value, Mapping):
        props = {
            str(k).strip(): template_schema(v, depth + 1)
            for k, v in value.items()
            if isinstance(k, str) and k.strip() and k != "_list_length"
        }
        return {"type": "object", "properties": props}
    if isinstance(value, list):
        return {"type": "array", "items": template_schema(value[0], depth + 1) if value else {}}
    if isinstance(value, str):
        if value in _TYPES:
            return {"type": _TYPES[value]}
        if value.startswith("list of "):
            inner = value[len("list of ") :].split(" ", 1)[0]
            return {"type": "array", "items": {"type": _TYPES.get(inner, "string")}}
    return {}


def _input_schema(api: Mapping[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for group, is_required in (("required_parameters", True), ("optional_parameters", False)):
        for param in api.get(group) or []:
            name = str(param.get("name") or "").strip()
            if not name or name in props:
                continue
            kind = _TYPES.get(str(param.get("type") or "").lower(), "string")
            schema: dict[str, Any] = {"type": kind}
            if param.get("description"):
                schema["description"] = str(param["description"])
            props[name] = schema
            if is_required:
                required.append(name)
    return {"type": "object", "properties": props, "required": required}


def g1_tool_listing(
    apis: Iterable[Mapping[str, Any]], *, output_schema: bool = True
) -> dict[str, Any]:
    """A ``tools/list`` result for one RapidAPI tool's APIs."""
    tools = []
    for api in apis:
        tool: dict[str, Any] = {
            "name": str(api["api_name"]).strip(),
            "description": str(api.get("api_description") or "").strip(),
            "inputSchema": _input_schema(api),
        }
        template = api.get("template_response")
        if output_schema and isinstance(template, Mapping) and template:
            schema = template_schema(template)
            if schema.get("properties"):
                tool["outputSchema"] = schema
        tools.append(tool)
    return {"tools": tools}


def load_stabletoolbench(
    router: SchemaRouter,
    data: str | Path | None = None,
    *,
    files: Iterable[str] = G1_FILES,
    output_schema: bool = False,
) -> suite.Benchmark:
    """Register the G1 catalog in ``router`` and return its queries (see the docstring)."""
    root = suite.shared_data_dir(data) / "stabletoolbench"
    files = tuple(files)
    by_tool: dict[str, dict[str, Mapping[str, Any]]] = {}
    raw_queries: list[tuple[str, str, str, list[tuple[str, str]]]] = []
    for name in files:
        items = json.loads((root / f"{name}.json").read_text(encoding="utf-8"))
        for item in items:
            for api in item["api_list"]:
                api_name = str(api["api_name"]).strip()
                by_tool.setdefault(api["tool_name"], {}).setdefault(api_name, api)
            gold = [(str(t), str(a).strip()) for t, a in item["relevant APIs"]]
            category = name.removeprefix("G1_")
            raw_queries.append((f"{category}:{item['query_id']}", item["query"], category, gold))
    route_keys: dict[str, tuple[str, str]] = {}
    key_to_route: dict[tuple[str, str], str] = {}
    taken: set[str] = set(router.snapshot().providers)
    without_output: list[str] = []
    for tool in sorted(by_tool):
        pid = suite.unique_slug(tool, taken)
        provider = Provider(id=pid, display_name=tool[:256])
        apis = list(by_tool[tool].values())
        try:
            router.add_mcp_tools(
                g1_tool_listing(apis, output_schema=output_schema), provider=provider
            )
        except SchemaRouterError:
            # a template the MCP adapter refuses: register the tool without output schemas
            router.add_mcp_tools(g1_tool_listing(apis, output_schema=False), provider=provider)
            without_output.append(tool)
        for api_name, route_id in suite.route_map(router, pid).items():
            route_keys[route_id] = (tool, api_name)
            key_to_route[(tool, api_name)] = route_id
    queries: list[suite.EvalQuery] = []
    dropped = 0
    for qid, text, category, gold in raw_queries:
        routes = [key_to_route[g] for g in gold if g in key_to_route]
        dropped += len(gold) - len(routes)
        if not routes:
            continue
        queries.append(
            suite.EvalQuery(
                id=qid,
                text=text,
                gold=tuple(dict.fromkeys(routes)),
                needs=suite.all_needed(routes),
                category=category,
                split=suite.hash_split(text),
            )
        )
    suite.check_gold(queries, router)
    return suite.Benchmark(
        name="stabletoolbench",
        router=router,
        queries=queries,
        route_keys=route_keys,
        notes={
            "files": list(files),
            "apis": len(route_keys),
            "tools": len(by_tool),
            "gold_labels_not_in_catalog": dropped,
            "tools_registered_without_output_schema": without_output,
            "output_schema": output_schema,
        },
        bm25={},  # rank_bm25 BM25Okapi defaults, as in the reference figure
        bm25_text="tool_api_params",
    )
