"""Generate the OPTIMADE structures catalog file from the real OPTIMADE definitions.

Reads the OPTIMADE v1.2 property definitions (``properties/optimade/structures/*.yaml``:
type, ``x-optimade-unit``, description; ``$$inherit`` references resolved) and the OPTIMADE
OpenAPI document (``openapi.json``: the query parameters of ``GET /structures`` and
``GET /structures/{entry_id}``), and writes one catalog file with an ``optimade`` provider
whose two routes return every structures property as an output field with its JSON type,
unit (mapped through :mod:`schemarouter.units`; ``inapplicable`` means no unit), dimension
and semantic id. The output is derived data: the inputs are never copied into the repository.

::

    python -m schemarouter.training.catalog_tools.optimade \\
        --data ../shared/data/optimade --out data/catalogs/materials/optimade.yaml

The file is validated with :func:`schemarouter.registry.catalog.load_catalog` before it replaces the
old one, and the same inputs always give byte-identical output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from schemarouter.adapters.optimade import first_paragraph, resolve_inherit, unit_dimension
from schemarouter.adapters.optimade_properties import OPTIMADE_PROPERTIES
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.parsing import load_document
from schemarouter.units import parse_unit, pint_factor

__all__ = [
    "DEFAULT_BASE_URL",
    "build_catalog",
    "load_property",
    "main",
    "render_catalog",
]

#: A real public OPTIMADE implementation: the Materials Project's.
DEFAULT_BASE_URL = "https://optimade.materialsproject.org/v1"
DEFAULT_PROVIDER_ID = "optimade"

#: OPTIMADE property -> (semantic id, field group, identifier?, extra aliases): the engine's
#: table, which ``add_optimade`` reads too.
SEMANTICS = OPTIMADE_PROPERTIES

#: Properties that are not attributes of the resource but members of the resource object.
TOP_LEVEL = {"id", "type"}
#: Properties left out: ``type`` is always the constant "structures".
SKIPPED = {"type"}

#: Canonical unit per dimension for the declared normalizations (factors come from pint).
CANONICAL_UNITS = {"length": "nm", "volume": "nm^3"}

PARAMETER_SEMANTICS = {
    "filter": "query.optimade_filter",
    "entry_id": "identifier.optimade_entry_id",
}

#: Descriptions for parameters the OpenAPI document leaves undescribed.
PARAMETER_DESCRIPTIONS = {
    "entry_id": "Id of the structure entry, as the implementation returns it in data.*.id "
    '(e.g. "mp-149" at the Materials Project).',
}

_SCHEMA_KEYS = ("type", "format", "pattern", "minimum", "maximum", "minItems", "maxItems")


# -- property definitions ------------------------------------------------------------------


def load_property(path: Path, root: Path) -> dict[str, Any]:
    """One property definition with its ``$$inherit`` references resolved (strictly: a
    cycle or a missing target is an error)."""
    resolved = resolve_inherit(load_document(path).data, root, strict=True)
    if not isinstance(resolved, dict):
        raise ValueError(f"{path}: a property definition must be a mapping")
    return resolved


def _json_schema(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema part of a definition: types, shapes and bounds, no prose."""
    schema: dict[str, Any] = {k: definition[k] for k in _SCHEMA_KEYS if k in definition}
    if isinstance(definition.get("items"), Mapping):
        schema["items"] = _json_schema(definition["items"])
    properties = definition.get("properties")
    if isinstance(properties, Mapping):
        schema["properties"] = {k: _json_schema(v) for k, v in properties.items()}
        if isinstance(definition.get("required"), list):
            schema["required"] = list(definition["required"])
    return schema


def _unit(definition: Mapping[str, Any]) -> str | None:
    """The unit of the value: the definition's own, or for a (nested) list of numbers the
    unit of its elements (OPTIMADE marks the list itself "inapplicable")."""
    unit = definition.get("x-optimade-unit")
    if isinstance(unit, str) and unit != "inapplicable":
        return unit
    items = definition.get("items")
    if isinstance(items, Mapping) and "array" in _types(definition):
        return _unit(items)
    return None


def _types(definition: Mapping[str, Any]) -> list[str]:
    kind = definition.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _dimension(unit: str) -> str:
    """The first :data:`DIMENSIONS` name that the registration checks accept for ``unit``."""
    parse_unit(unit)  # an unknown unit fails here, with the alias-table hint
    name = unit_dimension(unit)
    if name is None:
        raise ValueError(f"no dimension name in schemarouter.units.DIMENSIONS fits unit {unit!r}")
    return name


