"""JSON Schema plumbing shared by the OpenAPI and MCP adapters.

Three jobs, each a small piece of the registration of a foreign document:

1. **Local ``$ref`` resolution** (:class:`SchemaResolver`). Every ``#/...`` JSON pointer is
   inlined, so each registered schema stands alone (an LLM prompt, an index document or a
   validator reads it without the document it came from). A recursive schema is cut where
   it refers back to itself: the cut point becomes ``{"$comment": "recursive ref <ref>"}``,
   a schema that accepts anything, so validation stays sound (never stricter than the
   document) and always terminates. A chain of references with nothing in between
   (``A -> B -> A``) is a :class:`ReferenceCycleError`; a pointer into nothing is a
   :class:`DanglingReferenceError` naming it; anything but a local pointer (another file,
   a URL, a plain-name anchor) is refused with a hint to bundle the document first.
   Inlined results that do not depend on where they were reached from are memoized per
   reference, so a definition used by a thousand operations is resolved once.

   Why not a library: ``referencing`` (installed with jsonschema) resolves pointers, but
   0.37 indexes into strings (``#/title/0`` is the title's first letter) and accepts
   negative list indexes, and neither it nor ``jsonschema-path`` / ``prance`` inlines with
   a cycle cut and per-reference memoization; the RFC 6901 lookup itself is ten lines.

2. **Dialect normalization** to JSON Schema 2020-12 (what :mod:`schemarouter.registry.compile`
   checks): OpenAPI 3.0 ``nullable`` and Swagger ``x-nullable`` become a union with
   ``null``; draft-04 boolean ``exclusiveMinimum`` / ``exclusiveMaximum`` become numbers;
   tuple ``items`` become ``prefixItems``; Swagger's ``type: file`` becomes a binary
   string; a stray boolean ``required`` inside a schema is dropped; ``required`` lists lose
   duplicates; a ``pattern`` Python cannot compile (Java's ``\\p{L}``, common in AWS
   documents) is kept as the annotation ``x-pattern``; vendor ``x-`` keywords are dropped
   (they are not JSON Schema and may hide raw ``$ref``); ``$schema`` / ``$id`` /
   ``definitions`` / ``$defs`` are dropped once every reference is inlined. ``allOf``
   members that only declare object structure are merged into one object schema; any other
   ``allOf`` is kept as is. OpenAPI 3.0 ignores keywords beside ``$ref`` (annotations such
   as ``description`` are kept); 3.1 and JSON Schema apply them (as an ``allOf``).

Output schemas are flattened into fields by :mod:`schemarouter.adapters._fields`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple
from urllib.parse import unquote

from schemarouter.errors import DanglingReferenceError, ReferenceCycleError, SchemaError

__all__ = [
    "MAX_DOCUMENT_SCHEMA_NODES",
    "MAX_SCHEMA_NODES",
    "Dialect",
    "InlineBudget",
    "SchemaResolver",
    "as_object_schema",
    "json_size",
    "lookup_pointer",
    "pointer_location",
]

logger = logging.getLogger(__name__)

#: ``oas2``: Swagger 2.0 schemas; ``oas30``: OpenAPI 3.0; ``oas31`` / ``jsonschema``:
#: JSON Schema proper (OpenAPI 3.1, MCP tools; draft-04 to 2020-12 keywords accepted).
Dialect = Literal["oas2", "oas30", "oas31", "jsonschema"]

_SCHEMA_KEYS = frozenset(
    {
        "additionalItems",
        "additionalProperties",
        "contains",
        "contentSchema",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SCHEMA_LIST_KEYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_DROPPED_KEYS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "definitions",
        "$defs",
        "nullable",
        "x-nullable",
    }
)
#: Keywords an ``allOf`` member may use and still be merged into its siblings.
_MERGEABLE = frozenset({"type", "properties", "required", "title", "description"})
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "example",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_MISSING = object()
#: JSON nodes one schema may have once its references are inlined.
MAX_SCHEMA_NODES = 50_000
#: JSON nodes all the inlined schemas of one document (or MCP tool list) may have together.
MAX_DOCUMENT_SCHEMA_NODES = 250_000


@dataclass
class InlineBudget:
    """How large inlining may make the schemas of one document (see
    :meth:`SchemaResolver.schema`); ``total`` counts what it has made so far."""

    max_nodes: int = MAX_SCHEMA_NODES
    max_total: int = MAX_DOCUMENT_SCHEMA_NODES
    total: int = 0


def pointer_location(ref: str) -> str:
    """``#/paths/~1movie~1{id}/get`` -> ``paths./movie/{id}.get`` (the error location style)."""
    parts = [_unescape(p) for p in ref.lstrip("#").split("/")[1:]]
    text = ""
    for part in parts:
        if part.isdigit() and text:
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "<document>"


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def lookup_pointer(document: Any, ref: str) -> Any:
    """RFC 6901 lookup of a ``#/...`` fragment; ``_MISSING`` where it points at nothing."""
    node = document
    for raw in ref[1:].split("/")[1:] if ref != "#" else ():
        part = _unescape(raw)
        if isinstance(node, Mapping):
            node = node.get(part, _MISSING)
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0"):
            index = int(part)
            node = node[index] if index < len(node) else _MISSING
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


