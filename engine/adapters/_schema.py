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
   string; a stray boolean ``required`` is dropped (refused in plain JSON Schema, as is any
   non-list); ``required`` lists lose duplicates; a ``pattern`` Python cannot compile (Java's
   ``\\p{L}``, common in AWS documents) is kept as the annotation ``x-pattern``; vendor ``x-``
   keywords but ``x-unit`` / ``x-dimension`` / ``x-semantic-id`` (strings) are dropped (not
   JSON Schema, and may hide raw
   ``$ref``); ``$schema`` / ``$id`` /
   ``definitions`` / ``$defs`` are dropped once every reference is inlined. ``allOf`` members that
   only declare object structure are merged into one object schema; any other ``allOf`` is kept as
   is. OpenAPI 3.0 ignores keywords beside ``$ref`` (annotations such as ``description`` are kept);
   3.1 and JSON Schema apply them (as an ``allOf``).

Output schemas are flattened into fields by :mod:`schemarouter.adapters._fields`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from schemarouter.adapters._discriminator import discriminated, mapped_refs, subtype_refs, when
from schemarouter.adapters._json import (
    MISSING,
    as_object_schema,
    compiles,
    json_size,
    lookup_pointer,
    merge_all_of,
    nested_past,
    nullable,
    pointer_location,
)
from schemarouter.adapters._refstack import RefStack
from schemarouter.adapters._repairs import repair_schema
from schemarouter.adapters._schema_keys import (
    ANNOTATIONS,
    DROPPED_KEYS,
    PLAIN_KEYS,
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    Dialect,
)
from schemarouter.errors import DanglingReferenceError, ReferenceCycleError, SchemaError
from schemarouter.registry.bounds import MAX_SCHEMA_DEPTH
from schemarouter.registry.defs import (
    DEFS_PREFIX,
    cyclic_pointers,
    def_name,
    local_refs,
    used_defs,
)

__all__ = [
    "MAX_DOCUMENT_SCHEMA_NODES",
    "MAX_SCHEMA_NODES",
    "SHARE_ABOVE",
    "Dialect",
    "InlineBudget",
    "SchemaResolver",
    "as_object_schema",
    "json_size",
    "lookup_pointer",
    "pointer_location",
]

logger = logging.getLogger(__name__)

#: The vendor keywords a schema keeps (strings only, and lists of them): what a field's unit,
#: meaning, other names and licence are.
_KEPT_X = ("x-unit", "x-dimension", "x-semantic-id", "x-license", "x-aliases")


def _kept_x(key: str, value: Any) -> bool:
    if key not in _KEPT_X:
        return False
    # a scalar or a list of scalars, read (and checked: "x-aliases: 7" is said) by its reader
    if isinstance(value, list):
        return not any(isinstance(item, dict | list) for item in value)
    return not isinstance(value, dict)


#: JSON nodes one schema may have once its references are inlined.
MAX_SCHEMA_NODES = 50_000
#: JSON nodes all the inlined schemas of one document (or MCP tool list) may have together.
MAX_DOCUMENT_SCHEMA_NODES = 250_000
#: An inlined schema that cuts a recursive reference and passes this many JSON nodes takes
#: the shared form (its cyclic definitions once, under ``$defs``): every path through a
#: cycle inlines another copy. The largest inlined schema of the 124 shared OpenAPI
#: documents has 6,681 nodes, so none of them changes form.
SHARE_ABOVE = 10_000


@dataclass
class InlineBudget:
    """How large inlining may make the schemas of one document (see
    :meth:`SchemaResolver.schema`); ``total`` counts what it has made so far."""

    max_nodes: int = MAX_SCHEMA_NODES
    max_total: int = MAX_DOCUMENT_SCHEMA_NODES
    total: int = 0


class _Recursive(Exception):
    """Inlining a schema that cuts a recursive reference passed :data:`SHARE_ABOVE` nodes."""


