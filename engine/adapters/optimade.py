"""OPTIMADE services -> routes: ``GET /structures`` and ``GET /structures/{entry_id}``.

The source is a base URL (``{base}/info`` and ``{base}/info/structures`` are fetched through
an injectable ``httpx.Client``) or recorded payloads of the same JSON:API shape,
``{"info": {...}, "info/structures": {...}}``.

- **fields**: every property of ``/info/structures`` (``data.properties``: description,
  unit, ``type`` / ``x-optimade-type``, sortable), supplemented by an optional folder of
  OPTIMADE v1.2 property-definition YAMLs (``x-optimade-type``, ``x-optimade-unit``;
  ``inapplicable`` means no unit; a list of numbers takes its elements' unit). ``id`` sits
  at ``data.*.id``, the others at ``data.*.attributes.<name>`` (``data.`` for one entry).
  Units go through :mod:`schemarouter.units`; a unit the alias table and pint cannot read
  is dropped with a warning (named in the field's description), never guessed.
- **parameters**: ``filter``, ``response_fields``, ``sort``, ``page_limit``,
  ``page_offset``, ``response_format`` typed (the entry route: ``entry_id``,
  ``response_fields``, ``response_format``); the property names a ``filter``, ``sort`` or
  ``response_fields`` holds must be registered ones (the gate refuses others, so no call
  reads or asks about a property the service did not declare).
- **provider**: display name and homepage from ``meta.provider``; license from ``/info``
  (``available_licenses`` first SPDX id, ``license`` link as license URL; else
  ``"unknown"``); source type ``calculated`` unless told otherwise.
- **base URL**: the ``base_url`` argument, else the URL the payloads came from, else the
  ``available_api_versions`` URL of ``api_version``; none means unbindable routes.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from schemarouter import contracts
from schemarouter.adapters.optimade_properties import OPTIMADE_PROPERTIES
from schemarouter.errors import DocumentError, UnitError
from schemarouter.fingerprint import fingerprint
from schemarouter.registry.compile import (
    RouteSpec,
    build_contract,
    build_registration,
    named_provider,
    parameters_schema,
)
from schemarouter.registry.parsing import load_document
from schemarouter.safety.arguments import (
    FIELD_LIST_KEY,
    FILTER_PROPERTIES_KEY,
    FILTER_SEMANTIC_ID,
)
from schemarouter.units import DIMENSIONS, check_field_units, parse_unit

__all__ = [
    "OPTIMADE_TYPES",
    "add_optimade",
    "first_paragraph",
    "load_property_definitions",
    "optimade_registration",
    "resolve_inherit",
    "unit_dimension",
]

logger = logging.getLogger(__name__)

#: OPTIMADE data types -> JSON Schema.
OPTIMADE_TYPES: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "float": {"type": "number"},
    "boolean": {"type": "boolean"},
    "timestamp": {"type": "string", "format": "date-time"},
    "list": {"type": "array"},
    "dictionary": {"type": "object"},
}

#: Structures properties -> the semantic ids the bundled catalog uses (and
#: :data:`~schemarouter.adapters.optimade_properties.OPTIMADE_PROPERTIES` their aliases).
SEMANTICS = {name: row[0] for name, row in OPTIMADE_PROPERTIES.items()}

_FIELDS_PATTERN = r"^([a-z_][a-z_0-9]*(,[a-z_][a-z_0-9]*)*)?$"
_COMMON = (
    (
        "response_fields",
        {"type": "string", "pattern": _FIELDS_PATTERN},
        "Comma-separated properties to return (e.g. 'nsites,elements').",
    ),
    (
        "response_format",
        {"type": "string", "default": "json"},
        "Output format; 'json' is the standard one.",
    ),
)
_LIST = (
    (
        "filter",
        {"type": "string"},
        "OPTIMADE filter expression, e.g. 'elements HAS \"Si\" AND nelements=2'.",
    ),
    (
        "sort",
        {"type": "string"},
        "Comma-separated sortable properties; a leading '-' sorts descending.",
    ),
    ("page_limit", {"type": "integer", "minimum": 0}, "Entries per page."),
    ("page_offset", {"type": "integer", "minimum": 0}, "Entries to skip."),
)


def _where(source: str, at: str) -> str:
    return f"{source}: {at}"


def _mapping(node: Any, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(node, Mapping):
        raise DocumentError(
            f"{what} must be an object, got {type(node).__name__}",
            where=where,
            hint="Pass the JSON:API response of an OPTIMADE server",
        )
    return node


# -- property definitions -------------------------------------------------------------------


def resolve_inherit(
    node: Any, root: Path | None, *, strict: bool = False, seen: tuple[str, ...] = ()
) -> Any:
    """Resolve ``$$inherit`` references (``/v1.2/properties/core/id`` ->
    ``<root>/properties/core/id.yaml``), recursively; the referencing mapping's own keys win.

    Lenient by default (registration: an unresolvable reference is left out); ``strict``
    (catalog generation) makes a cycle or a missing target a :class:`DocumentError`.
    """
    if isinstance(node, list):
        return [resolve_inherit(item, root, strict=strict, seen=seen) for item in node]
    if not isinstance(node, Mapping):
        return node
    resolved: dict[str, Any] = {}
    reference = node.get("$$inherit")
    if isinstance(reference, str) and root is not None:
        parts = reference.strip("/").split("/")
        target = (
            root.joinpath("properties", *parts[2:]).with_suffix(".yaml")
            if len(parts) >= 3 and parts[1] == "properties"
            else None
        )
        usable = target is not None and target.is_file() and reference not in seen
        if strict and target is not None and not usable:
            problem = "cycle through" if reference in seen else "missing target of"
            raise DocumentError(
                f"$$inherit {problem} {reference!r}",
                where=str(target),
                hint="Point at the root of the OPTIMADE definitions (the folder above properties/)",
            )
        if usable and target is not None:
            base = load_document(target).data
            deeper = (*seen, reference)
            resolved.update(resolve_inherit(base, root, strict=strict, seen=deeper))
    for key, value in node.items():
        if key != "$$inherit":
            resolved[key] = resolve_inherit(value, root, strict=strict, seen=seen)
    return resolved


def load_property_definitions(folder: Path | str) -> dict[str, dict[str, Any]]:
    """``name -> definition`` for every ``*.yaml`` in a folder of OPTIMADE definitions."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DocumentError(
            "property-definition folder not found",
            where=str(folder),
            hint="Point properties_dir at e.g. properties/optimade/structures",
        )
    root = next((p.parent for p in folder.parents if p.name == "properties"), None)
    if folder.name == "properties":
        root = folder.parent
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.yaml")):
        data = load_document(path).data
        data = resolve_inherit(data, root)
        name = data.get("x-optimade-definition", {}).get("name") or path.stem
        out[str(name)] = data
    return out


