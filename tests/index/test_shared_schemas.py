"""A restored endpoint's parameters and output fields hold the very dicts of its input and
output schema again (memory), and stay the same contract."""

from __future__ import annotations

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


def test_sharing_strings_keeps_the_json_equal() -> None:
    from schemarouter.index.shared_schemas import share_strings

    text = "a description longer than sixty-four characters, repeated in two places"
    node = {"a": [text, 1, 2.5, None, True, {"b": "".join(text)}], "c": "".join(text)}
    strings: dict[str, str] = {}
    share_strings(node, strings)
    share_strings(7, strings)  # not a container: nothing to do
    assert node == {"a": [text, 1, 2.5, None, True, {"b": text}], "c": text}
    assert node["c"] is node["a"][5]["b"] is node["a"][0]  # type: ignore[index]
