"""Plain JSON helpers of the schema resolver: RFC 6901 pointers, sizes and the dialect
normalizations that do not need the document (``nullable``, mergeable ``allOf``, the union
of an operation's responses)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

__all__ = [
    "MISSING",
    "accepting",
    "as_object_schema",
    "compiles",
    "json_size",
    "lookup_pointer",
    "merge_all_of",
    "nested_past",
    "nullable",
    "pointer_location",
]

#: What :func:`lookup_pointer` returns for a pointer into nothing.
MISSING = object()
#: Keywords an ``allOf`` member may use and still be merged into its siblings.
_MERGEABLE = frozenset({"type", "properties", "required", "title", "description"})


def pointer_location(ref: str) -> str:
    """``#/paths/~1movie~1{id}/get`` -> ``paths./movie/{id}.get`` (the error location style)."""
    parts = [unescape(p) for p in ref.lstrip("#").split("/")[1:]]
    text = ""
    for part in parts:
        if part.isdigit() and text:
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "<document>"


def unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def lookup_pointer(document: Any, ref: str) -> Any:
    """RFC 6901 lookup of a ``#/...`` fragment; ``MISSING`` where it points at nothing."""
    node = document
    for raw in ref[1:].split("/")[1:] if ref != "#" else ():
        part = unescape(raw)
        if isinstance(node, Mapping):
            node = node.get(part, MISSING)
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0"):
            index = int(part)
            node = node[index] if index < len(node) else MISSING
        else:
            return MISSING
        if node is MISSING:
            return MISSING
    return node


def nested_past(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects and arrays deeper than ``limit`` (no recursion)."""
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > limit:
            return True
        if isinstance(node, Mapping):
            todo.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            todo.extend((v, depth + 1) for v in node)
    return False


def json_size(value: Any) -> int:
    """How many JSON nodes ``value`` holds (objects, arrays and scalars), counted without
    recursion."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return 1  # most values measured are plain (a description, a bound)
    count, todo = 0, [value]
    while todo:
        node = todo.pop()
        count += 1
        kind = type(node)
        if kind is dict or (kind is not list and isinstance(node, Mapping)):
            todo.extend(node.values())
        elif kind is list or isinstance(node, tuple | list):
            todo.extend(node)
    return count


def compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
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


def merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
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


def accepting(primary: dict[str, Any], others: list[Any]) -> dict[str, Any]:
    """The output schema of an OpenAPI operation whose first 2xx response declares
    ``primary`` and whose other 2xx responses declare ``others`` (as the reader's
    ``other_responses`` gives them): a body any of them documents validates. ``primary``
    itself where the others add nothing; ``null`` (an empty body) joins it where one
    declares no body; several schemas become an ``anyOf`` (their shared ``$defs`` at the
    root); ``{}`` where one declares a body of any shape."""
    alternatives = [primary]
    empty = False
    for other in others:
        if other is None:
            empty = True
        elif other is True:
            return {}
        elif (schema := as_object_schema(other)) not in alternatives:
            alternatives.append(schema)
    if len(alternatives) == 1 and not empty:
        return primary
    defs: dict[str, Any] = {}
    bodies: list[dict[str, Any]] = []
    for schema in alternatives:
        for name, value in (schema.get("$defs") or {}).items():
            if defs.setdefault(name, value) != value:
                return primary  # two definitions by one name: the first response's, as it was
        bodies.append({k: v for k, v in schema.items() if k != "$defs"})
    if not all(bodies):
        return {}
    if len(bodies) > 1:
        union: dict[str, Any] = {"anyOf": [*bodies, {"type": "null"}] if empty else bodies}
    else:
        union = nullable(bodies[0])
    return {**union, "$defs": defs} if defs else union