def _optimade_type(definition: Mapping[str, Any]) -> str | None:
    kind = definition.get("x-optimade-type", definition.get("type"))
    if isinstance(kind, str) and kind in OPTIMADE_TYPES:
        return kind
    return None


def _schema(definition: Mapping[str, Any]) -> dict[str, Any]:
    kind = _optimade_type(definition)
    schema = dict(OPTIMADE_TYPES[kind]) if kind else {}
    items = definition.get("items")
    if kind == "list" and isinstance(items, Mapping) and _optimade_type(items):
        schema["items"] = _schema(items)
    return schema


def _raw_unit(definition: Mapping[str, Any]) -> str | None:
    unit = definition.get("x-optimade-unit", definition.get("unit"))
    if isinstance(unit, str) and unit.strip() and unit != "inapplicable":
        return unit.strip()
    items = definition.get("items")
    if isinstance(items, Mapping) and _optimade_type(definition) == "list":
        return _raw_unit(items)
    return None


def unit_dimension(unit: str) -> str | None:
    """The first :data:`DIMENSIONS` name the registration checks accept for ``unit``."""
    for name in DIMENSIONS:
        try:
            check_field_units(
                contracts.OutputField(name="probe", unit=unit, dimension=name), where=unit
            )
        except UnitError:
            continue
        return name
    return None


def first_paragraph(text: Any) -> str:
    """The first paragraph of ``text`` on one line."""
    paragraph = str(text or "").strip().split("\n\n", 1)[0]
    return re.sub(r"\s+", " ", paragraph).strip()


def _field(
    name: str,
    info: Mapping[str, Any],
    extra: Mapping[str, Any],
    *,
    many: bool,
    where: str,
    notes: list[str] | None = None,
    semantic_id: str | None = None,
) -> contracts.OutputField:
    """One output field from the server's ``/info/structures`` entry and a YAML definition."""
    merged = {**extra, **{k: v for k, v in info.items() if v is not None}}
    prefix = "data.*" if many else "data"
    path = f"{prefix}.{name}" if name == "id" else f"{prefix}.attributes.{name}"
    schema = _schema(info) if _optimade_type(info) else _schema(extra)
    description = first_paragraph(merged.get("description"))
    unit = _raw_unit(info) or _raw_unit(extra)
    dimension = None
    if unit is not None:
        try:
            parse_unit(unit)
            dimension = unit_dimension(unit)
        except UnitError:
            logger.warning("%s: unit %r of %r is unknown; dropped", where, unit, name)
            if notes is not None:  # once per property (both routes read it)
                note = f"{where}: unit {unit!r} is unknown; the field carries no unit"
                if note not in notes:
                    notes.append(note)
            description = f"{description} (unit as served: {unit})".strip()
            unit = None
    if merged.get("sortable") is True:
        schema["x-optimade-sortable"] = True
    return build_contract(
        contracts.OutputField,
        where=where,
        hint="Fix the property definition",
        name=name,
        path=path,
        json_schema=schema,
        semantic_id=semantic_id or SEMANTICS.get(name),
        aliases=OPTIMADE_PROPERTIES[name][3] if name in OPTIMADE_PROPERTIES else (),
        description=description,
        unit=unit,
        dimension=dimension,
        identifier=name == "id",
    )


