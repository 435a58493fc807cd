"""The keywords of the schemas :class:`~schemarouter.adapters._schema.SchemaResolver` reads:
which hold schemas (one, a list, a map), which are dropped, annotations, and which are copied
as they are."""

from __future__ import annotations

from typing import Literal

from schemarouter.adapters._repairs import NUMBER_KEYWORDS

#: ``oas2``: Swagger 2.0 schemas; ``oas30``: OpenAPI 3.0; ``oas31`` / ``jsonschema``:
#: JSON Schema proper (OpenAPI 3.1, MCP tools; draft-04 to 2020-12 keywords accepted).
Dialect = Literal["oas2", "oas30", "oas31", "jsonschema"]

SCHEMA_KEYS = frozenset(
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
SCHEMA_LIST_KEYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "dependentSchemas"})
DROPPED_KEYS = frozenset(
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
ANNOTATIONS = frozenset(
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
#: Keywords :meth:`SchemaResolver._inline_plain` copies as they are (no branch of it treats
#: them otherwise): most keywords of real schemas. The numeric bounds are the repairs' list,
#: less draft-04's boolean ``exclusiveMinimum`` / ``exclusiveMaximum`` (made numbers there).
PLAIN_KEYS = frozenset(
    {
        "description",
        "title",
        "default",
        "enum",
        "const",
        "format",
        "examples",
        "example",
        "uniqueItems",
        "readOnly",
        "writeOnly",
        "deprecated",
        "$comment",
    }
) | (NUMBER_KEYWORDS - {"exclusiveMinimum", "exclusiveMaximum"})
