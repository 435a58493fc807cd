"""A fast, conservative answer to "does this JSON Schema pass the 2020-12 metaschema?".

``jsonschema``'s ``Draft202012Validator.check_schema`` walks the metaschema through its
``$dynamicRef`` chain and costs about 3-6 ms for one tool's input schema on the reference
machine: 85% of compiling an MCP listing, and most of registering 10,000 tools (issue #26).
Most tool schemas use a handful of keywords with plain values; :func:`plainly_valid` says
``True`` only for a schema built from those keywords with values the metaschema accepts, and
``False`` for anything else, which then goes to ``jsonschema`` as before. So it never
accepts a schema the metaschema refuses (``tests/registry/test_metaschema.py`` checks that
against ``jsonschema`` on every tool schema of the shared data and on generated ones).

Keywords the metaschema does not name are annotations it lets through with any value; the
ones it does name and this module does not check (``pattern``, ``$ref``, ``$id``,
``dependentSchemas``, ...) send the schema to ``jsonschema``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["plainly_valid", "validity_core"]

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
#: Every keyword of the 2020-12 metaschema and its vocabularies (and the draft-07 names it
#: keeps: ``definitions``, ``dependencies``); a schema using one not checked below is left
#: to ``jsonschema``.
_METASCHEMA_KEYWORDS = frozenset(
    {
        "$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
        "$comment", "$defs", "definitions", "dependencies", "$recursiveRef",
        "$recursiveAnchor", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "dependentSchemas", "prefixItems", "items", "contains", "properties",
        "patternProperties", "additionalProperties", "propertyNames", "unevaluatedItems",
        "unevaluatedProperties", "type", "const", "enum", "multipleOf", "maximum",
        "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
        "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
        "minProperties", "required", "dependentRequired", "title", "description", "default",
        "deprecated", "readOnly", "writeOnly", "examples", "format", "contentEncoding",
        "contentMediaType", "contentSchema",
    }
)  # fmt: skip
_TEXT = frozenset({"title", "description", "$comment", "format"})
_FLAGS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_NUMBERS = frozenset({"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
_COUNTS = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"}
)
_ANYTHING = frozenset({"default", "const"})
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "propertyNames"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
_SCHEMA_MAPS = frozenset({"properties", "$defs"})


#: Keywords the metaschema checks only the type of (its meta-data vocabulary and
#: ``$comment``): a schema's validity does not otherwise depend on them.
_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default"}
    | {"deprecated", "readOnly", "writeOnly"}
)


def validity_core(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """``schema`` without its annotations and the keywords the metaschema does not know,
    where their values are certainly valid (checked here): what the metaschema still has to
    check, the same for every description and example a document gives it (so a check of it
    is remembered across them); ``None`` where this module cannot tell."""
    aside = {
        k: v
        for k, v in schema.items()
        if not isinstance(k, str) or k in _ANNOTATIONS or k not in _METASCHEMA_KEYWORDS
    }
    if not plainly_valid(aside):
        return None
    return {k: v for k, v in schema.items() if k not in aside}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def plainly_valid(schema: Any, *, _depth: int = 0) -> bool:
    """``True`` when ``schema`` certainly passes the 2020-12 metaschema; ``False`` when this
    module cannot tell (ask ``jsonschema``)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or _depth > 64:
        return False
    for key, value in schema.items():
        if not isinstance(key, str):
            return False
        if key not in _METASCHEMA_KEYWORDS:
            continue  # an annotation: any value passes
        if key in _TEXT:
            ok = isinstance(value, str)
        elif key == "type":
            ok = value in _TYPES if isinstance(value, str) else _type_list(value)
        elif key in _FLAGS:
            ok = isinstance(value, bool)
        elif key in _NUMBERS:
            ok = _number(value)
        elif key == "multipleOf":
            ok = _number(value) and value > 0
        elif key in _COUNTS:
            ok = _count(value)
        elif key in _ANYTHING:
            ok = True
        elif key in ("enum", "examples"):
            ok = isinstance(value, list)
        elif key == "required":
            ok = (
                isinstance(value, list)
                and all(isinstance(v, str) for v in value)
                and len(set(value)) == len(value)
            )
        elif key in _SUBSCHEMA:
            ok = plainly_valid(value, _depth=_depth + 1)
        elif key in _SCHEMA_LISTS:
            ok = (
                isinstance(value, list)
                and len(value) > 0
                and all(plainly_valid(v, _depth=_depth + 1) for v in value)
            )
        elif key in _SCHEMA_MAPS:
            ok = isinstance(value, Mapping) and all(
                isinstance(k, str) and plainly_valid(v, _depth=_depth + 1) for k, v in value.items()
            )
        else:
            ok = False  # a keyword checked only by jsonschema
        if not ok:
            return False
    return True


def _type_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(isinstance(v, str) and v in _TYPES for v in value)
        and len(set(value)) == len(value)
    )