# -- /info ----------------------------------------------------------------------------------


def _license(attributes: Mapping[str, Any]) -> tuple[str, str | None]:
    licenses = attributes.get("available_licenses")
    name = "unknown"
    if isinstance(licenses, list) and licenses and isinstance(licenses[0], str):
        name = licenses[0]
    link = attributes.get("license")
    url = link.get("href") if isinstance(link, Mapping) else link
    return name, url if isinstance(url, str) and url.startswith("http") else None


def _versioned_url(attributes: Mapping[str, Any]) -> str | None:
    version = str(attributes.get("api_version") or "").lstrip("v")
    for item in attributes.get("available_api_versions") or ():
        if (
            isinstance(item, Mapping)
            and isinstance(item.get("url"), str)
            and (not version or str(item.get("version", "")).lstrip("v") == version)
        ):
            return str(item["url"])
    return None


def _provider(
    provider: str | contracts.Provider,
    info: Mapping[str, Any],
    attributes: Mapping[str, Any],
    source_type: contracts.SourceType,
    where: str,
) -> contracts.Provider:
    meta = info.get("meta")
    meta_provider = meta.get("provider") if isinstance(meta, Mapping) else None
    meta_provider = meta_provider if isinstance(meta_provider, Mapping) else {}
    license_name, license_url = _license(attributes)
    homepage = meta_provider.get("homepage")
    homepage = homepage.get("href") if isinstance(homepage, Mapping) else homepage
    return named_provider(
        provider,
        where=f"{where}: provider",
        title=meta_provider.get("name"),
        homepage=homepage if isinstance(homepage, str) and homepage.startswith("http") else None,
        license=license_name,
        license_url=license_url,
        source_type=source_type,
        description=first_paragraph(meta_provider.get("description")),
    )


# -- the registration -----------------------------------------------------------------------


#: The parameters whose text names properties, and the keyword that holds them to the
#: registered ones (:mod:`schemarouter.safety.arguments`).
_NAMING = {
    "response_fields": FIELD_LIST_KEY,
    "sort": FIELD_LIST_KEY,
    "filter": FILTER_PROPERTIES_KEY,
}


def _parameters(
    rows: Any, *, entry: bool, properties: list[str]
) -> tuple[contracts.Parameter, ...]:
    """The route's parameters; ``filter``, ``sort`` and ``response_fields`` may name only
    ``properties`` (the registered ones), checked by the gate."""
    params = []
    if entry:
        params.append(
            contracts.Parameter(
                name="entry_id",
                location=contracts.ParameterLocation.PATH,
                json_schema={"type": "string"},
                required=True,
                description="Id of the structure entry (as in data.*.id).",
                semantic_id="identifier.optimade_entry_id",
            )
        )
    for name, schema, description in rows:
        if name in _NAMING:
            schema = {**schema, _NAMING[name]: sorted(set(properties))}
        params.append(
            contracts.Parameter(
                name=name,
                location=contracts.ParameterLocation.QUERY,
                json_schema=schema,
                description=description,
                semantic_id=FILTER_SEMANTIC_ID if name == "filter" else None,
            )
        )
    return tuple(params)


def _payloads(source: Any, client: httpx.Client | None) -> tuple[Any, Any, str, str | None]:
    if isinstance(source, str | Path) and not re.match(r"^https?://", str(source), re.I):
        from schemarouter.registry.catalog import read_structured_file

        source = read_structured_file(Path(source))  # recorded payloads in a JSON/YAML file
    if isinstance(source, str):
        base = source.rstrip("/")
        info = load_document(f"{base}/info", client=client).data
        structures = load_document(f"{base}/info/structures", client=client).data
        return info, structures, base, base
    if isinstance(source, Mapping):
        for key in ("info", "info/structures"):
            if key not in source:
                raise DocumentError(
                    f"recorded payloads lack {key!r}",
                    where=f"<optimade>: {key}",
                    hint="Pass {'info': <GET /info>, 'info/structures': <GET /info/structures>}",
                )
        info = load_document(
            _mapping(source["info"], "<optimade>: info", "info"), source="<optimade>/info"
        ).data
        structures = load_document(
            _mapping(source["info/structures"], "<optimade>: info/structures", "info/structures"),
            source="<optimade>/info/structures",
        ).data
        return info, structures, "<optimade>", None
    raise DocumentError(
        f"cannot read an OPTIMADE service from a {type(source).__name__}",
        where="<optimade>",
        hint="Pass a base URL, {'info': ..., 'info/structures': ...} or a file of it",
    )


