"""The one pipeline every adapter ends in: check contracts, then build a Registration.

Adapters (catalog files, OpenAPI, MCP, OPTIMADE, Python callables) turn their sources into
:class:`RouteSpec` triples; :func:`build_registration` checks each one (JSON Schemas valid,
local ``$ref`` targets present, path template variables declared, units known and declared
factors right, field groups and intents declared) and returns a :class:`Registration`, or
raises the first problem with the document and location it came from. Nothing is registered
until every check has passed.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from schemarouter.checks import normalize_text
from schemarouter.contracts import (
    AccessPath,
    Contract,
    Endpoint,
    FieldGroup,
    Intent,
    Parameter,
    ParameterLocation,
    Provider,
    Registration,
    Route,
)
from schemarouter.errors import (
    DanglingReferenceError,
    DocumentError,
    DuplicateRouteError,
    SchemaError,
    SchemaRouterError,
)
from schemarouter.fingerprint import canonical_json, fingerprint_json
from schemarouter.registry.bounds import MAX_SCHEMA_DEPTH, json_problem
from schemarouter.registry.clashes import declared_twice
from schemarouter.registry.defs import hoist_defs
from schemarouter.registry.metaschema import plainly_valid, validity_core
from schemarouter.registry.progress import step
from schemarouter.safety.forksafe import ForkSafeLock
from schemarouter.safety.patterns import unenforced
from schemarouter.units import check_field_units

__all__ = [
    "RouteSpec",
    "build_contract",
    "build_registration",
    "check_endpoint",
    "check_json_schema",
    "format_validation_error",
    "named_provider",
    "parameters_schema",
    "slugify",
    "validation_problems",
]

_PATH_VARIABLE = re.compile(r"\{([^{}]+)\}")


class RouteSpec(NamedTuple):
    """One endpoint as an adapter saw it, with where it came from inside the document."""

    provider: Provider
    access: AccessPath
    endpoint: Endpoint
    location: str  # e.g. "providers[2].access[0].endpoints[5]" or "paths./movie/{id}.get"
    #: ``canonical_json(endpoint.canonical())`` where the adapter made it already (the MCP
    #: adapter hashes it into the listing's digest), so it is not serialized twice; exactly
    #: that text or ``None``
    endpoint_json: str | None = None


def parameters_schema(parameters: Iterable[Parameter]) -> dict[str, Any]:
    """An endpoint's input schema: a closed object of its parameters' schemas, ``required``
    listing the required ones (left out when none is). Shared definitions a parameter's
    schema carries (``$defs``) move to the root, where its ``#/$defs/...`` references point."""
    parameters = list(parameters)
    properties, defs = hoist_defs({p.name: p.json_schema for p in parameters})
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    required = [p.name for p in parameters if p.required]
    if required:
        schema["required"] = required
    if defs:
        schema["$defs"] = defs
    return schema


#: Where a slug splits a camelCase word (``addNote``: ``add_Note``), what it writes as ``_``,
#: and runs of ``_``: compiled once, the split without a template (a listing of 100,000
#: tools, each a name the memo has not seen, spent 0.44 s of CPU in slugify; now 0.20 s)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_SLUG = re.compile(r"[^A-Za-z0-9.\-]+")
_UNDERSCORES = re.compile(r"_+")


@functools.lru_cache(maxsize=16384)
def slugify(text: str, *, max_length: int = 96) -> str:
    """A stable, readable id: lowercase ASCII words joined by ``_`` (camelCase split).
    Memoized: a pure function of its arguments, called for every endpoint registered."""
    text = _CAMEL.sub("_", text)
    text = _NOT_SLUG.sub("_", text).strip("_.-").lower()
    text = _UNDERSCORES.sub("_", text)
    if not text or not text[0].isalnum():
        text = "x" + text
    return text[:max_length].rstrip("_.-") or "x"


def provider_id(name: str) -> str:
    """The id a provider name gives: its slug (``Acme Tools``: ``acme_tools``; accents folded,
    ``Müller``: ``muller``). A name with a letter or digit no ASCII slug can keep (``재고``,
    ``八字_mcp``), whose slug would be shared with other such names (a bare ``x``, or
    ``mcp``), gets eight hex digits of its SHA-256 after it: ``p_`` and the digits where
    nothing ASCII is left (``재고``), else ``_`` and the digits (``mcp_...``); stable across
    runs, and two names never share an id by what their slugs drop."""
    name = name.strip()
    folded = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    if all(c.isascii() or not c.isalnum() for c in folded):
        return slugify(folded)
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    if not re.search(r"[A-Za-z0-9]", folded):
        return f"p_{digest}"
    return f"{slugify(folded, max_length=86)}_{digest}"