class _Inlined(NamedTuple):
    schema: Any
    #: Lowest stack index a recursion cut inside this result refers to (``inf``: none), so
    #: a result is context-free, and memoizable, when ``low`` is at least its own index.
    low: float
    #: JSON nodes in ``schema`` (what inlining produced, shared parts counted each time).
    size: int


class SchemaResolver:
    """Inline and normalize the schemas of one document (see the module docstring).

    ``document`` is the whole document local references point into; ``source`` names it in
    errors; ``dialect`` says which keywords mean what; ``root`` is where ``document`` sits
    in the source (an MCP tool's ``tools[3].inputSchema``), prefixed to pointer locations.
    """

    def __init__(
        self,
        document: Any,
        *,
        source: str,
        dialect: Dialect,
        root: str = "",
        budget: InlineBudget | None = None,
    ) -> None:
        self.document = document
        self.source = source
        self.dialect: Dialect = dialect
        self.root = root
        #: shared by every resolver of one document (an MCP tool list has one per schema)
        self.budget = budget if budget is not None else InlineBudget()
        self._memo: dict[str, tuple[Any, int]] = {}
        self._stack: list[str] = []
        self._spent = 0
        self._top = ""

    def _where(self, location: str) -> str:
        return f"{self.source}: {location}"

    def location(self, ref: str) -> str:
        """Where ``ref`` points, in the error location style, from the source's root."""
        inner = pointer_location(ref)
        if not self.root:
            return inner
        return self.root if inner == "<document>" else f"{self.root}.{inner}"

    # -- references --------------------------------------------------------------------

    def target(self, ref: Any, *, location: str) -> tuple[list[str], Any]:
        """Follow ``ref`` and any pure ``{"$ref": ...}`` nodes it lands on.

        Returns the chain of references followed and the node at its end.
        """
        chain: list[str] = []
        node: Any = {"$ref": ref}
        while isinstance(node, Mapping) and "$ref" in node and (not chain or len(node) == 1):
            ref = node["$ref"]
            if not isinstance(ref, str):
                raise SchemaError(
                    f"$ref must be a string, got {type(ref).__name__}",
                    where=self._where(location),
                    hint="Write the reference as a JSON pointer such as '#/components/schemas/Pet'",
                )
            if not ref.startswith("#") or (ref != "#" and not ref.startswith("#/")):
                raise DanglingReferenceError(
                    f"$ref {ref!r} is not a local JSON pointer; only '#/...' references "
                    "are resolved",
                    where=self._where(location),
                    hint="Bundle the document first (e.g. `redocly bundle` or "
                    "`swagger-cli bundle`) so every reference is local",
                )
            if ref in chain:
                raise ReferenceCycleError(
                    f"$ref chain {' -> '.join([*chain, ref])} loops with no schema in between",
                    where=self._where(location),
                    hint="Point one of the references at an actual schema",
                )
            chain.append(ref)
            node = lookup_pointer(self.document, ref)
            if node is _MISSING:
                raise DanglingReferenceError(
                    f"$ref {ref!r} points at nothing (no {self.location(ref)} in the document)",
                    where=self._where(location),
                    hint="Add the referenced definition or fix the pointer",
                )
            location = self.location(ref)
        return chain, node

    # -- schemas -----------------------------------------------------------------------

    def schema(self, node: Any, *, location: str) -> Any:
        """The inlined, normalized JSON Schema 2020-12 form of ``node`` (a dict or a bool).

        A :class:`SchemaError` where inlining would make more JSON nodes than the
        :class:`InlineBudget` allows for this schema or for the whole document (references
        that fan out: each definition referring twice to the next doubles the result per
        level, so a 2 kB document could otherwise expand to gigabytes).
        """
        self._stack = []
        self._spent = 0
        self._top = location
        try:
            return self._inline(node, location).schema
        except RecursionError:
            raise SchemaError(
                "schema is nested too deeply to resolve",
                where=self._where(location),
                hint="Flatten the schema or split it into referenced definitions",
            ) from None

    def _charge(self, nodes: int, location: str) -> None:
        """Count ``nodes`` produced; refuse past the schema's or the document's limit."""
        budget = self.budget
        self._spent += nodes
        budget.total += nodes
        if self._spent > budget.max_nodes:
            scope = f"makes the schema at {self._top} larger than {budget.max_nodes}"
        elif budget.total > budget.max_total:
            scope = f"makes the document's schemas larger than {budget.max_total}"
        else:
            return
        raise SchemaError(
            f"inlining $refs {scope} JSON nodes (references that fan out multiply the "
            f"copies of a definition; the limit was passed at {location})",
            where=self._where(self._top),
            hint="Refer to shared definitions less often, or split the document",
        )

    def _inline(self, node: Any, location: str) -> _Inlined:
        if isinstance(node, bool):
            self._charge(1, location)
            return _Inlined(node, float("inf"), 1)
        if not isinstance(node, Mapping):
            raise SchemaError(
                f"a schema must be an object, got {type(node).__name__}",
                where=self._where(location),
                hint="Write the schema as a mapping such as {'type': 'string'}",
            )
        if "$ref" in node:
            return self._inline_ref(node, location)
        return self._inline_plain(node, location)

    def _inline_ref(self, node: Mapping[str, Any], location: str) -> _Inlined:
        ref = node["$ref"]
        if isinstance(ref, str) and ref in self._stack:
            index = self._stack.index(ref)
            self._charge(2, location)
            cut = _Inlined({"$comment": f"recursive ref {ref}"}, index, 2)
            return self._with_siblings(cut, node, location)
        if isinstance(ref, str) and ref in self._memo:
            schema, size = self._memo[ref]
            self._charge(size, location)
            return self._with_siblings(_Inlined(schema, float("inf"), size), node, location)
        chain, target = self.target(ref, location=location)
        depth = len(self._stack)
        self._stack.extend(chain)
        try:
            inner = self._inline(target, self.location(chain[-1]))
        finally:
            del self._stack[depth:]
        if inner.low >= depth:
            for item in chain:
                self._memo[item] = (inner.schema, inner.size)
        return self._with_siblings(inner, node, location)

    def _with_siblings(self, inner: _Inlined, node: Mapping[str, Any], location: str) -> _Inlined:
        """Keywords written next to ``$ref``: annotations override, the rest is ``allOf``."""
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return inner
        schema, size = inner.schema, inner.size
        nullable = siblings.get("nullable") is True or siblings.get("x-nullable") is True
        annotations = {k: v for k, v in siblings.items() if k in _ANNOTATIONS}
        rest = {
            k: v
            for k, v in siblings.items()
            if k not in _ANNOTATIONS and k not in _DROPPED_KEYS and not k.startswith("x-")
        }
        if self.dialect in ("oas2", "oas30"):
            rest = {}  # OpenAPI <= 3.0: siblings of $ref are ignored (annotations kept)
        if rest:
            extra = self._inline_plain(rest, location)
            schema, size = {"allOf": [schema, extra.schema]}, size + extra.size + 2
        if isinstance(schema, bool):
            schema = {} if schema else {"not": {}}
        if annotations:
            schema = {**schema, **annotations}
            added = sum(json_size(v) for v in annotations.values())
            self._charge(added, location)
            size += added
        if nullable and self.dialect in ("oas2", "oas30"):
            schema = _nullable(schema)
        return _Inlined(schema, inner.low, size)

    def _inline_plain(self, node: Mapping[str, Any], location: str) -> _Inlined:
        low = float("inf")
        out: dict[str, Any] = {}
        own = 1  # this object and its plain values; sub-schemas count themselves
        children = 0
        for key, value in node.items():
            if not isinstance(key, str):
                raise SchemaError(
                    f"schema keys must be strings, got {key!r}",
                    where=self._where(location),
                    hint="Quote the key",
                )
            here = f"{location}.{key}"
            if key in _DROPPED_KEYS:
                continue
            if key in _SCHEMA_KEYS and key == "items" and isinstance(value, list):
                items = [self._inline(v, f"{here}[{i}]") for i, v in enumerate(value)]
                low = min([low, *(i.low for i in items)])
                children += sum(i.size for i in items)
                own += 1
                out["prefixItems"] = [i.schema for i in items]
            elif key in _SCHEMA_KEYS and (isinstance(value, Mapping | bool)):
                if key == "additionalItems":
                    if isinstance(node.get("items"), list):
                        inner = self._inline(value, here)
                        low = min(low, inner.low)
                        children += inner.size
                        out["items"] = inner.schema
                    continue
                inner = self._inline(value, here)
                low = min(low, inner.low)
                children += inner.size
                out[key] = inner.schema
            elif key in _SCHEMA_KEYS:
                raise SchemaError(
                    f"{key!r} must be a schema (an object), got {type(value).__name__}",
                    where=self._where(here),
                    hint="Write a schema object there",
                )
            elif key in _SCHEMA_LIST_KEYS:
                if not isinstance(value, list) or not value:
                    raise SchemaError(
                        f"{key!r} must be a non-empty list of schemas",
                        where=self._where(here),
                        hint=f"Write {key}: [ {{...}}, ... ]",
                    )
                items = [self._inline(v, f"{here}[{i}]") for i, v in enumerate(value)]
                low = min([low, *(i.low for i in items)])
                children += sum(i.size for i in items)
                own += 1
                out[key] = [i.schema for i in items]
            elif key in _SCHEMA_MAP_KEYS:
                if not isinstance(value, Mapping):
                    raise SchemaError(
                        f"{key!r} must map names to schemas, got {type(value).__name__}",
                        where=self._where(here),
                        hint=f"Write {key}: {{name: {{...}}}}",
                    )
                members: dict[str, Any] = {}
                for name, sub in value.items():
                    inner = self._inline(sub, f"{here}.{name}")
                    low = min(low, inner.low)
                    children += inner.size
                    members[str(name)] = inner.schema
                own += 1
                out[key] = members
            elif key == "required":
                if isinstance(value, list):
                    out[key] = list(dict.fromkeys(v for v in value if isinstance(v, str)))
                # a boolean ``required`` (Swagger property-level habit) is dropped
            elif key == "type" and value == "file" and self.dialect in ("oas2", "oas30"):
                out["type"] = "string"
                out.setdefault("format", "binary")
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                bound = node.get("minimum" if key == "exclusiveMinimum" else "maximum")
                if value and isinstance(bound, int | float) and not isinstance(bound, bool):
                    out[key] = bound
            elif key == "id" and self.dialect != "oas31" and isinstance(value, str):
                continue  # draft-04 ``id``; would re-base references if kept
            elif key.startswith("x-"):
                continue  # vendor extensions: not JSON Schema, and may hide raw $refs
            elif key == "pattern" and isinstance(value, str) and not _compiles(value):
                out["x-pattern"] = value  # e.g. Java's \p{L}: kept, as an annotation only
            else:
                own += json_size(value)
                out[key] = value
        self._charge(own, location)
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            bound_key = "minimum" if key == "exclusiveMinimum" else "maximum"
            if isinstance(out.get(key), int | float) and node.get(key) is True:
                out.pop(bound_key, None)
        kinds = out.get("type")
        if isinstance(kinds, list) and all(isinstance(k, str) for k in kinds):
            out["type"] = list(dict.fromkeys(kinds))
        if "allOf" in out:
            out = _merge_all_of(out)
        if self.dialect in ("oas2", "oas30") and (
            node.get("nullable") is True or node.get("x-nullable") is True
        ):
            out = _nullable(out)
        return _Inlined(out, low, own + children)


