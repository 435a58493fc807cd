"""A restored endpoint's parameters and output fields hold the very dicts of its input and
output schema again (memory), and stay the same contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index.shared_schemas import shared


def test_restored_schemas_are_shared_and_the_contract_is_unchanged(
    shared_data: Path, tmp_path: Path
) -> None:
    from schemarouter.registry.catalog import load_catalog

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(shared_data / "openapi-permissive" / "amazonaws.com__acm__2015-12-08.json")
    # read back from JSON, as a restore reads it: each schema a copy of its own
    restored = load_catalog([router.export_catalog(tmp_path / "acm.json")]).routes
    assert restored
    found = 0
    for route in restored:
        endpoint = shared(route.endpoint)
        assert endpoint == route.endpoint
        assert endpoint.content_fingerprint() == route.endpoint.content_fingerprint()
        for parameter in endpoint.parameters:
            assert parameter.json_schema is endpoint.input_schema["properties"][parameter.name]
            found += 1
        if endpoint.output_schema is not None:
            fields = [f for f in endpoint.output_fields if "." not in (f.path or "")]
            for item in fields:
                if item.path:
                    same = endpoint.output_schema["properties"][item.path]
                    assert item.json_schema is same
                    found += 1
    assert found > 10


def _strings(node: Any, key: str) -> list[str]:
    """Every string value of ``key`` in the JSON-like ``node``."""
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k == key and isinstance(v, str)]
        return found + [s for v in node.values() for s in _strings(v, key)]
    if isinstance(node, list | tuple):
        return [s for v in node for s in _strings(v, key)]
    return []


def test_a_restore_holds_one_object_for_a_short_string_its_schemas_repeat(
    shared_data: Path,
) -> None:
    from schemarouter.index.saved_registry import registration_of, registry_file

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(shared_data / "openapi-permissive" / "amazonaws.com__acm__2015-12-08.json")
    saved = registry_file(router.snapshot())
    assert saved is not None
    routes = registration_of(saved, source="saved")[0].routes
    types = [s for r in routes for s in _strings(r.endpoint.input_schema, "type")]
    strings = [s for s in types if s == "string"]
    # read as its own object at each place, 33,376 OpenAPI routes held 0.4 GiB more
    assert len(strings) > 20
    assert len({id(s) for s in strings}) <= 2


def test_a_restore_holds_one_object_for_a_long_string_its_routes_repeat(
    shared_data: Path,
) -> None:
    from schemarouter.index.saved_registry import registration_of, registry_file

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(shared_data / "openapi-permissive" / "amazonaws.com__acm__2015-12-08.json")
    saved = registry_file(router.snapshot())
    assert saved is not None
    routes = registration_of(saved, source="saved")[0].routes
    assert len(routes) > 5
    # a description the schemas repeat: one object (each was its own, 90 MiB at 33,376 routes)
    repeated = [s for r in routes for s in _strings(r.endpoint.input_schema, "description")]
    long = [s for s in repeated if len(s) > 64 and repeated.count(s) > 1]
    assert long
    assert len({id(s) for s in long}) == len(set(long))


def _nested(node: Any) -> list[Any]:
    """Every dict and list inside the JSON-like ``node`` (not ``node`` itself)."""
    values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    inner = [v for v in values if isinstance(v, dict | list)]
    return inner + [n for v in inner for n in _nested(v)]


def test_a_restore_holds_one_object_for_a_schema_a_document_repeats(shared_data: Path) -> None:
    from schemarouter.index.saved_registry import registration_of, registry_file

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(shared_data / "openapi-permissive" / "amazonaws.com__acm__2015-12-08.json")
    saved = registry_file(router.snapshot())
    assert saved is not None
    routes = registration_of(saved, source="saved")[0].routes
    groups: dict[str, list[int]] = {}
    for route in routes:
        for schema in (route.endpoint.input_schema, route.endpoint.output_schema or {}):
            for node in _nested(schema):
                groups.setdefault(json.dumps(node), []).append(id(node))
    # the schemas a document reuses (its $refs, {"type": "string"}): one object each
    assert sum(len(ids) for ids in groups.values()) > len(groups)
    assert all(len(set(ids)) == 1 for ids in groups.values())


def test_sharing_keeps_the_json_equal() -> None:
    from schemarouter.index.shared_schemas import shared_json

    text = "a description longer than sixty-four characters, repeated in two places"
    node = {
        "a": [text, 1, 2.5, None, True, {"b": "".join(text)}],
        "c": "".join(text),
        "d": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 1.0}],
        "e": [{"type": "integer", "minimum": True}, {"type": "integer", "minimum": 1}],
    }
    strings: dict[str, str] = {}
    expected = json.loads(json.dumps(node))
    assert shared_json(node, strings) is node
    assert shared_json(7, strings) == 7  # not a container: nothing to do
    assert node == expected
    assert node["c"] is node["a"][5]["b"] is node["a"][0]  # type: ignore[index]
    # 1, 1.0 and True are equal in Python, not in JSON: only the same JSON is shared
    assert node["d"][0] is node["e"][1]  # type: ignore[index]
    assert node["d"][0] is not node["d"][1] and node["e"][0] is not node["e"][1]  # type: ignore[index]
    assert [type(v["minimum"]) for v in (*node["d"], *node["e"])] == [int, float, bool, int]  # type: ignore[union-attr]