def named_provider(
    provider: object,
    *,
    where: str,
    title: object = None,
    **fields: Any,
) -> Provider:
    """The provider an adapter registers under: ``provider`` itself where it is a
    :class:`Provider`; else a name (a non-empty string, else a :class:`DocumentError` at
    ``where``), whose :func:`provider_id` is the id, shown as ``title`` where that is a
    non-empty string (else as the name), cut to 256 characters, with ``fields`` (license,
    homepage ...; one pydantic refuses is a :class:`DocumentError` at ``where``)."""
    if isinstance(provider, Provider):
        return provider
    if not isinstance(provider, str) or not provider.strip():
        raise DocumentError(
            "provider must be a non-empty string or a Provider",
            where=where,
            hint="Pass provider='name' or a Provider(...)",
        )
    # a lone surrogate (a "\\ud800" JSON escape) is no text UTF-8 can write: U+FFFD, as
    # every other text reaching the models (the id's digest encodes the name)
    provider = normalize_text(provider)
    shown = normalize_text(title if isinstance(title, str) and title.strip() else provider)
    return build_contract(
        Provider,
        where=where,
        hint="Fix the provider's description (title, license ...) or pass a Provider(...)",
        id=provider_id(provider),
        display_name=shown.strip()[:256],
        **fields,
    )


M = TypeVar("M", bound=BaseModel)


def build_contract(model: type[M], *, where: str, hint: str, **values: Any) -> M:
    """``model(**values)``; a pydantic refusal becomes a :class:`DocumentError` at ``where``."""
    try:
        return model(**values)
    except ValidationError as exc:
        what, loc = format_validation_error(exc)
        raise DocumentError(what, where=f"{where} ({loc})", hint=hint) from None


def validation_problems(exc: ValidationError, *, prefix: str = "") -> list[tuple[str, str]]:
    """``(what, where)`` for every error of a pydantic ValidationError; a list "too short"
    only because an item of it failed (pydantic counts what validated) is not a problem of
    its own: one mistake in an endpoint read as three."""
    out = []
    errors = exc.errors()
    inside = [tuple(e["loc"]) for e in errors]
    for error in errors:
        here = tuple(error["loc"])
        if error["type"] == "too_short" and any(
            len(other) > len(here) and other[: len(here)] == here for other in inside
        ):
            continue
        loc = prefix
        for part in error["loc"]:
            if isinstance(part, int):
                loc += f"[{part}]"
            else:
                loc += f".{part}" if loc else str(part)
        kind = error["type"]
        message = error["msg"].removeprefix("Value error, ")  # a validator's own words
        if kind == "extra_forbidden":
            message = "unknown key (not part of the contract)"
        elif kind == "missing":
            message = "required key is missing"
        out.append((message, loc or "<document>"))
    return out


def format_validation_error(exc: ValidationError, *, prefix: str = "") -> tuple[str, str]:
    """``(what, where)`` for the first error of a pydantic ValidationError."""
    problems = validation_problems(exc, prefix=prefix)
    message, loc = problems[0]
    more = len(problems) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return message, loc


#: Canonical JSON of schemas that passed the metaschema check (large documents repeat the
#: same inlined schema many times; checking it once halves registration time).
_CHECKED_SCHEMAS: dict[str, None] = {}
_CHECKED_LIMIT = 8192
_CHECKED_LOCK = ForkSafeLock()


def check_json_schema(schema: Any, *, where: str) -> None:
    """Refuse an invalid JSON Schema (Draft 2020-12 metaschema) or a dangling local $ref.

    The metaschema check runs one schema object at a time, each sub-schema (properties,
    items, ``$defs`` members ...) on its own and once per process: the metaschema checks
    every sub-schema as a schema of its own, so this is the same check, and the copies an
    inlined document repeats (or the definitions its schemas share) are checked once."""
    _check_schema(schema, where=where)