def optimade_registration(
    source: str | Mapping[str, Any],
    *,
    provider: str | contracts.Provider,
    client: httpx.Client | None = None,
    properties_dir: Path | str | None = None,
    base_url: str | None = None,
    source_type: contracts.SourceType | str = contracts.SourceType.CALCULATED,
    access_id: str = "optimade",
    semantics: Mapping[str, str] | None = None,
) -> contracts.Registration:
    """Compile an OPTIMADE service (base URL or recorded payloads) into a Registration.

    ``semantics`` gives properties their semantic ids (``{"_grp_band_gap":
    "electronic.band_gap"}``) beside the core ones :data:`SEMANTICS` maps: a provider's own
    properties have none otherwise, so a plan cannot resolve them from a request, nor offer
    another provider's as a fallback. A name the service does not declare is refused."""
    info, structures, name, fetched = _payloads(source, client)
    info_data = _mapping(info.get("data"), f"{name}/info: data", "/info data")
    attributes = _mapping(
        info_data.get("attributes", {}), f"{name}/info: data.attributes", "/info data.attributes"
    )
    s_data = _mapping(
        structures.get("data"), f"{name}/info/structures: data", "/info/structures data"
    )
    properties = _mapping(
        s_data.get("properties", {}), f"{name}/info/structures: data.properties", "data.properties"
    )
    definitions = load_property_definitions(properties_dir) if properties_dir else {}
    provider_model = _provider(provider, info, attributes, contracts.SourceType(source_type), name)
    resolved = base_url or fetched or _versioned_url(attributes)
    notes: list[str] = []
    if resolved is None:  # registered, but no call could run: said, as add_openapi says it
        notes.append(
            f"{name}: no base URL (none given, the payloads came from no URL, and /info's "
            "available_api_versions names none for its api_version): the routes are "
            "registered unbound; pass base_url='https://.../v1' to call them"
        )
    access = build_contract(
        contracts.AccessPath,
        where=f"{name}: base_url",
        hint="Pass base_url='https://.../v1'",
        id=access_id,
        kind=contracts.AccessKind.OPTIMADE,
        base_url=resolved,
        document=name,
        document_hash=fingerprint({"info": info, "info/structures": structures}),
    )
    names = [n for n in properties if isinstance(n, str)]
    names += [n for n in sorted(definitions) if n not in properties]
    names = [n for n in names if n != "type" and n.strip()]
    semantics = dict(semantics or {})
    unknown = sorted(str(n) for n in semantics if n not in names)
    if unknown:
        raise DocumentError(
            f"semantics names properties the service does not declare: {', '.join(unknown)}",
            where=f"{name}/info/structures: data.properties",
            hint=f"Declared properties: {', '.join(names)}",
        )
    specs = []
    for many in (True, False):
        fields = []
        for prop in names:
            entry = properties.get(prop)
            entry = entry if isinstance(entry, Mapping) else {}
            fields.append(
                _field(
                    prop,
                    entry,
                    definitions.get(prop, {}),
                    many=many,
                    where=f"{name}/info/structures: data.properties.{prop}",
                    notes=notes,
                    semantic_id=semantics.get(prop),
                )
            )
        params = _parameters(
            _LIST + _COMMON if many else _COMMON, entry=not many, properties=["id", "type", *names]
        )
        endpoint = build_contract(
            contracts.Endpoint,
            where=f"{name}/info/structures",
            hint="Fix the OPTIMADE payloads",
            id="list_structures" if many else "get_structure",
            name="GET /structures" if many else "GET /structures/{entry_id}",
            operation=contracts.Operation(
                method="GET", path="/structures" if many else "/structures/{entry_id}"
            ),
            summary=(
                "Search structures with an OPTIMADE filter" if many else "One structure entry by id"
            ),
            description=first_paragraph(s_data.get("description")) or "OPTIMADE structures",
            input_schema=parameters_schema(params),
            parameters=params,
            output_fields=tuple(fields),
        )
        specs.append(
            RouteSpec(
                provider_model,
                access,
                endpoint,
                "GET /structures" if many else "GET /structures/{entry_id}",
            )
        )
    return build_registration(specs, source=name, providers=[provider_model], warnings=notes)


def add_optimade(
    router: Any, source: str | Mapping[str, Any], *, replace: bool = False, **kwargs: Any
) -> Any:
    """Register an OPTIMADE service on ``router`` and bind its routes; the RegistryChange."""
    from schemarouter.execution.invokers.http import register_http_routes

    registration = optimade_registration(source, **kwargs)
    return register_http_routes(router, registration, replace=replace)