class _TooLarge(SchemaError):
    """Inlining passed the budget (a :class:`SchemaError`; the shared form may still fit)."""

    def plain(self) -> SchemaError:
        return SchemaError(self.what, where=self.where, hint=self.hint)


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
    ``repairs`` (a list) turns on the lenient reading of :mod:`~schemarouter.adapters._repairs`:
    each repair is appended to it; ``None`` refuses such schemas. ``shared=True`` lets a
    schema whose inlined form passes the budget keep its cyclic definitions shared under
    ``$defs`` (:mod:`~schemarouter.registry.defs`) rather than be refused.
    """

    def __init__(
        self,
        document: Any,
        *,
        source: str,
        dialect: Dialect,
        root: str = "",
        budget: InlineBudget | None = None,
        repairs: list[str] | None = None,
        shared: bool = False,
    ) -> None:
        self.document = document
        self.repairs = repairs
        self.shared = shared
        #: the shared form's state, kept for the whole document: which pointers lie on a
        #: cycle, the ``$defs`` built so far (name -> schema, size) and their names, and the
        #: inlined results of the other references (all context-free in that form)
        self._sharing = False
        self._cyclic: dict[str, bool] = {}
        self._defs: dict[str, Any] = {}
        self._def_sizes: dict[str, int] = {}
        self._def_names: dict[str, str] = {}
        self._shared_memo: dict[str, tuple[Any, int]] = {}
        self.source = source
        self.dialect: Dialect = dialect
        self.root = root
        #: shared by every resolver of one document (an MCP tool list has one per schema)
        self.budget = budget if budget is not None else InlineBudget()
        #: ref -> (inlined schema, its size, whether it cuts a recursive reference)
        self._memo: dict[str, tuple[Any, int, bool]] = {}
        self._cut = False
        self._stack = RefStack()
        self._spent = 0
        self._top = ""

    def _where(self, location: str) -> str:
        return f"{self.source}: {location}"

    def _too_deep(self, location: str) -> SchemaError:
        return SchemaError(
            "schema is nested too deeply to resolve",
            where=self._where(location),
            hint="Flatten the schema or split it into referenced definitions",
        )

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
        chain: dict[str, None] = {}  # in order, and looked up, not searched: a chain is linear
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
                    hint=(
                        "The tool's server must inline the schema it references (a tool's "
                        "inputSchema and outputSchema are read as sent; only '#/...' resolves)"
                        if self.dialect == "jsonschema"
                        else "Bundle the document first (e.g. `redocly bundle` or "
                        "`swagger-cli bundle`) so every reference is local"
                    ),
                )
            if ref in chain:
                raise ReferenceCycleError(
                    f"$ref chain {' -> '.join([*chain, ref])} loops with no schema in between",
                    where=self._where(location),
                    hint="Point one of the references at an actual schema",
                )
            chain[ref] = None
            node = lookup_pointer(self.document, ref)
            if node is MISSING:
                raise DanglingReferenceError(
                    f"$ref {ref!r} points at nothing (no {self.location(ref)} in the document)",
                    where=self._where(location),
                    hint="Add the referenced definition or fix the pointer",
                )
            location = self.location(ref)
        return list(chain), node

    # -- schemas -----------------------------------------------------------------------

    def schema(self, node: Any, *, location: str) -> Any:
        """The inlined, normalized JSON Schema 2020-12 form of ``node`` (a dict or a bool).

        A :class:`SchemaError` where inlining would make more JSON nodes than the
        :class:`InlineBudget` allows for this schema or for the whole document (references
        that fan out: each definition referring twice to the next doubles the result per
        level, so a 2 kB document could otherwise expand to gigabytes).
        """
        self._stack = RefStack()
        self._spent = 0
        self._top = location
        self._cut = False
        total = self.budget.total
        try:
            inlined = self._inline(node, location).schema
            if not self.shared or not nested_past(inlined, _SHARED_DEPTH):
                return inlined
            self.budget.total = total  # too deep to register inlined: the shared form
        except _TooLarge as exc:
            if not self.shared:
                raise exc.plain() from None
            self.budget.total = total  # the inlined attempt is dropped: not counted
        except _Recursive:
            self.budget.total = total  # a large recursive schema: the shared form
        except RecursionError:
            raise self._too_deep(location) from None
        try:
            return self._shared_schema(node, location)
        except _TooLarge as exc:
            raise exc.plain() from None

    def _shared_schema(self, node: Any, location: str) -> Any:
        """``node`` with the definitions on reference cycles under ``$defs`` (see
        :mod:`~schemarouter.registry.defs`); a :class:`SchemaError` where even that form
        passes the budget (references that fan out without a cycle)."""
        self._stack = RefStack()
        self._spent = 0
        self._sharing = True
        try:
            body = self._inline(node, location)
        except RecursionError:
            raise self._too_deep(location) from None
        finally:
            self._sharing = False
        names = used_defs(body.schema, self._defs)
        size = body.size + sum(self._def_sizes[name] for name in names)
        if size > self.budget.max_nodes:
            raise _TooLarge(
                f"its shared form (cyclic definitions once, under $defs) still has {size} "
                f"JSON nodes, more than {self.budget.max_nodes}",
                where=self._where(location),
                hint="Refer to shared definitions less often, or split the document",
            )
        if not names:
            return body.schema
        schema = as_object_schema(body.schema)
        return {**schema, "$defs": {name: self._defs[name] for name in sorted(names)}}

    def _on_cycle(self, pointer: str) -> bool:
        """Whether the definition at ``pointer`` can reach itself through references."""
        if pointer not in self._cyclic:

            def edges(ref: str) -> list[str]:
                target = lookup_pointer(self.document, ref)
                return [] if target is MISSING else list(dict.fromkeys(local_refs(target)))

            cyclic_pointers([pointer], edges, self._cyclic)
        return self._cyclic.get(pointer, False)

    def _shared_ref(self, node: Mapping[str, Any], location: str) -> _Inlined:
        """A reference in the shared form: ``{"$ref": "#/$defs/Name"}`` for a definition on
        a cycle (built once per document), the inlined target for any other."""
        chain, target = self.target(node["$ref"], location=location)
        end = chain[-1]
        if self._on_cycle(end):
            name = self._def_names.get(end)
            if name is None:
                name = def_name(end, self._def_names.values())
                self._def_names[end] = name
                built = self._inline(target, self.location(end))  # charged here, once
                self._defs[name], self._def_sizes[name] = built.schema, built.size
            self._charge(2, location)
            inner = _Inlined({"$ref": DEFS_PREFIX + name}, float("inf"), 2)
        elif end in self._shared_memo:
            schema, size = self._shared_memo[end]
            self._charge(size, location)
            inner = _Inlined(schema, float("inf"), size)
        else:
            inner = self._inline(target, self.location(end))
            self._shared_memo[end] = (inner.schema, inner.size)
        return self._with_siblings(inner, node, location)

    def _charge(self, nodes: int, location: str) -> None:
        """Count ``nodes`` produced; refuse past the schema's or the document's limit."""
        budget = self.budget
        self._spent += nodes
        budget.total += nodes
        if self.shared and self._cut and self._spent > SHARE_ABOVE and not self._sharing:
            raise _Recursive  # copies along a cycle: sharing it is smaller (and exact)
        if self._spent > budget.max_nodes:
            scope = f"the schema at {self._top} is larger than {budget.max_nodes}"
        elif budget.total > budget.max_total:
            scope = f"the document's schemas are larger than {budget.max_total}"
        else:
            return
        raise _TooLarge(  # trial G: a flat 20,000-property schema was blamed on its $refs
            f"{scope} JSON nodes, each $ref counted as the copy it inlines (references "
            f"that fan out multiply the copies; the limit was passed at {location})",
            where=self._where(self._top),
            hint="Split the schema, or refer to shared definitions less often",
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
        if self.repairs is not None:
            node = repair_schema(node, location, self.repairs)
        if "$ref" in node:
            return self._inline_ref(node, location)
        return self._inline_plain(node, location)

    def _inline_ref(self, node: Mapping[str, Any], location: str) -> _Inlined:
        if self._sharing:
            return self._shared_ref(node, location)
        ref = node["$ref"]
        index = self._stack.index(ref) if isinstance(ref, str) else None
        if index is not None:
            self._cut = True
            self._charge(2, location)
            cut = _Inlined({"$comment": f"recursive ref {ref}"}, index, 2)
            return self._with_siblings(cut, node, location)
        if isinstance(ref, str) and ref in self._memo:
            schema, size, cuts = self._memo[ref]
            self._cut = self._cut or cuts
            self._charge(size, location)
            return self._with_siblings(_Inlined(schema, float("inf"), size), node, location)
        chain, target = self.target(ref, location=location)
        depth = self._stack.push(chain)
        outer, self._cut = self._cut, False
        try:
            inner = self._inline(target, self.location(chain[-1]))
        finally:
            self._stack.pop_to(depth)
            cuts, self._cut = self._cut, outer or self._cut
        if inner.low >= depth:
            for item in chain:
                self._memo[item] = (inner.schema, inner.size, cuts)
        return self._with_siblings(inner, node, location)

    def _with_siblings(self, inner: _Inlined, node: Mapping[str, Any], location: str) -> _Inlined:
        """Keywords written next to ``$ref``: annotations override, the rest is ``allOf``."""
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return inner
        schema, size = inner.schema, inner.size
        is_nullable = siblings.get("nullable") is True or siblings.get("x-nullable") is True
        annotations = {k: v for k, v in siblings.items() if k in ANNOTATIONS}
        rest = {
            k: v
            for k, v in siblings.items()
            if k not in ANNOTATIONS and k not in DROPPED_KEYS and not k.startswith("x-")
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
        if is_nullable and self.dialect in ("oas2", "oas30"):
            schema = nullable(schema)
        return _Inlined(schema, inner.low, size)

    def _inline_plain(self, node: Mapping[str, Any], location: str) -> _Inlined:
        low = float("inf")
        out: dict[str, Any] = {}
        own = 1  # this object and its plain values; sub-schemas count themselves
        children = 0
        for key, value in node.items():
            if key in PLAIN_KEYS or (key == "type" and value != "file"):
                own += json_size(value)  # the ``else`` below, without the tests before it
                out[key] = value
                continue
            if not isinstance(key, str):
                raise SchemaError(
                    f"schema keys must be strings, got {key!r}",
                    where=self._where(location),
                    hint="Quote the key",
                )
            here = f"{location}.{key}"
            if key in DROPPED_KEYS:
                continue
            if key in SCHEMA_KEYS and key == "items" and isinstance(value, list):
                items = [self._inline(v, f"{here}[{i}]") for i, v in enumerate(value)]
                low = min([low, *(i.low for i in items)])
                children += sum(i.size for i in items)
                own += 1
                out["prefixItems"] = [i.schema for i in items]
            elif key in SCHEMA_KEYS and (isinstance(value, Mapping | bool)):
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
            elif key in SCHEMA_KEYS:
                raise SchemaError(
                    f"{key!r} must be a schema (an object), got {type(value).__name__}",
                    where=self._where(here),
                    hint="Write a schema object there",
                )
            elif key in SCHEMA_LIST_KEYS:
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
                if key in ("oneOf", "anyOf") and self.dialect in ("oas30", "oas31"):
                    chain = functools.partial(self._chain, location=here)
                    out[key] = discriminated(node.get("discriminator"), value, out[key], chain)
            elif key in SCHEMA_MAP_KEYS:
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
                names = isinstance(value, list) and all(isinstance(v, str) for v in value)
                if self.dialect == "jsonschema" and not names:  # no Swagger habit to excuse
                    raise SchemaError(
                        f"'required' must be a list of property names, got {value!r:.80}",
                        where=self._where(here),
                        hint='Write required as a list, such as ["name"]',
                    )
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
            elif key.startswith("x-") and not _kept_x(key, value):
                continue  # vendor extensions (but a unit): not JSON Schema, may hide $refs
            elif key == "pattern" and isinstance(value, str) and not compiles(value):
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
            out = merge_all_of(out)
        chosen = self._mapped(node, location)
        if chosen:  # the base of an allOf hierarchy: its discriminator picks the subschema
            out = {**out, "allOf": [*out.get("allOf", ()), *(c.schema for c in chosen)]}
            low = min([low, *(c.low for c in chosen)])
            children += sum(c.size for c in chosen)
        if self.dialect in ("oas2", "oas30") and (
            node.get("nullable") is True or node.get("x-nullable") is True
        ):
            out = nullable(out)
        return _Inlined(out, low, own + children)

    def _chain(self, pointer: str, *, location: str) -> list[str]:
        """The pointers ``pointer`` follows through pure ``{"$ref": ...}`` nodes."""
        return self.target(pointer, location=location)[0]

    def _mapped(self, node: Mapping[str, Any], location: str) -> list[_Inlined]:
        """``if`` the discriminator property holds a ``mapping`` value, ``then`` its schema,
        for a base schema with no ``oneOf`` / ``anyOf`` (:func:`discriminated` reads those)
        whose subschemas extend it with ``allOf`` (:mod:`~schemarouter.adapters._discriminator`).
        Each subschema's reference back to the base is cut as any recursive one is.

        None in the shared form: there nothing cuts that reference (a mapping is no ``$ref``,
        so no cycle is seen, and a ``$defs`` cycle would apply the base again to the same
        value), and inlining recursed without end (trial X3: a base mapping to 8 subschemas
        under a ``oneOf`` was refused as 'nested too deeply'). Such a base is checked by its
        own keywords, as before the mapping was read."""
        if self._sharing or self.dialect not in ("oas2", "oas30", "oas31"):
            return []
        if "oneOf" in node or "anyOf" in node:
            return []
        chosen = []
        told = node.get("discriminator")
        entries = mapped_refs(told) or subtype_refs(told, node, self.document)
        for prop, value, ref in entries:
            then = self._inline({"$ref": ref}, f"{location}.discriminator.mapping.{value}")
            chosen.append(_Inlined(when(prop, value, then.schema), then.low, then.size + 4))
        return chosen


#: Nesting an inlined schema may reach before the shared form is used instead (what
#: registration accepts, less room for the input schema that wraps a parameter).
_SHARED_DEPTH = MAX_SCHEMA_DEPTH - 10
