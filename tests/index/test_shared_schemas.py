"""A restored endpoint's parameters and output fields hold the very dicts of its input and
output schema again (memory), and stay the same contract."""

from __future__ import annotations

from pathlib import Path

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
