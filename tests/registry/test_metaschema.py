"""The fast metaschema answer never accepts what ``jsonschema`` refuses (issue #26)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from schemarouter.errors import SchemaError as RouterSchemaError
from schemarouter.registry.compile import check_json_schema
from schemarouter.registry.metaschema import plainly_valid

from ..helpers import shared_data_dir


def _jsonschema_ok(schema: Any) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strin"},
        {"type": []},
        {"type": ["string", "string"]},
        {"required": "a"},
        {"required": ["a", "a"]},
        {"minLength": -1},
        {"maxItems": True},
        {"multipleOf": 0},
        {"minimum": "1"},
        {"properties": {"a": {"type": 3}}},
        {"properties": []},
        {"items": [{"type": "string"}]},
        {"anyOf": []},
        {"description": 7},
        {"enum": "a"},
        {"deprecated": "yes"},
    ],
)
def test_invalid_schemas_are_never_plainly_valid(schema: dict[str, Any]) -> None:
    assert not _jsonschema_ok(schema)
    assert not plainly_valid(schema)
    with pytest.raises(RouterSchemaError, match="invalid JSON Schema"):
        check_json_schema(schema, where="test")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"q": {"type": "string", "description": "query"}}},
        {"type": ["string", "null"], "default": None, "x-vendor": {"anything": [1]}},
        {"type": "array", "items": {"enum": [1, "a", None]}, "minItems": 1},
        {"anyOf": [{"type": "integer", "minimum": 0}, True]},
    ],
)
def test_plain_tool_schemas_take_the_fast_path(schema: dict[str, Any]) -> None:
    assert plainly_valid(schema) and _jsonschema_ok(schema)


def test_keywords_it_does_not_check_go_to_jsonschema() -> None:
    assert not plainly_valid({"type": "string", "pattern": "("})  # jsonschema refuses it
    assert not plainly_valid({"$ref": "#/$defs/x", "$defs": {"x": {}}})
    with pytest.raises(RouterSchemaError):
        check_json_schema({"type": "string", "pattern": "("}, where="test")


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["string", "object", "strin", "", "a"]),
)
_KEYS = st.sampled_from(
    [
        "type",
        "description",
        "required",
        "minLength",
        "maximum",
        "multipleOf",
        "enum",
        "default",
        "items",
        "properties",
        "anyOf",
        "format",
        "uniqueItems",
        "x-extra",
        "pattern",
        "$defs",
    ]
)
_SCHEMAS = st.recursive(
    st.dictionaries(_KEYS, _LEAF, max_size=4),
    lambda inner: st.dictionaries(
        _KEYS,
        st.one_of(
            _LEAF,
            inner,
            st.lists(st.one_of(_LEAF, inner), max_size=3),
            st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
        ),
        max_size=4,
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(schema=_SCHEMAS)
def test_plainly_valid_implies_the_metaschema_accepts(schema: dict[str, Any]) -> None:
    if plainly_valid(schema):
        assert _jsonschema_ok(schema)


def _real_schemas(data: Path) -> list[Any]:
    out: list[Any] = []
    for server in json.loads((data / "mcp" / "livemcp_tools.json").read_text()):
        for listing in server.get("tools", {}).values():
            out += [t.get("inputSchema") or {} for t in listing["tools"]]
    for path in sorted((data / "tooltrain").glob("*.tools.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        out += [json.loads(line).get("parameters") or {} for line in lines[::10]]
    return [s for s in out if isinstance(s, dict)]


@pytest.mark.slow
def test_real_tool_schemas_agree_with_jsonschema() -> None:
    data = shared_data_dir()
    if data is None:
        pytest.skip("no shared data")
    schemas = _real_schemas(data)
    fast = [s for s in schemas if plainly_valid(s)]
    assert len(fast) > 0.8 * len(schemas)  # most real tool schemas are plain
    assert all(_jsonschema_ok(s) for s in fast)


@pytest.mark.parametrize(
    ("schema", "refused"),
    [
        ({"type": "string", "pattern": "^a$", "description": "fine"}, False),
        ({"type": "string", "pattern": "^a$", "description": 5}, True),  # an annotation's type
        ({"type": "string", "pattern": "^a$", "examples": "not a list"}, True),
        ({"type": "string", "pattern": "^a$", "readOnly": "yes"}, True),
        ({"type": "strong", "pattern": "^a$", "description": "fine"}, True),
        ({"type": "string", "pattern": "(", "description": "fine"}, True),  # no regex
        ({"type": "string", "pattern": "^a$", "x-note": {"type": "strong"}}, False),  # unknown
    ],
)
def test_a_schemas_annotations_are_checked_aside_and_the_rest_once(
    schema: dict[str, Any], refused: bool
) -> None:
    """Registration spent most of its time in the metaschema check of schemas that differ
    only by their descriptions (124 public documents: 10,372 checks of 3,161 shapes). The
    annotations are checked here and the rest once per shape: nothing it refused passes."""
    from schemarouter.errors import SchemaError
    from schemarouter.registry.compile import check_json_schema
    from schemarouter.registry.metaschema import validity_core

    if refused:
        with pytest.raises(SchemaError):
            check_json_schema(dict(schema), where="t")
    else:
        check_json_schema(dict(schema), where="t")
    core = validity_core(schema)
    assert core is None or not (set(core) & {"description", "examples", "readOnly", "x-note"})
