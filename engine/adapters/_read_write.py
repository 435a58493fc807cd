"""``readOnly`` / ``writeOnly``: one schema, read one way in a request and another in a response.

OpenAPI documents share one component (``User``) between the request that creates a thing and
the response that returns it, and mark the properties that travel one way only: ``readOnly``
(the server sets it: an ``id``, a creation time) and ``writeOnly`` (only the client sends it: a
password). OpenAPI 3.0 (Schema Object, ``readOnly`` / ``writeOnly``): a read-only property
SHOULD NOT be sent in a request, and where it is ``required`` the requirement holds for the
response only; a write-only property SHOULD NOT be sent in a response, its requirement holding
for the request only. Swagger 2.0 has ``readOnly`` only; OpenAPI 3.1 keeps both (JSON Schema's
annotations, read the same way).

The schemas here are already inlined by :class:`~schemarouter.adapters._schema.SchemaResolver`,
which shares one inlined copy of a component between every use, so each use gets its own
reading (nothing is changed in place):

- :func:`request_schema`: a read-only property leaves ``properties`` and ``required``. It is
  left out rather than kept optional so that an agent is never offered a field the server
  ignores or refuses. The object names it under
  :data:`~schemarouter.safety.arguments.READ_ONLY_KEY` (tool definitions drop ``x-`` keys), and
  the gate refuses a value sent under that name, open object or closed, saying it is
  read-only, which is what the specification asks.
- :func:`response_schema`: a write-only property leaves ``required`` and stays in
  ``properties`` (a server that does return it is not wrong, and the output fields keep their
  names).

The reading reaches every nested object the instance holds: properties, array items, maps
(``additionalProperties``, ``patternProperties``), ``allOf`` / ``anyOf`` / ``oneOf`` members
(a name marked in one ``allOf`` member is not required by its siblings either) and the shared
definitions of the ``$defs`` form (:mod:`schemarouter.registry.defs`). ``not`` and ``if`` are
left as they are: relaxing a schema there would make the whole stricter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.registry.defs import DEFS_PREFIX
from schemarouter.safety.arguments import READ_ONLY_KEY

__all__ = ["request_schema", "response_schema"]

#: Keywords whose schema describes another instance (a property value, an item, a map value).
_NESTED = (
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
)
#: Keywords whose schemas describe the same instance (their ``required`` names its keys).
_SAME_LIST = ("allOf", "anyOf", "oneOf")
_SAME_ONE = ("then", "else")


def request_schema(schema: Any) -> Any:
    """``schema`` as a request body sends it: read-only properties neither required nor
    offered (see the module docstring)."""
    return _Reading("readOnly", drop=True, schema=schema).node(schema, frozenset())


def response_schema(schema: Any) -> Any:
    """``schema`` as a response carries it: write-only properties not required."""
    return _Reading("writeOnly", drop=False, schema=schema).node(schema, frozenset())


class _Reading:
    """One use of one schema: ``flag`` marks the properties that do not travel this way;
    ``drop`` removes them from ``properties`` too (else only from ``required``)."""

    def __init__(self, flag: str, *, drop: bool, schema: Any) -> None:
        self.flag = flag
        self.drop = drop
        defs = schema.get("$defs") if isinstance(schema, Mapping) else None
        self.defs: Mapping[str, Any] = defs if isinstance(defs, Mapping) else {}

    def _target(self, schema: Any) -> Any:
        """``schema``, or the shared definition it refers to (a few hops at most)."""
        for _ in range(8):
            ref = schema.get("$ref") if isinstance(schema, Mapping) else None
            if not (isinstance(ref, str) and ref.startswith(DEFS_PREFIX)):
                break
            if schema.get(self.flag) is True:
                return schema  # marked beside the reference
            schema = self.defs.get(ref[len(DEFS_PREFIX) :])
        return schema

    def flagged(self, schema: Any) -> bool:
        target = self._target(schema)
        return isinstance(target, Mapping) and target.get(self.flag) is True

    def marked(self, node: Mapping[str, Any]) -> set[str]:
        """The property names ``node`` (and its ``allOf`` members) mark with the flag."""
        names: set[str] = set()
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            names.update(n for n, sub in properties.items() if self.flagged(sub))
        members = node.get("allOf")
        for member in members if isinstance(members, list) else ():
            target = self._target(member)
            if isinstance(target, Mapping):
                names |= self.marked(target)
        return names

    def node(self, node: Any, inherited: frozenset[str]) -> Any:
        """``node`` read for this use (``node`` itself where nothing changes); ``inherited``:
        names marked by the schemas that describe the same instance around it (an ``allOf``
        sibling, the parent of an ``anyOf``)."""
        if not isinstance(node, Mapping):
            return node
        names = frozenset(inherited | self.marked(node))
        out: dict[str, Any] = {}
        required = node.get("required")
        if names and isinstance(required, list) and any(r in names for r in required):
            out["required"] = [r for r in required if r not in names]
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            kept = {
                name: self.node(sub, frozenset())
                for name, sub in properties.items()
                if not (self.drop and self.flagged(sub))
            }
            if len(kept) != len(properties) or any(kept[n] is not properties[n] for n in kept):
                out["properties"] = kept
            if len(kept) != len(properties):  # named, so that the gate refuses them
                out[READ_ONLY_KEY] = sorted(set(properties) - set(kept))
        for key in ("patternProperties", "$defs", "dependentSchemas"):
            value = node.get(key)
            if isinstance(value, Mapping):
                context = names if key == "dependentSchemas" else frozenset()
                read = {name: self.node(sub, context) for name, sub in value.items()}
                if any(read[n] is not value[n] for n in read):
                    out[key] = read
        for key in _NESTED:
            if key in node and (read := self.node(node[key], frozenset())) is not node[key]:
                out[key] = read
        for key in ("prefixItems", *_SAME_LIST):
            value = node.get(key)
            if isinstance(value, list):
                context = frozenset() if key == "prefixItems" else names
                listed = [self.node(sub, context) for sub in value]
                if any(a is not b for a, b in zip(listed, value, strict=True)):
                    out[key] = listed
        for key in _SAME_ONE:
            if key in node and (read := self.node(node[key], names)) is not node[key]:
                out[key] = read
        if not out:
            return node
        merged = {**node, **out}
        if merged.get("required") == []:
            del merged["required"]
        return merged