def _check_schema(schema: Any, *, where: str) -> str | None:
    """:func:`check_json_schema`, returning the schema's canonical JSON (``None`` where it
    has none)."""
    if not isinstance(schema, Mapping):
        raise SchemaError(
            f"a JSON Schema must be an object, got {type(schema).__name__}",
            where=where,
            hint="Write the schema as a mapping such as {'type': 'number'}",
        )
    problem = json_problem(schema, max_depth=MAX_SCHEMA_DEPTH)
    if problem is not None:  # jsonschema and pydantic recurse once per level
        raise SchemaError(
            f"invalid JSON Schema: {problem.message}",
            where=f"{where}/{'/'.join(str(p) for p in problem.location[:16])}",
            hint="Write finite numbers and flatten the schema",
        )
    key = _key(schema)
    if key is not None and key in _CHECKED_SCHEMAS:
        return key
    if not plainly_valid(schema):  # certainly valid skips the slow metaschema walk
        _check_metaschema(schema, None, where=where)
    for ref, pointer in _local_refs(schema, "") if _may_refer(key) else ():
        if _resolve_pointer(schema, ref) is _MISSING:
            raise DanglingReferenceError(
                f"$ref {ref!r} points at nothing",
                where=f"{where}{pointer}",
                hint="Inline the referenced schema or add it under $defs",
            )
    _remember(key)
    return key


def _may_refer(key: str | None) -> bool:
    """Whether a schema whose canonical JSON is ``key`` may hold a ``$ref`` key anywhere
    (``None``: not known). Canonical JSON writes every such key as ``"$ref":`` (a string
    holding those characters escapes its quotes), so a text without them has none."""
    return key is None or '"$ref":' in key


def _key(schema: Any) -> str | None:
    try:
        return canonical_json(schema)
    except (TypeError, ValueError):
        return None  # not JSON at all: the metaschema check says why


def _remember(key: str | None) -> None:
    if key is not None:
        with _CHECKED_LOCK:
            if len(_CHECKED_SCHEMAS) >= _CHECKED_LIMIT:
                _CHECKED_SCHEMAS.pop(next(iter(_CHECKED_SCHEMAS)))
            _CHECKED_SCHEMAS[key] = None


#: Keywords whose value is one sub-schema, a map of them, or a list of them (2020-12).
_SUBSCHEMA = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SUBSCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def _is_schema(value: Any) -> bool:
    return isinstance(value, Mapping | bool)


