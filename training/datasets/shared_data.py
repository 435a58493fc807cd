"""Minimal readers of the public data in ``../shared/data`` into route contracts.

Used by the catalog generator (:mod:`.recombined`) and the benchmarks
(:mod:`schemarouter.training.bench`). They are deliberately small and
lossy (flat parameter schemas, at most ``MAX_FIELDS`` output fields per endpoint); the real OpenAPI
and MCP adapters live in ``schemarouter.adapters``. The data folder comes from an argument, else the
environment variable ``SCHEMAROUTER_SHARED_DATA``, else ``../shared/data`` next to the repository.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemarouter import contracts
from schemarouter.registry.compile import slugify

__all__ = [
    "MAX_FIELDS",
    "SourceApi",
    "load_g1",
    "load_mcp",
    "load_metatool",
    "load_openapi",
    "load_optimade_fields",
    "shared_data_dir",
    "source_routes",
]

MAX_FIELDS = 24
_G1_FILES = ("G1_instruction", "G1_category", "G1_tool")
_JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_SCHEMA_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


#: The seed of the fixed dev/test split of every public query set (fusion constants were
#: chosen on the dev halves).
DEV_SPLIT_SEED = 13


def hash_split(text: str, *, seed: int = DEV_SPLIT_SEED) -> str:
    """``"dev"`` or ``"test"``, fixed per query text (about half each)."""
    digest = hashlib.sha256(f"{seed}:{text}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def shared_data_dir(path: str | Path | None = None) -> Path:
    """The shared data folder (it may not exist: callers skip when it does not)."""
    if path:
        return Path(path)
    env = os.environ.get("SCHEMAROUTER_SHARED_DATA")
    if env:
        return Path(env)
    # ../shared/data beside the checkout (this file is training/datasets/shared_data.py)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


@dataclass
class SourceApi:
    """One provider's endpoints as read from a source, with the names the source used."""

    source: str
    name: str
    category: str
    description: str
    kind: contracts.AccessKind
    endpoints: list[contracts.Endpoint] = field(default_factory=list)
    #: The source's own (provider name, endpoint name) for each endpoint (gold labels).
    keys: list[tuple[str, str]] = field(default_factory=list)


def _schema(value: Any) -> dict[str, Any]:
    kind = value.get("type") if isinstance(value, dict) else None
    if isinstance(kind, str) and kind in _SCHEMA_TYPES:
        return {"type": kind}
    return {}


def _unique_id(base: str, taken: set[str]) -> str:
    ident, n = base, 2
    while ident in taken:
        ident = f"{base[:90]}-{n}"
        n += 1
    taken.add(ident)
    return ident


def _fields(items: Iterable[contracts.OutputField]) -> tuple[contracts.OutputField, ...]:
    seen: dict[str, contracts.OutputField] = {}
    for item in items:
        if item.name not in seen and len(seen) < MAX_FIELDS:
            seen[item.name] = item
    return tuple(seen.values())


def _flatten_template(value: Any, prefix: str = "") -> Iterator[contracts.OutputField]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if not isinstance(key, str) or not key.strip():
                continue
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(inner, dict | list) and inner:
                yield from _flatten_template(inner, path)
            else:
                schema = (
                    {"type": _JSON_TYPES[inner]}
                    if isinstance(inner, str) and inner in _JSON_TYPES
                    else {}
                )
                yield contracts.OutputField(name=key.strip()[:200], path=path, json_schema=schema)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        yield from _flatten_template(value[0], f"{prefix}.*" if prefix else "*")


def _g1_endpoint(api: dict[str, Any], taken: set[str]) -> contracts.Endpoint:
    params = []
    names: set[str] = set()
    for required, group in ((True, "required_parameters"), (False, "optional_parameters")):
        for p in api.get(group) or []:
            name = str(p.get("name") or "").strip()
            if not name or name in names:
                continue
            names.add(name)
            kind = str(p.get("type") or "").lower()
            schema = {"type": {"number": "number", "boolean": "boolean"}.get(kind, "string")}
            params.append(
                contracts.Parameter(
                    name=name[:200],
                    location=contracts.ParameterLocation.QUERY,
                    json_schema=schema,
                    required=required,
                    description=str(p.get("description") or "")[:500],
                )
            )
    ident = _unique_id(slugify(api["api_name"]), taken)
    method = str(api.get("method") or "GET").upper()
    if method not in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}:
        method = "GET"
    return contracts.Endpoint(
        id=ident,
        name=str(api["api_name"])[:256] or ident,
        operation=contracts.Operation(method=method, path=f"/{ident}"),
        description=str(api.get("api_description") or "")[:2000],
        parameters=tuple(params),
        output_fields=_fields(_flatten_template(api.get("template_response"))),
    )


