"""What a model reads back from ``call_tool`` of a value a declared spec converted (user trial
U4): a lab instrument's service answers ``{"bulk_modulus": 97.8}`` in GPa, and its catalog
normalizes GPa to Pa. The answer's ``output`` held 97.8 (no unit) and its ``fields`` 9.78e10
Pa, with nothing saying the one is the other converted; the licence's URL was left out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.integrations.search import call_payload
from schemarouter.serve import Gateway

from servers.loopback import LoopbackServer, Request, Response, json_response

CATALOG = """
schemarouter_catalog: 1
providers:
  - id: lab
    display_name: Lab Instruments
    license: CC-BY-4.0
    license_url: https://creativecommons.org/licenses/by/4.0/
    source_type: experimental
    access:
      - id: rest
        kind: http
        base_url: BASE_URL
        endpoints:
          - id: measurement
            name: GET /samples/{sample_id}/measurement
            operation: {method: GET, path: "/samples/{sample_id}/measurement"}
            summary: Latest instrument measurement of a sample.
            parameters:
              - {name: sample_id, location: path, required: true, json_schema: {type: string}}
            output_fields:
              - name: bulk_modulus
                path: bulk_modulus
                json_schema: {type: number}
                semantic_id: mechanical.bulk_modulus
                unit: GPa
                normalization: {source_unit: GPa, canonical_unit: Pa, dimension: pressure,
                                scale: 1.0e9}
              - {name: temperature, path: temperature, json_schema: {type: number}, unit: K,
                 semantic_id: thermal.temperature}
"""


def _app(request: Request) -> Response:
    return json_response({"bulk_modulus": 97.8, "temperature": 300.0})


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Any]:
    with LoopbackServer(_app) as server:
        (tmp_path / "lab.yaml").write_text(CATALOG.replace("BASE_URL", server.base_url))
        with SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        ) as router:
            router.add_catalog(tmp_path / "lab.yaml")
            yield Gateway(router)


def test_a_converted_value_says_what_the_server_sent_and_in_which_unit(gateway: Any) -> None:
    result = gateway.call("lab__rest__measurement", {"sample_id": "S-12"})
    payload = call_payload(result, snapshot=gateway.router.snapshot())
    assert payload["output"] == {"bulk_modulus": 97.8, "temperature": 300.0}
    modulus = payload["fields"]["bulk_modulus"]
    assert (modulus["value"], modulus["unit"]) == (97800000000.0, "Pa")
    assert (modulus["raw_value"], modulus["source_unit"]) == (97.8, "GPa")
    assert modulus["license"] == "CC-BY-4.0"
    assert modulus["license_url"] == "https://creativecommons.org/licenses/by/4.0/"
    # a value in its declared unit, not converted, says nothing more
    temperature = payload["fields"]["temperature"]
    assert (temperature["value"], temperature["unit"]) == (300.0, "K")
    assert "raw_value" not in temperature and "source_unit" not in temperature
