"""Registration's fast paths give exactly what the general code gives (issue #26).

Each fast path answers for the common case and hands anything else to the general code:
``json_problem``'s clean-value pass, ``to_json_value``'s plain copy, the ``$ref`` test on a
schema's canonical JSON, ``json_size`` of a scalar. Here each is compared with the general
code on generated values built to hit every branch (non-finite floats, lone surrogates,
nesting past the limit, tuples, non-string keys, ``$ref`` inside strings).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemarouter.adapters._json import json_size
from schemarouter.errors import DocumentError
from schemarouter.fingerprint import canonical_json
from schemarouter.registry.bounds import _walk, json_problem
from schemarouter.registry.compile import _local_refs, _may_refer
from schemarouter.registry.parsing import _convert, to_json_value

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "a\udfffb", "é", '"$ref":', "$ref", "#/a"]),
)
_KEYS = st.one_of(
    st.text(max_size=4),
    st.sampled_from(["$ref", "\ud800", "type", "properties"]),
    st.integers(0, 3),
)


def _values(keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        _SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(keys, inner, max_size=4),
            st.dictionaries(keys, inner, max_size=3).map(OrderedDict),
        ),
        max_leaves=40,
    )


def _deep(levels: int, leaf: Any) -> Any:
    value = leaf
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


@settings(max_examples=400, deadline=None)
@given(
    _values(_KEYS),
    st.integers(1, 8),
    st.one_of(st.none(), st.integers(1, 30)),
    st.booleans(),
    st.booleans(),
)
def test_json_problem_is_the_walk(
    value: Any, max_depth: int, max_nodes: int | None, finite: bool, unicode: bool
) -> None:
    kwargs = {"max_depth": max_depth, "max_nodes": max_nodes, "finite": finite, "unicode": unicode}
    assert json_problem(value, **kwargs) == _walk(value, max_depth, max_nodes, finite, unicode)


@pytest.mark.parametrize(
    "value",
    [
        _deep(5, 1),
        _deep(6, 1),
        _deep(5, float("nan")),
        {"a": [1, {"b": math.inf}], "c": _deep(9, "x")},
        {"\ud800": 1},
        ["ok", ("é", "\udc00")],
        {"a": {"b": {}}},
    ],
)
def test_json_problem_is_the_walk_at_the_edges(value: Any) -> None:
    for unicode in (False, True):
        for max_nodes in (None, 3, 100):
            got = json_problem(value, max_depth=5, max_nodes=max_nodes, unicode=unicode)
            assert got == _walk(value, 5, max_nodes, True, unicode)


def _outcome(fn: Any, value: Any) -> Any:
    try:
        return ("value", fn(value))
    except DocumentError as exc:
        return ("error", str(exc))


@settings(max_examples=400, deadline=None)
@given(_values(_KEYS))
def test_to_json_value_is_the_general_conversion(value: Any) -> None:
    """The plain copy equals the general conversion, and so does every error (check_shape
    runs first for both)."""

    def general(node: Any) -> Any:
        from schemarouter.registry.parsing import MAX_DOCUMENT_NODES, check_shape

        check_shape(node, where="doc", max_nodes=MAX_DOCUMENT_NODES)
        return _convert(node, "doc")

    got = _outcome(lambda v: to_json_value(v, "doc"), value)
    assert got == _outcome(general, value)
    if got[0] == "value":
        assert type(got[1]) is type(general(value))


@settings(max_examples=400, deadline=None)
@given(_values(st.sampled_from(["$ref", "a", "$defs", "b"])))
def test_a_schema_whose_canonical_json_has_no_ref_key_has_no_ref(schema: Any) -> None:
    try:
        text = canonical_json(schema)
    except (TypeError, ValueError):
        return
    if not _may_refer(text):
        assert not list(_local_refs(schema, ""))
        assert not _has_ref_key(schema)


def _has_ref_key(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref_key(v) for v in node.values())
    if isinstance(node, list | tuple):
        return any(_has_ref_key(v) for v in node)
    return False


def _size(value: Any) -> int:
    if isinstance(value, dict | OrderedDict):
        return 1 + sum(_size(v) for v in value.values())
    if isinstance(value, list | tuple):
        return 1 + sum(_size(v) for v in value)
    return 1


@settings(max_examples=300, deadline=None)
@given(_values(_KEYS))
def test_json_size_counts_every_node(value: Any) -> None:
    assert json_size(value) == _size(value)


def test_default_availability_and_auth_are_one_frozen_object() -> None:
    """Endpoints that declare no availability (access paths no auth) share one frozen
    default object: equal to a fresh one, not counted as set, and immutable."""
    from pydantic import ValidationError

    from schemarouter.contracts import (
        AccessPath,
        AuthRequirement,
        Availability,
        Endpoint,
        Operation,
    )

    first = Endpoint(id="a", name="a", operation=Operation(tool="a"))
    second = Endpoint(id="b", name="b", operation=Operation(tool="b"))
    assert first.availability is second.availability
    assert first.availability == Availability()
    assert "availability" not in first.model_fields_set
    with pytest.raises(ValidationError):
        first.availability.status = "unavailable"  # type: ignore[misc]
    own = Endpoint(id="c", name="c", operation=Operation(tool="c"), availability=Availability())
    assert own.availability is not first.availability
    assert own == first.model_copy(update={"id": "c", "name": "c", "operation": own.operation})
    one, two = AccessPath(id="m", kind="mcp"), AccessPath(id="n", kind="mcp")
    assert one.auth is two.auth
    assert one.auth == AuthRequirement()
    assert "auth" not in one.model_fields_set