def load_g1(
    data: Path, files: Iterable[str] = _G1_FILES
) -> tuple[list[SourceApi], list[tuple[str, frozenset[tuple[str, str]]]]]:
    """StableToolBench G1: the union of the ``api_list`` entries, and (query, gold) pairs."""
    apis: dict[str, SourceApi] = {}
    taken: dict[str, set[str]] = {}
    seen: set[tuple[str, str]] = set()
    queries = []
    for name in files:
        for item in json.loads((data / "stabletoolbench" / f"{name}.json").read_text()):
            for api in item["api_list"]:
                key = (api["tool_name"], api["api_name"])
                if key in seen:
                    continue
                seen.add(key)
                source = apis.setdefault(
                    api["tool_name"],
                    SourceApi(
                        "g1",
                        api["tool_name"],
                        api.get("category_name", ""),
                        "",
                        contracts.AccessKind.HTTP,
                    ),
                )
                source.endpoints.append(
                    _g1_endpoint(api, taken.setdefault(api["tool_name"], set()))
                )
                source.keys.append(key)
            gold = frozenset((t, a) for t, a in item["relevant APIs"])
            queries.append((item["query"], gold))
    return list(apis.values()), queries


def load_metatool(
    data: Path,
) -> tuple[list[SourceApi], list[tuple[str, frozenset[tuple[str, str]]]]]:
    """MetaTool: one single-endpoint provider per tool, and the single-tool queries."""
    tools = json.loads((data / "metatool" / "plugin_des.json").read_text())
    apis = []
    for tool, description in tools.items():
        ident = slugify(tool)
        endpoint = contracts.Endpoint(
            id=ident, name=tool, operation=contracts.Operation(tool=tool), description=description
        )
        apis.append(
            SourceApi(
                "metatool",
                tool,
                "",
                description,
                contracts.AccessKind.MCP,
                [endpoint],
                [(tool, tool)],
            )
        )
    with open(data / "metatool" / "all_clean_data.csv", newline="", encoding="utf-8") as handle:
        queries = [
            (r["Query"], frozenset({(r["Tool"], r["Tool"])})) for r in csv.DictReader(handle)
        ]
    return apis, queries


def _properties(schema: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict):
        for key, value in props.items():
            if isinstance(key, str) and key.strip() and isinstance(value, dict):
                yield key, value


def load_mcp(data: Path) -> list[SourceApi]:
    """LiveMCPBench tool listings: one provider per server."""
    out = []
    for server in json.loads((data / "mcp" / "livemcp_tools.json").read_text()):
        api = SourceApi(
            "mcp",
            server["name"],
            server.get("category", ""),
            server.get("description", ""),
            contracts.AccessKind.MCP,
        )
        taken: set[str] = set()
        for listing in server.get("tools", {}).values():
            for tool in listing.get("tools", []):
                schema = tool.get("inputSchema") or {}
                required = set(schema.get("required") or [])
                params = tuple(
                    contracts.Parameter(
                        name=k[:200],
                        json_schema=_schema(v),
                        required=k in required,
                        description=str(v.get("description") or "")[:500],
                    )
                    for k, v in _properties(schema)
                )
                fields = _fields(
                    contracts.OutputField(
                        name=k[:200],
                        path=k,
                        json_schema=_schema(v),
                        description=str(v.get("description") or v.get("title") or "")[:500],
                    )
                    for k, v in _properties(tool.get("outputSchema"))
                )
                api.endpoints.append(
                    contracts.Endpoint(
                        id=_unique_id(slugify(tool["name"]), taken),
                        name=tool["name"],
                        operation=contracts.Operation(tool=tool["name"]),
                        description=str(tool.get("description") or "")[:2000],
                        parameters=params,
                        output_fields=fields,
                    )
                )
                api.keys.append((server["name"], tool["name"]))
        if api.endpoints:
            out.append(api)
    return out


def _resolve(doc: dict[str, Any], node: Any, depth: int = 0) -> Any:
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith("#/") and depth < 4:
        target: Any = doc
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        return _resolve(doc, target, depth + 1) if target is not None else {}
    return node if isinstance(node, dict) else {}


_LOCATIONS = {
    "path": "path",
    "query": "query",
    "header": "header",
    "body": "body",
    "formData": "body",
    "cookie": "cookie",
}


