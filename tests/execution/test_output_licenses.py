"""The licence of an output no field of which is typed (user trial U4): a vendor's OpenAPI
document declares ``info.license`` Proprietary and a response with no ``x-unit`` or
``x-semantic-id``. ``router.call`` returned its output with ``fields == {}``, and neither the
result, an executed plan's step nor the MCP gateway's ``call_tool`` answer named the licence
or source type anywhere; a route whose fields declare licences of their own named only those
of the typed values."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.integrations.search import call_payload

from servers.loopback import LoopbackServer, Request, Response, json_response

VENDOR: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Vendor Sensors", "version": "1", "license": {"name": "Proprietary"}},
    "paths": {
        "/v1/reading": {
            "get": {
                "operationId": "getReading",
                "summary": "Current reading of the vendor's process sensor",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"pressure": {"type": "number"}},
                                }
                            }
                        },
                    }
                },
            }
        }
    },
}

LITERATURE = """
schemarouter_catalog: 1
providers:
  - id: literature
    display_name: Literature Values
    license: CC-BY-4.0
    source_type: literature
    access:
      - id: rest
        kind: http
        base_url: BASE_URL
        endpoints:
          - id: band_gap
            name: GET /band_gap
            operation: {method: GET, path: /band_gap}
            summary: Band gap from a non-commercial compilation, with its open citation.
            output_fields:
              - {name: band_gap, path: band_gap, json_schema: {type: number},
                 license: CC-BY-NC-4.0, source_type: experimental}
              - {name: doi, path: doi, json_schema: {type: string}}
"""


def _app(request: Request) -> Response:
    if request.path == "/band_gap":
        return json_response({"band_gap": 1.11, "doi": "10.1000/nc.1"})
    return json_response({"pressure": 1013.25})


@pytest.fixture
def router(tmp_path: Path) -> Iterator[Any]:
    with LoopbackServer(_app) as server:
        (tmp_path / "literature.yaml").write_text(LITERATURE.replace("BASE_URL", server.base_url))
        with SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        ) as router:
            router.add_openapi(VENDOR, provider="vendor", base_url=server.base_url)
            router.add_catalog(tmp_path / "literature.yaml")
            yield router


def test_an_untyped_output_carries_its_routes_license(router: Any) -> None:
    result = router.call("vendor/rest/get_reading", {})
    assert result.output == {"pressure": 1013.25} and result.fields == {}
    assert (result.licenses, result.source_types) == (("Proprietary",), ("unknown",))
    payload = call_payload(result)
    assert (payload["licenses"], payload["source_types"]) == (["Proprietary"], ["unknown"])

    plan = router.plan("vendor sensors current process reading")
    assert plan.route_ids == ("vendor/rest/get_reading",) and plan.steps[0].whole_output
    (step,) = router.execute(plan).steps
    assert step.output == {"pressure": 1013.25}
    assert (step.licenses, step.source_types) == (("Proprietary",), ("unknown",))


def test_an_output_under_several_licenses_names_each(router: Any) -> None:
    result = router.call("literature/rest/band_gap", {})
    assert result.fields == {}  # neither field is typed: the output is all there is
    assert result.licenses == ("CC-BY-NC-4.0", "CC-BY-4.0")
    assert result.source_types == ("experimental", "literature")
