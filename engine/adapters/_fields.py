"""Output schemas -> output fields: one row per leaf value, with its path.

A response (or an MCP tool's ``outputSchema``), already inlined by
:class:`schemarouter.adapters._schema.SchemaResolver`, is walked breadth first: object
properties descend by name, arrays of objects through ``*`` (``results.*.title``), and
``allOf`` / ``anyOf`` / ``oneOf`` alternatives contribute the union of their properties.
A leaf is a scalar, an array of scalars, a free-form object, or a container at the depth
limit, kept with a shallow schema (its type and words, not its subtree). Breadth first
means that when :class:`FieldLimits` cuts, the shallow fields are the ones kept. A schema in
the shared form (cyclic definitions under ``$defs``, :mod:`schemarouter.registry.defs`)
is walked through its references, and a leaf that refers to a definition carries it.

Limits (the choice, for documents such as AWS's with thousands of leaves per response):
``max_depth`` 6 property levels below the root (``*`` does not count), ``max_fields`` 128
per endpoint. On the shared OpenAPI corpus (3,413 operations with a response schema) the
limits cut 70 responses (2 %), the largest of which flattens to 1,271 leaves.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from schemarouter.adapters._schema import as_object_schema
from schemarouter.contracts import SEMANTIC_ID_PATTERN, OutputField
from schemarouter.errors import DocumentError, UnitError
from schemarouter.registry.compile import build_contract
from schemarouter.registry.defs import DEFS_PREFIX, attach_defs
from schemarouter.units import check_field_units, parse_unit

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_FIELDS",
    "FieldLimits",
    "FieldRow",
    "flatten_fields",
    "output_fields",
]

logger = logging.getLogger(__name__)

#: Property levels below the output's root that become fields (``*`` does not count):
#: ``data.*.attributes.elements`` is depth 3. Deeper containers become one field each.
DEFAULT_MAX_DEPTH = 6
#: Output fields kept per endpoint, shallowest first (an AWS response has up to 1,271).
DEFAULT_MAX_FIELDS = 128


@dataclass(frozen=True)
class FieldLimits:
    """How far a response schema is flattened into output fields."""

    max_depth: int = DEFAULT_MAX_DEPTH
    max_fields: int = DEFAULT_MAX_FIELDS


class FieldRow(NamedTuple):
    """One flattened output value: readable name, path with ``*``, its schema."""

    name: str
    path: str
    schema: Any
    description: str


#: Segments a field path may have (``*`` included): arrays of arrays that refer to each
#: other through ``$defs`` add ``*`` without adding depth.
_MAX_SEGMENTS = 24

Defs = Mapping[str, Any]


def _deref(schema: Any, defs: Defs) -> Any:
    """``schema``, or the shared definition it refers to (annotations beside the reference
    kept); a few hops at most."""
    for _ in range(8):
        if not (isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str)):
            return schema
        ref = schema["$ref"]
        target = defs.get(ref[len(DEFS_PREFIX) :]) if ref.startswith(DEFS_PREFIX) else None
        if not isinstance(target, Mapping):
            return schema
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
    return schema


def _types(schema: Any) -> set[str]:
    if not isinstance(schema, Mapping):
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _alternatives(schema: Any, defs: Defs) -> Iterator[Mapping[str, Any]]:
    """The schema and its ``allOf`` / ``anyOf`` / ``oneOf`` members, recursively."""
    schema = _deref(schema, defs)
    if not isinstance(schema, Mapping):
        return
    yield schema
    for key in ("allOf", "anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list):
            for member in members:
                yield from _alternatives(member, defs)


def _shape(schema: Any, defs: Defs) -> tuple[dict[str, Any], Any]:
    """(properties, array item schema) gathered over every alternative of ``schema``."""
    properties: dict[str, Any] = {}
    items: Any = None
    for alt in _alternatives(schema, defs):
        props = alt.get("properties")
        if isinstance(props, Mapping):
            for name, sub in props.items():
                properties.setdefault(name, sub)
        if items is None and ("array" in _types(alt) or "items" in alt):
            candidate = alt.get("items")
            if isinstance(candidate, Mapping):
                items = candidate
    return properties, items


def _descends(schema: Any, defs: Defs, budget: int = 8) -> bool:
    """Whether flattening goes below ``schema`` (it has properties, maybe inside arrays)."""
    properties, items = _shape(schema, defs)
    if properties:
        return True
    return items is not None and budget > 0 and _descends(items, defs, budget - 1)


def _shallow(schema: Any, defs: Defs) -> dict[str, Any]:
    """A container cut at the depth limit: its type and words, not its whole subtree."""
    schema = _deref(schema, defs)
    if not isinstance(schema, Mapping):
        return {}
    kept = {k: schema[k] for k in ("type", "title", "description", "format") if k in schema}
    if not kept.get("type"):
        kinds = sorted(set().union(*(_types(a) for a in _alternatives(schema, defs))))
        if kinds:
            kept["type"] = kinds[0] if len(kinds) == 1 else kinds
    kept["$comment"] = "nested structure elided (output field depth limit)"
    return kept


def _write_only(schema: Any, defs: Defs) -> bool:
    """Whether a property is ``writeOnly``: the client sends it, a response never has it
    (a password, a card number), so it is no output field."""
    schema = _deref(schema, defs)
    return isinstance(schema, Mapping) and schema.get("writeOnly") is True


def _describe(schema: Any, defs: Defs) -> str:
    for alt in _alternatives(schema, defs):
        for key in ("description", "title"):
            text = alt.get(key)
            if isinstance(text, str) and text.strip():
                return text.strip()
    return ""


def flatten_fields(schema: Any, *, limits: FieldLimits | None = None) -> list[FieldRow]:
    """One :class:`FieldRow` per leaf of an inlined output schema, breadth first.

    A leaf is a scalar, an array of scalars, a free-form object, or a container at the depth
    limit (kept with a shallow schema). Arrays of objects descend through ``*``. ``allOf``
    / ``anyOf`` / ``oneOf`` alternatives contribute the union of their properties, but for
    ``writeOnly`` ones (a response never has them). Names
    are the path without ``*`` (``results.title``); the root itself is named ``result``.
    """
    limits = limits or FieldLimits()
    defs = schema.get("$defs") if isinstance(schema, Mapping) else None
    defs = defs if isinstance(defs, Mapping) else {}
    rows: list[FieldRow] = []
    names: set[str] = set()
    queue: deque[tuple[tuple[str, ...], Any, int]] = deque([((), schema, 0)])
    while queue and len(rows) < limits.max_fields:
        segments, node, depth = queue.popleft()
        properties, items = _shape(node, defs)
        if depth < limits.max_depth and len(segments) < _MAX_SEGMENTS:
            if properties:
                for name, sub in properties.items():
                    if isinstance(name, str) and name.strip() and not _write_only(sub, defs):
                        queue.append(((*segments, name), sub, depth + 1))
                continue
            if items is not None and _descends(items, defs):
                queue.append(((*segments, "*"), items, depth))
                continue
        if _descends(node, defs):
            leaf = _shallow(node, defs)
        else:  # a leaf that refers to shared definitions carries them
            leaf = attach_defs(as_object_schema(_deref(node, defs)), defs)
        name = ".".join(s for s in segments if s != "*").strip() or "result"
        if name in names or len(name) > 256:
            continue
        names.add(name)
        rows.append(FieldRow(name, ".".join(segments), leaf, _describe(node, defs)))
    if queue:
        logger.debug("output fields cut at %d (limit)", limits.max_fields)
    return rows


def _declared(schema: Any, key: str, depth: int = 0) -> str | None:
    """A leaf's ``x-unit`` / ``x-dimension`` (``key``): its own, else the one its ``allOf`` /
    ``anyOf`` / ``oneOf`` members agree on (``allOf: [{$ref: Power}]`` beside a description,
    ``anyOf: [{$ref: Power}, {type: null}]``), else its ``items``' for an array of readings
    (``items: {type: number, x-unit: kW}``); ``None`` where none is declared or members differ."""
    if not isinstance(schema, Mapping) or depth > 8:
        return None
    own = schema.get(key)
    if isinstance(own, str) and own.strip():
        return own.strip()
    members = [m for k in ("allOf", "anyOf", "oneOf") for m in schema.get(k) or ()]
    found = {v for v in (_declared(m, key, depth + 1) for m in members) if v is not None}
    if found:
        return found.pop() if len(found) == 1 else None
    return _declared(schema.get("items"), key, depth + 1)


def declared_unit(schema: Any) -> dict[str, str]:
    """``{"unit": ..., "dimension": ...}`` where ``schema`` declares ``x-unit`` (and
    ``x-dimension``, read only beside a unit), as :func:`output_fields` reads a leaf's;
    ``{}`` where it declares no unit."""
    unit = _declared(schema, "x-unit")
    if unit is None:
        return {}
    dimension = _declared(schema, "x-dimension")
    return {"unit": unit} if dimension is None else {"unit": unit, "dimension": dimension}


def check_parameter_unit(schema: Any, *, where: str) -> None:
    """Refuse a parameter's ``x-unit`` that cannot be read, as a return field's is: a bound
    the request writes with a unit ("above 2 eV") fills the parameter in that unit, and one
    that cannot be read was skipped without a word (trial X3: a Python function's)."""
    unit = _declared(schema, "x-unit")
    if unit is None:
        return
    try:
        parse_unit(unit)
    except UnitError as exc:
        raise UnitError(
            f"x-unit {unit!r} cannot be read: {exc.what}",
            where=where,
            hint="Use a unit pint understands (e.g. 'degC', 'mL', 'eV')",
        ) from None


def declared_semantic_id(
    schema: Any, *, where: str, notes: list[str] | None, location: str = ""
) -> dict[str, str]:
    """``{"semantic_id": ...}`` where ``schema`` (a leaf's, or a parameter object and its
    schema) declares ``x-semantic-id``, else ``{}``: what lets a field or parameter of an
    OpenAPI document or MCP tool take part in field-first planning, fallbacks and binding
    by meaning, as a catalog's does (trial T3: none could). One that is no semantic id
    raises a :class:`DocumentError` at ``where``, or with ``notes`` (a lenient reading) is
    left off and noted at ``location``."""
    declares = isinstance(schema, Mapping) and "x-semantic-id" in schema
    own = schema["x-semantic-id"] if declares else None
    declared: str | None
    if declares and not (isinstance(own, str) and own.strip()):
        # a list, a number, null or "": no id, said (trial U1: it went silently, and one on
        # a parameter object hid the valid one of its schema)
        declared = f"{str(own)[:60]} ({type(own).__name__})"
    else:
        declared = _declared(schema, "x-semantic-id")
    if declared is None:
        return {}
    if len(declared) <= 128 and re.fullmatch(SEMANTIC_ID_PATTERN, declared):
        return {"semantic_id": declared}
    problem = (
        f"x-semantic-id {declared[:80]!r} is no semantic id (dot-separated lowercase words, "
        "such as 'materials.band_gap')"
    )
    if notes is None:
        raise DocumentError(problem, where=where, hint="Write it as dot-separated lowercase words")
    notes.append(f"{location}: {problem}; left off")
    return {}


#: How many names a field's or parameter's ``x-aliases`` may give, and how long each may be.
_MAX_ALIASES, _MAX_ALIAS = 20, 80


def declared_aliases(
    schema: Any, *, where: str, notes: list[str] | None, location: str = ""
) -> dict[str, tuple[str, ...]]:
    """``{"aliases": (...)}`` where ``schema`` (a leaf's, or a parameter object) declares
    ``x-aliases``: a name, or a list of names, requests call the field or parameter by
    ("sintering temperature", "소결 온도"), as a catalog's ``aliases`` (field-first planning
    and the field documents read them; trial X4: a Korean team's OpenAPI document had no
    way to give its fields' Korean names). One that is no such list raises a
    :class:`DocumentError` at ``where``, or with ``notes`` is left off and noted."""
    if not isinstance(schema, Mapping) or "x-aliases" not in schema:
        return {}
    given = schema["x-aliases"]
    names = [given] if isinstance(given, str) else given
    if (
        isinstance(names, list)
        and len(names) <= _MAX_ALIASES
        and all(isinstance(n, str) and 0 < len(n.strip()) <= _MAX_ALIAS for n in names)
    ):
        return {"aliases": tuple(dict.fromkeys(n.strip() for n in names))} if names else {}
    problem = (
        f"x-aliases {str(given)[:60]!r} is no list of names (at most {_MAX_ALIASES}, each "
        f"1 to {_MAX_ALIAS} characters)"
    )
    if notes is None:
        example = 'x-aliases: ["sintering temperature", "소결 온도"]'
        raise DocumentError(problem, where=where, hint=f"Write e.g. {example}")
    notes.append(f"{location}: {problem}; left off")
    return {}


def declared_meaning(
    schema: Any, *, where: str, notes: list[str] | None, location: str = ""
) -> dict[str, Any]:
    """A parameter's (or leaf's) :func:`declared_semantic_id` and :func:`declared_aliases`."""
    return declared_semantic_id(schema, where=where, notes=notes, location=location) | (
        declared_aliases(schema, where=where, notes=notes, location=location)
    )


#: The longest licence name a field's ``x-license`` may give (an SPDX id or a short name).
_MAX_LICENSE = 200


def declared_license(
    schema: Any, *, where: str, notes: list[str] | None, location: str = ""
) -> dict[str, str]:
    """``{"license": ...}`` where a leaf declares ``x-license`` (its own, else the one its
    ``allOf`` / ``anyOf`` / ``oneOf`` members agree on, or its ``items``'), as a catalog field's
    ``license`` overrides its provider's (trial X4: a team's internal measured values were
    labelled with the document's ``info.license``); ``{}`` where none is declared. One that is
    blank or longer than :data:`_MAX_LICENSE` characters raises a :class:`DocumentError` at
    ``where``, or with ``notes`` is left off and noted at ``location``."""
    declares = isinstance(schema, Mapping) and isinstance(schema.get("x-license"), str)
    declared = _declared(schema, "x-license")
    if declared is None and not declares:
        return {}
    if declared is not None and len(declared) <= _MAX_LICENSE:
        return {"license": declared}
    shown = repr((declared or schema.get("x-license") or "")[:40])
    problem = f"x-license {shown} is no licence name (an SPDX id such as 'CC-BY-4.0')"
    if notes is None:
        raise DocumentError(problem, where=where, hint="Write the licence's SPDX id or name")
    notes.append(f"{location}: {problem}; left off, the provider's licence applies")
    return {}


def output_fields(
    schema: Any,
    *,
    limits: FieldLimits | None,
    where: str,
    hint: str,
    notes: list[str] | None = None,
    location: str = "",
) -> tuple[OutputField, ...]:
    """The output fields of an inlined output schema, one per :func:`flatten_fields` row; a
    field the contract refuses raises a :class:`~schemarouter.errors.DocumentError` at
    ``where``, naming the field.

    A leaf's ``x-semantic-id`` is its field's semantic id (:func:`declared_semantic_id`), its
    ``x-aliases`` the field's aliases (:func:`declared_aliases`).
    A leaf's ``x-unit`` (and ``x-dimension``) is its field's unit (also through ``allOf`` /
    ``anyOf`` / ``oneOf`` members that agree, or an array's ``items``), checked as a catalog's
    is (:func:`schemarouter.units.check_field_units`); it is metadata only: a value is
    converted only where a trusted catalog declares a normalization. A unit that cannot be
    read raises, or with ``notes`` (a lenient reading) is left off and noted at
    ``location``."""
    fields = []
    for row in flatten_fields(schema, limits=limits):
        at = f"{where} (output field {row.name!r})"
        declared = {k: _declared(row.schema, f"x-{k}") for k in ("unit", "dimension")}
        declared = {k: v for k, v in declared.items() if v is not None}
        if "unit" not in declared:
            if "dimension" in declared and notes is not None:  # said, not dropped unsaid
                notes.append(
                    f"{location} (output field {row.name!r}): x-dimension "
                    f"{str(declared['dimension'])[:40]!r} is left off: a dimension is read beside "
                    "an x-unit only (declare the unit the values are in)"
                )
            declared = {}
        field_at = f"{location} (output field {row.name!r})"
        meaning = declared_meaning(row.schema, where=at, notes=notes, location=field_at)
        licence = declared_license(row.schema, where=at, notes=notes, location=field_at)
        item = build_contract(
            OutputField,
            where=at,
            hint=hint,
            name=row.name,
            path=row.path,
            json_schema=as_object_schema(row.schema),
            description=row.description,
            **declared,
            **meaning,
            **licence,
        )
        if declared:
            try:
                check_field_units(item, where=f"{at} x-unit")
            except UnitError as exc:
                if notes is None:
                    raise
                notes.append(
                    f"{location} (output field {row.name!r}): x-unit {declared['unit']!r} "
                    f"is left off: {exc.what}"
                )
                item = item.model_copy(update={"unit": None, "dimension": None})
        fields.append(item)
    return tuple(fields)