def _openapi_endpoint(
    doc: dict[str, Any], path: str, method: str, op: dict[str, Any], taken: set[str]
) -> contracts.Endpoint:
    params: dict[str, contracts.Parameter] = {}
    for raw in op.get("parameters") or []:
        p = _resolve(doc, raw)
        name = str(p.get("name") or "").strip()
        where = _LOCATIONS.get(str(p.get("in")), "query")
        if not name or name in params:
            continue
        if where == "path" and f"{{{name}}}" not in path:
            where = "query"
        params[name] = contracts.Parameter(
            name=name[:200],
            location=contracts.ParameterLocation(where),
            json_schema=_schema(p),
            required=bool(p.get("required")) or where == "path",
            description=str(p.get("description") or "")[:500],
        )
    for var in re.findall(r"\{([^{}]+)\}", path):
        if var not in params or params[var].location is not contracts.ParameterLocation.PATH:
            params[var] = contracts.Parameter(
                name=var,
                location=contracts.ParameterLocation.PATH,
                json_schema={"type": "string"},
                required=True,
            )
    responses = op.get("responses") or {}
    response = _resolve(doc, responses.get("200") or responses.get("201") or {})
    schema = _resolve(doc, response.get("schema"))
    if schema.get("type") == "array":
        schema = _resolve(doc, schema.get("items"))
    fields = _fields(
        contracts.OutputField(
            name=k[:200],
            path=k,
            json_schema=_schema(_resolve(doc, v)),
            description=str(v.get("description") or _resolve(doc, v).get("description") or "")[
                :500
            ],
        )
        for k, v in _properties(schema)
    )
    name = op.get("operationId") or f"{method.upper()} {path}"
    return contracts.Endpoint(
        id=_unique_id(slugify(str(name)), taken),
        name=str(name)[:256],
        operation=contracts.Operation(method=method.upper(), path=path),
        summary=str(op.get("summary") or "")[:500],
        description=str(op.get("description") or "")[:2000],
        parameters=tuple(params.values()),
        output_fields=fields,
    )


def load_openapi(data: Path, *, limit: int | None = None) -> list[SourceApi]:
    """Swagger 2.0 documents of ``openapi-permissive``: one provider per document."""
    out = []
    files = sorted((data / "openapi-permissive").glob("*.json"))[:limit]
    for file in files:
        doc = json.loads(file.read_text(encoding="utf-8"))
        info = doc.get("info") or {}
        api = SourceApi(
            "openapi",
            str(info.get("title") or file.stem),
            "",
            str(info.get("description") or "")[:500],
            contracts.AccessKind.OPENAPI,
        )
        taken: set[str] = set()
        for path, item in (doc.get("paths") or {}).items():
            if not isinstance(item, dict) or not str(path).startswith("/"):
                continue
            for method, op in item.items():
                if method in ("get", "post", "put", "patch", "delete") and isinstance(op, dict):
                    api.endpoints.append(_openapi_endpoint(doc, path, method, op, taken))
                    api.keys.append((api.name, str(op.get("operationId") or path)))
        if api.endpoints:
            out.append(api)
    return out


def load_optimade_fields(data: Path) -> list[contracts.OutputField]:
    """OPTIMADE v1.2 property definitions as output fields (with semantic ids and units)."""
    import yaml

    out = []
    root = data / "optimade" / "properties"
    for file in sorted(root.rglob("*.yaml")):
        prop = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        name = (prop.get("x-optimade-definition") or {}).get("name") or file.stem
        unit = prop.get("x-optimade-unit")
        kinds = prop.get("type")
        kind = (
            next((k for k in kinds if k in _SCHEMA_TYPES), None)
            if isinstance(kinds, list)
            else None
        )
        group = file.parent.name
        out.append(
            contracts.OutputField(
                name=name,
                path=f"attributes.{name}",
                json_schema={"type": kind} if kind else {},
                semantic_id=f"optimade.{slugify(group)}.{slugify(name)}".replace("-", "_"),
                description=" ".join(str(prop.get("description") or "").split())[:500],
                unit=unit if unit in ("angstrom", "dalton", "byte") else None,
                group=None,
            )
        )
    return out


def source_routes(
    apis: Iterable[SourceApi],
) -> tuple[list[contracts.Route], dict[tuple[str, str], str]]:
    """Routes for ``apis`` (provider ids made unique), and source key -> route id."""
    routes: list[contracts.Route] = []
    by_key: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for api in apis:
        pid = _unique_id(slugify(f"{api.source}-{api.name}", max_length=80), taken)
        provider = contracts.Provider(
            id=pid, display_name=api.name[:256], description=api.description[:500]
        )
        access = contracts.AccessPath(id=api.kind.value, kind=api.kind)
        for endpoint, key in zip(api.endpoints, api.keys, strict=True):
            route = contracts.Route.build(provider, access, endpoint, source=api.source)
            routes.append(route)
            by_key.setdefault(key, route.route_id)
    return routes, by_key