def json_size(value: Any) -> int:
    """How many JSON nodes ``value`` holds (objects, arrays and scalars), counted without
    recursion."""
    count, todo = 0, [value]
    while todo:
        node = todo.pop()
        count += 1
        if isinstance(node, Mapping):
            todo.extend(node.values())
        elif isinstance(node, list | tuple):
            todo.extend(node)
    return count


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0 ``nullable: true`` as JSON Schema: ``null`` joins the type (or a union)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        schema = {**schema, "type": [kind, "null"]} if kind != "null" else schema
        if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    if not schema:
        return schema  # already accepts null
    return {"anyOf": [schema, {"type": "null"}]}


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """Merge ``allOf`` members that only declare object structure (disjoint properties)."""
    members = schema["allOf"]
    if not all(isinstance(m, dict) and set(m) <= _MERGEABLE for m in members):
        return schema
    if not set(schema) - {"allOf"} <= _MERGEABLE:
        return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for member in members:
        for key, value in member.items():
            if key == "type":
                if merged.setdefault("type", value) != value:
                    return schema
            elif key == "properties":
                properties = merged.setdefault("properties", {})
                if not isinstance(value, dict):
                    return schema
                for name, sub in value.items():
                    if name in properties and properties[name] != sub:
                        return schema
                    properties[name] = sub
            elif key == "required":
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged.setdefault(key, value)
    if "properties" in merged:
        merged = {**merged, "properties": dict(merged["properties"])}
    return merged


def as_object_schema(schema: Any) -> dict[str, Any]:
    """A boolean schema as its object form (``true`` -> ``{}``, ``false`` -> ``{"not": {}}``)."""
    if isinstance(schema, bool):
        return {} if schema else {"not": {}}
    return dict(schema) if isinstance(schema, Mapping) else {}