def _output_field(name: str, definition: Mapping[str, Any], *, many: bool) -> dict[str, Any]:
    semantic_id, group, identifier, extra_aliases = SEMANTICS[name]
    prefix = "data.*" if many else "data"
    path = f"{prefix}.{name}" if name in TOP_LEVEL else f"{prefix}.attributes.{name}"
    title = str(definition.get("title", "")).strip()
    aliases = [title] if title and title != name.replace("_", " ") else []
    aliases += [a for a in extra_aliases if a not in aliases]
    field: dict[str, Any] = {
        "name": name,
        "path": path,
        "json_schema": _json_schema(definition),
        "semantic_id": semantic_id,
    }
    if aliases:
        field["aliases"] = aliases
    field["description"] = first_paragraph(str(definition.get("description", "")))
    unit = _unit(definition)
    if unit is not None:
        dimension = _dimension(unit)
        field["unit"] = unit
        field["dimension"] = dimension
        canonical = CANONICAL_UNITS.get(dimension)
        if canonical is not None:
            scale, offset = pint_factor(unit, canonical)
            spec: dict[str, Any] = {
                "source_unit": unit,
                "canonical_unit": canonical,
                "dimension": dimension,
                "scale": float(f"{scale:.12g}"),
            }
            if offset:
                spec["offset"] = float(f"{offset:.12g}")
            field["normalization"] = spec
    if identifier:
        field["identifier"] = True
    field["group"] = group
    return field


# -- OpenAPI parameters --------------------------------------------------------------------


def _parameter_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k not in {"title", "description"}}


def _parameters(operation: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for item in operation.get("parameters", []):
        name = item["name"]
        schema = item.get("schema", {})
        parameter: dict[str, Any] = {
            "name": name,
            "location": item["in"],
            "json_schema": _parameter_schema(schema),
            "required": bool(item.get("required", False)),
            "description": first_paragraph(
                str(item.get("description") or schema.get("description") or "")
            )
            or PARAMETER_DESCRIPTIONS.get(name, ""),
        }
        if name in PARAMETER_SEMANTICS:
            parameter["semantic_id"] = PARAMETER_SEMANTICS[name]
        out.append(parameter)
    return out


def _input_schema(parameters: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {p["name"]: p["json_schema"] for p in parameters},
    }
    required = [p["name"] for p in parameters if p["required"]]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


# -- the catalog ---------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def build_catalog(
    data_dir: Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    provider_id: str = DEFAULT_PROVIDER_ID,
    source_type: str = "calculated",
) -> tuple[dict[str, Any], dict[str, str]]:
    """The catalog document, and facts about its inputs for the header comment."""
    openapi_bytes = (data_dir / "openapi.json").read_bytes()
    openapi = json.loads(openapi_bytes)
    definition_files = sorted((data_dir / "properties/optimade/structures").glob("*.yaml"))
    if not definition_files:
        raise FileNotFoundError(f"no property definitions under {data_dir}/properties")
    definitions: dict[str, dict[str, Any]] = {}
    digest = hashlib.sha256()
    for path in definition_files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
        definition = load_property(path, data_dir)
        name = definition.get("x-optimade-definition", {}).get("name", path.stem)
        if name in SKIPPED:
            continue
        if name not in SEMANTICS:
            raise KeyError(f"{path.name}: property {name!r} has no entry in SEMANTICS")
        definitions[name] = definition
    order = [n for n in SEMANTICS if n in definitions]

    paths = openapi["paths"]
    many_op = paths["/structures"]["get"]
    one_op = paths["/structures/{entry_id}"]["get"]
    many_params = _parameters(many_op)
    one_params = _parameters(one_op)
    api_version = openapi.get("info", {}).get("version", "?")
    generator = re.search(r"optimade-python-tools[^v]*v([0-9.]+)", json.dumps(openapi["info"]))
    document = f"OPTIMADE OpenAPI {api_version}" + (
        f" (optimade-python-tools v{generator.group(1)})" if generator else ""
    )

    def endpoint(
        endpoint_id: str,
        path: str,
        op: Mapping[str, Any],
        params: list[dict[str, Any]],
        *,
        many: bool,
    ) -> dict[str, Any]:
        what = "every matching structure" if many else "one structure by its entry id"
        return {
            "id": endpoint_id,
            "name": f"GET {path}",
            "operation": {"method": "GET", "path": path},
            "summary": op.get("summary", ""),
            "description": (
                f"OPTIMADE structures endpoint returning {what} as a JSON:API document "
                f"(operationId {op.get('operationId', '?')}). Attributes follow the OPTIMADE "
                "v1.2 property definitions; select them with response_fields"
                + (
                    " and match them with the OPTIMADE filter language, e.g. "
                    '\'elements HAS ALL "Si","O" AND nelements=2\'.'
                    if many
                    else "."
                )
            ),
            "intents": ["structure_lookup", "property_lookup"],
            "policy_tags": ["public", "no_auth", "jsonapi"],
            "parameters": params,
            "input_schema": _input_schema(params),
            "output_fields": [_output_field(n, definitions[n], many=many) for n in order],
        }

    catalog = {
        "schemarouter_catalog": 1,
        "name": "optimade",
        "description": "OPTIMADE structures routes generated from the OPTIMADE v1.2 "
        "property definitions and OpenAPI document.",
        "providers": [
            {
                "id": provider_id,
                "display_name": "OPTIMADE structures API",
                "aliases": [
                    "OPTIMADE",
                    "Open Databases Integration for Materials Design",
                    "optimade structures",
                    "MP OPTIMADE",
                ],
                "homepage": "https://www.optimade.org",
                "license": "CC-BY-4.0",
                "license_url": "https://creativecommons.org/licenses/by/4.0/",
                "attribution": (
                    "Property definitions by the OPTIMADE consortium (Materials-Consortia/"
                    "OPTIMADE, CC BY 4.0); API description from optimade-python-tools (MIT). "
                    f"Data served by the implementation at {base_url}; for the Materials "
                    "Project's, CC BY 4.0: cite A. Jain et al., APL Mater. 1, 011002 (2013) "
                    "and C. W. Andersen et al., Sci. Data 8, 217 (2021)."
                ),
                "source_type": source_type,
                "description": (
                    "The standard OPTIMADE structures surface (JSON:API, filter language, "
                    "v1.2 properties). Every OPTIMADE implementation (Materials Project, OQMD, "
                    "COD, JARVIS, Alexandria, Materials Cloud ...) serves the same routes; this "
                    f"entry points at {base_url}. Regenerate with --base-url and --provider-id "
                    "for another implementation (with --source-type experimental for COD's)."
                ),
                "access": [
                    {
                        "id": "v1",
                        "kind": "optimade",
                        "base_url": base_url,
                        "document": document,
                        "document_hash": _sha256(openapi_bytes),
                        "endpoints": [
                            endpoint(
                                "structures_search", "/structures", many_op, many_params, many=True
                            ),
                            endpoint(
                                "structure_by_id",
                                "/structures/{entry_id}",
                                one_op,
                                one_params,
                                many=False,
                            ),
                        ],
                    }
                ],
            }
        ],
    }
    facts = {
        "api_version": str(api_version),
        "document": document,
        "openapi_sha256": _sha256(openapi_bytes),
        "definitions": str(len(definition_files)),
        "definitions_sha256": "sha256:" + digest.hexdigest(),
    }
    return catalog, facts