def _check_metaschema(schema: Any, key: str | None, *, where: str) -> None:
    """The Draft 2020-12 metaschema check of ``schema``: each sub-schema checked on its own
    (and skipped where its canonical JSON was checked before), then the object with its
    sub-schemas stood in for by ``true``."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError as _JsonSchemaError

    if key is not None and key in _CHECKED_SCHEMAS:
        return
    stub = schema
    if isinstance(schema, Mapping):
        stub = dict(schema)
        for name, value in schema.items():
            if name in _SUBSCHEMA and _is_schema(value):
                parts: dict[str, Any] = {name: value}
                stub[name] = True
            elif (
                name in _SUBSCHEMA_MAPS
                and isinstance(value, Mapping)
                and all(_is_schema(v) for v in value.values())
            ):
                parts = {f"{name}/{k}": v for k, v in value.items()}
                stub[name] = dict.fromkeys(value, True)
            elif (
                name in _SUBSCHEMA_LISTS
                and isinstance(value, list)
                and value
                and all(_is_schema(v) for v in value)
            ):
                parts = {f"{name}/{i}": v for i, v in enumerate(value)}
                stub[name] = [True] * len(value)
            else:
                continue
            for at, part in parts.items():
                if isinstance(part, Mapping):
                    _check_metaschema(part, _key(part), where=f"{where}/{at}")
    # annotations and unknown keywords checked aside: the rest is checked once per shape
    core = validity_core(stub) if isinstance(stub, Mapping) else None
    core_key = None if core is None else _key(core)
    if core is not None and (plainly_valid(core) or core_key in _CHECKED_SCHEMAS):
        _remember(key)
        return
    try:
        Draft202012Validator.check_schema(stub if core is None else core)
    except RecursionError:
        raise SchemaError(
            "invalid JSON Schema: nested too deeply to check",
            where=where,
            hint="Flatten the schema",
        ) from None
    except _JsonSchemaError as exc:
        path = "/".join(str(p) for p in exc.absolute_path)
        raise SchemaError(
            f"invalid JSON Schema: {exc.message}",
            where=f"{where}{'/' + path if path else ''}",
            hint="Fix the schema so it validates against JSON Schema 2020-12",
        ) from None
    _remember(key)
    _remember(core_key)


_MISSING = object()


def _local_refs(node: Any, pointer: str) -> Iterable[tuple[str, str]]:
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            yield ref, pointer
        for key, value in node.items():
            yield from _local_refs(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _local_refs(value, f"{pointer}/{i}")


def _resolve_pointer(document: Any, ref: str) -> Any:
    node = document
    for raw in ref.lstrip("#").split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def check_endpoint(
    spec: RouteSpec,
    *,
    source: str,
    field_groups: Mapping[str, FieldGroup] | None,
    intents: Mapping[str, Intent] | None,
) -> None:
    endpoint = spec.endpoint
    where = f"{source}: {spec.location}"
    input_key = _check_schema(endpoint.input_schema, where=f"{where}.input_schema")
    if endpoint.output_schema is not None:
        check_json_schema(endpoint.output_schema, where=f"{where}.output_schema")
    checked = endpoint.input_schema.get("properties")
    checked = checked if isinstance(checked, Mapping) else {}
    refers = _may_refer(input_key)
    for i, parameter in enumerate(endpoint.parameters):
        # a parameter whose schema is the input schema's own property schema passed the
        # metaschema with it (the metaschema checks every property schema); only a local
        # $ref may resolve there and not alone, so those are checked on their own (an input
        # schema with no $ref anywhere has none in its properties)
        same = checked.get(parameter.name) == parameter.json_schema
        if not same or (refers and any(True for _ in _local_refs(parameter.json_schema, ""))):
            check_json_schema(parameter.json_schema, where=f"{where}.parameters[{i}].json_schema")
    for i, item in enumerate(endpoint.output_fields):
        check_json_schema(item.json_schema, where=f"{where}.output_fields[{i}].json_schema")
        check_field_units(item, where=f"{where}.output_fields[{i}]")
        if field_groups is not None and item.group is not None and item.group not in field_groups:
            raise DanglingReferenceError(
                f"field {item.name!r} names field group {item.group!r}, which is not declared",
                where=f"{where}.output_fields[{i}].group",
                hint=f"Declare it under field_groups (known: {', '.join(sorted(field_groups))})",
            )
    if intents is not None:
        for intent in endpoint.intents:
            if intent not in intents:
                raise DanglingReferenceError(
                    f"endpoint {endpoint.id!r} names intent {intent!r}, which is not declared",
                    where=f"{where}.intents",
                    hint=f"Declare it under intents (known: {', '.join(sorted(intents))})",
                )
    path = endpoint.operation.path
    if path is not None:
        declared = {p.name for p in endpoint.parameters if p.location is ParameterLocation.PATH}
        for variable in _PATH_VARIABLE.findall(path):
            if variable not in declared:
                raise DanglingReferenceError(
                    f"path template {path!r} uses {{{variable}}} but no path parameter "
                    f"{variable!r} is declared",
                    where=f"{where}.operation.path",
                    hint="Declare the parameter with location 'path' and required true",
                )
        for parameter in endpoint.parameters:
            if parameter.location is ParameterLocation.PATH:
                if f"{{{parameter.name}}}" not in path:
                    raise DanglingReferenceError(
                        f"path parameter {parameter.name!r} does not appear in {path!r}",
                        where=f"{where}.parameters",
                        hint="Fix the path template or the parameter's location",
                    )
                if not parameter.required:
                    raise DocumentError(
                        f"path parameter {parameter.name!r} must be required",
                        where=f"{where}.parameters",
                        hint="Set required: true (a URL path cannot omit a segment)",
                    )
    auth = spec.access.auth
    for parameter in endpoint.parameters if auth.carriers else ():
        # header names are case-insensitive, and servers fold more than case: ``x-api-key``,
        # ``x_api_key`` (CGI/WSGI) are the ``X-API-KEY`` header; ``API_KEY``, ``api_key[]``,
        # ``api%5Fkey`` the ``api_key`` query parameter (AuthRequirement.aliased_by)
        if parameter.name in auth.carriers or auth.aliased_by(parameter.name, parameter.location):
            raise DocumentError(
                f"parameter {parameter.name!r} is where the credential travels "
                f"({', '.join(map(repr, auth.carriers))}) and must not be a route parameter",
                where=f"{where}.parameters",
                hint="Credentials are declared by name in access.auth and looked up at call time",
            )


def build_registration(
    specs: Sequence[RouteSpec],
    *,
    source: str,
    providers: Sequence[Provider] = (),
    field_groups: Sequence[FieldGroup] | None = None,
    intents: Sequence[Intent] | None = None,
    warnings: Sequence[str] = (),
) -> Registration:
    """Check every spec and build the Registration; raise the first problem, register nothing.

    ``field_groups`` / ``intents`` given (even empty) means references to them are checked;
    ``None`` means the source declares none and references are not checked. ``warnings``
    (``"location: what"``) travel with the registration to the :class:`RegistryChange`,
    with one for each pattern validation does not enforce (:func:`_unenforced_patterns`).
    """
    groups = None if field_groups is None else {g.id: g for g in field_groups}
    intent_map = None if intents is None else {i.id: i for i in intents}
    routes: dict[str, Route] = {}
    places: dict[str, str] = {}  # route id -> the location its spec was given at
    # content fingerprints by id(): ``specs`` holds every contract for the whole call, and
    # the routes of one access path share its provider and access objects (hashed once)
    prints: dict[int, str] = {}

    def print_of(contract: Contract, text: str | None = None) -> str:
        found = prints.get(id(contract))
        if found is None:
            found = contract.content_fingerprint() if text is None else fingerprint_json(text)
            prints[id(contract)] = found
        return found

    for spec in specs:
        try:
            check_endpoint(spec, source=source, field_groups=groups, intents=intent_map)
            fingerprints = (
                print_of(spec.provider),
                print_of(spec.access),
                print_of(spec.endpoint, spec.endpoint_json),
            )
            route = Route.build(
                spec.provider, spec.access, spec.endpoint, source=source, fingerprints=fingerprints
            )
        except SchemaRouterError:
            raise
        except ValidationError as exc:  # pragma: no cover - contracts were already built
            what, loc = format_validation_error(exc)
            raise DocumentError(what, where=f"{source}: {spec.location}.{loc}") from None
        if route.route_id in routes:
            what, hint = declared_twice(routes[route.route_id], route)
            if first := places.get(route.route_id):  # which two, in one long file (trial A)
                what += f" (first at {first})"
            raise DuplicateRouteError(what, where=f"{source}: {spec.location}", hint=hint)
        routes[route.route_id] = route
        places[route.route_id] = spec.location
        step(
            len(routes),
            len(routes) - 1,
            "%s: %d of %d routes checked",
            source,
            len(routes),
            len(specs),
        )
    provider_map = {p.id: p for p in providers}
    for route in routes.values():
        provider_map.setdefault(route.provider.id, route.provider)
    return Registration(
        source=source,
        providers=tuple(provider_map[k] for k in sorted(provider_map)),
        routes=tuple(routes[k] for k in sorted(routes)),
        field_groups=tuple(field_groups or ()),
        intents=tuple(intents or ()),
        warnings=tuple(dict.fromkeys([*warnings, *_unenforced_patterns(specs)])),
    )


def _unenforced_patterns(specs: Sequence[RouteSpec]) -> list[str]:
    """A warning for each distinct pattern of the specs' schemas that validation does not
    enforce (:mod:`schemarouter.safety.patterns`: RE2 cannot run it, or Python could not read it
    and the adapter kept it as ``x-pattern``), at its first place."""
    found: dict[str, list[Any]] = {}  # pattern -> [first place, places]
    for spec in specs:
        endpoint = spec.endpoint
        for name, schema in (
            ("input_schema", endpoint.input_schema),
            ("output_schema", endpoint.output_schema),
        ):
            for place, pattern in unenforced(schema, f"{spec.location}.{name}") if schema else ():
                found.setdefault(pattern, [place, 0])[1] += 1
    notes = []
    for pattern, (place, count) in found.items():
        shown = repr(pattern if len(pattern) <= 200 else pattern[:200] + "…")
        why = (
            "Python cannot read it, so the adapter kept it as an annotation"
            if place.endswith(".x-pattern")
            else "RE2, which matches patterns in linear time, cannot run it (look-around, "
            "a backreference, a repeat counted past 1000)"
        )
        more = f" (and {count - 1} more places)" if count > 1 else ""
        notes.append(f"{place}: pattern {shown} is not enforced{more}: {why}")
    return notes
