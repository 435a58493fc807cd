"""Lenient ingestion: a fixed list of repairs that keep a document's meaning.

Real OpenAPI documents in use by others carry small mistakes that a strict reader refuses
whole (SR101 / SR102): booleans and numbers written as strings, ``additionalProperties`` as a
string, path parameters not marked required, a parameter declared twice. Each repair below
reads the value the way the author evidently meant it and records a warning
``"location: what"`` that travels with the registration (``Registration.warnings``); a
document registered with ``strict=True`` gets none of them and is refused as before.

The list, and nothing else:

=========================== ===================================================================
string booleans             ``"true"`` / ``"false"`` in a boolean keyword of a schema
                            (``nullable``, ``readOnly``, ``uniqueItems``, ...) or of a parameter,
                            request body or operation (``required``, ``deprecated``)
string numbers              ``"10"`` / ``"0.5"`` in a numeric keyword (``minimum``,
                            ``maxLength``, ``minItems``, ...)
``additionalProperties``    as a string: ``"true"`` / ``"false"`` a boolean, a type name
                            (``"string"``) that type, anything else ``true`` (any value)
untyped objects             ``type`` missing where ``properties`` say object: ``type: object``
path parameters             not marked required: required (a URL cannot omit a segment)
duplicate parameters        the same name and location declared twice in one list: the later
                            one is kept (as OpenAPI tools do), with a warning
serialization styles        a ``style`` or ``collectionFormat`` the parameter's location does
                            not take: the location's default (``_openapi_style``)
=========================== ===================================================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["BOOLEAN_KEYWORDS", "NUMBER_KEYWORDS", "read_flag", "repair_schema"]

#: Schema keywords whose value is a boolean (``exclusiveMinimum`` in its draft-04 form).
BOOLEAN_KEYWORDS = frozenset(
    {
        "nullable",
        "x-nullable",
        "readOnly",
        "writeOnly",
        "deprecated",
        "uniqueItems",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)
#: Schema keywords whose value is a number (the ``min``/``max`` counts are integers).
NUMBER_KEYWORDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    }
)
_SUBSCHEMA_KEYWORDS = ("additionalProperties", "additionalItems", "unevaluatedProperties")
_TYPE_NAMES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_COMBINATORS = ("allOf", "anyOf", "oneOf", "$ref", "not", "if")


def _number(text: str) -> int | float | None:
    text = text.strip()
    if not _NUMBER.match(text):
        return None
    value = float(text)
    return (
        int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
    )


def _boolean(text: str) -> bool | None:
    word = text.strip().lower()
    return {"true": True, "false": False}.get(word)


def repair_schema(node: Mapping[str, Any], location: str, notes: list[str]) -> Mapping[str, Any]:
    """``node`` (one schema object, not its sub-schemas) with the schema repairs applied,
    each appended to ``notes``; ``node`` itself where nothing needed repair."""
    fixed: dict[str, Any] | None = None

    def put(key: str, value: Any, what: str) -> None:
        nonlocal fixed
        fixed = dict(node) if fixed is None else fixed
        fixed[key] = value
        notes.append(f"{location}.{key}: {what}")

    for key, value in node.items():
        if not isinstance(value, str):
            continue
        flag = _boolean(value) if key in BOOLEAN_KEYWORDS else None
        number = _number(value) if key in NUMBER_KEYWORDS and flag is None else None
        if flag is not None:
            put(key, flag, f"the string {value!r} read as the boolean {str(flag).lower()}")
        elif number is not None:
            put(key, number, f"the string {value!r} read as the number {number}")
        elif key in _SUBSCHEMA_KEYWORDS:
            flag = _boolean(value)
            if flag is not None:
                put(key, flag, f"the string {value!r} read as the boolean {str(flag).lower()}")
            elif value.strip().lower() in _TYPE_NAMES:
                kind = value.strip().lower()
                put(key, {"type": kind}, f"the string {value!r} read as {{type: {kind}}}")
            else:
                put(key, True, f"the string {value!r} is no schema; read as true (any value)")
    if (
        isinstance(node.get("properties"), Mapping)
        and "type" not in node
        and not any(key in node for key in _COMBINATORS)
    ):
        fixed = dict(node) if fixed is None else fixed
        fixed["type"] = "object"
        notes.append(f"{location}: 'type' missing where 'properties' say object; read as object")
    return node if fixed is None else fixed


def read_flag(node: Mapping[str, Any], key: str, location: str, notes: list[str] | None) -> bool:
    """``node[key]`` as a boolean: ``True`` only for ``true``, and (``notes`` given: the
    lenient reading) for the string ``"true"``, which is recorded in ``notes``."""
    value = node.get(key)
    if value is True:
        return True
    if notes is not None and isinstance(value, str):
        flag = _boolean(value)
        if flag is not None:
            notes.append(
                f"{location}.{key}: the string {value!r} read as the boolean {str(flag).lower()}"
            )
            return flag
    return False