def render_catalog(catalog: Mapping[str, Any], facts: Mapping[str, str], *, out: str) -> str:
    header = (
        "# GENERATED FILE - do not edit by hand. Regenerate with:\n"
        "#   python -m schemarouter.training.catalog_tools.optimade \\\n"
        f"#       --data <shared>/data/optimade --out {out}\n"
        f"# Inputs: openapi.json, {facts['document']},\n"
        f"#   {facts['openapi_sha256']}\n"
        f"# and {facts['definitions']} structures property definitions (OPTIMADE v1.2, CC BY 4.0,\n"
        f"#   Materials-Consortia/OPTIMADE), {facts['definitions_sha256']}\n"
        "# Derived data: types, units and descriptions are taken from those definitions; the\n"
        "# definitions themselves are not copied here.\n"
    )
    body = yaml.dump(
        dict(catalog),
        Dumper=_NoAliasDumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    return header + body


class _NoAliasDumper(yaml.SafeDumper):
    """Writes shared sub-objects out in full: anchors would make the file harder to read."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _write_checked(text: str, out: Path) -> None:
    """Write atomically, after the text loads and passes every registration check."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".optimade-", suffix=".yaml", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        load_catalog(tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m schemarouter.training.catalog_tools.optimade",
        description="Generate the OPTIMADE structures catalog file from the OPTIMADE "
        "property definitions and OpenAPI document.",
    )
    parser.add_argument(
        "--data",
        required=True,
        type=Path,
        help="folder with openapi.json and properties/ (shared/data/optimade)",
    )
    parser.add_argument("--out", required=True, type=Path, help="catalog file to write")
    parser.add_argument(
        "--base-url",
        default=DEFAULT_BASE_URL,
        help=f"OPTIMADE implementation to point at (default {DEFAULT_BASE_URL})",
    )
    parser.add_argument("--provider-id", default=DEFAULT_PROVIDER_ID)
    parser.add_argument(
        "--source-type",
        default="calculated",
        help="source type of the implementation's data (default calculated)",
    )
    args = parser.parse_args(argv)
    catalog, facts = build_catalog(
        args.data,
        base_url=args.base_url,
        provider_id=args.provider_id,
        source_type=args.source_type,
    )
    _write_checked(render_catalog(catalog, facts, out=args.out.as_posix()), args.out)
    endpoints = catalog["providers"][0]["access"][0]["endpoints"]
    fields = sum(len(e["output_fields"]) for e in endpoints)
    print(f"wrote {args.out}: {len(endpoints)} routes, {fields} output fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
