"""What an exported tool definition says of the licences its values are under (trial Z1):
a route with a CC0-1.0 field and a field of no declared licence read "(Lic, CC0-1.0)", so
a model keeping to CC0 chose a tool whose call a host allowing CC0-1.0 refuses; and a
document declaring a 150-character ``x-license`` on each of 40 fields made a description
of 6,838 characters, past the 200 its own words may take."""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


def _document(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Lic", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/m": {
                "get": {
                    "operationId": "measure",
                    "summary": "Measure the samples",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }


def _description(properties: dict[str, Any]) -> str:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(properties), provider="lic")
    router.build_index()
    (tool,) = router.retrieve("measure the samples", k=1).tools("anthropic")
    return str(tool["description"])


def test_a_field_of_no_declared_licence_is_named_beside_the_others() -> None:
    described = _description(
        {"a": {"type": "number", "x-license": "CC0-1.0"}, "b": {"type": "number"}}
    )
    assert "(Lic, CC0-1.0 and no declared license)" in described


def test_a_documents_many_long_licences_keep_the_description_short() -> None:
    properties = {
        f"f{i}": {"type": "number", "x-license": f"LicenseRef-{i}-" + "x" * 150} for i in range(40)
    }
    described = _description(properties)
    assert "38 more licenses)" in described
    assert len(described) < 400
