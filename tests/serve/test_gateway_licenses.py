"""The licence and provenance the gateway says a tool's values carry (user trial U4): a
provider's catalog declares CC-BY-4.0 and literature data, while some of its routes' fields
declare their own (a non-commercial compilation, a proprietary handbook of measured values).
``describe_tool`` said CC-BY-4.0 and literature of every one of them, and nothing of the
fields' own licence, and the tool descriptions called the handbook's values literature data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway

FORMULA = (
    "{name: formula, location: query, required: true, json_schema: {type: string}, "
    "semantic_id: chemical.formula}"
)
CATALOG = f"""
schemarouter_catalog: 1
providers:
  - id: literature
    display_name: Literature Values
    license: CC-BY-4.0
    source_type: literature
    access:
      - id: rest
        kind: http
        base_url: http://127.0.0.1:9
        endpoints:
          - id: nc_band_gap
            name: GET /nc/band_gap
            operation: {{method: GET, path: /nc/band_gap}}
            summary: Band gap from a non-commercial compilation.
            parameters: [{FORMULA}]
            output_fields:
              - {{name: band_gap, path: band_gap, json_schema: {{type: number}}, unit: eV,
                  semantic_id: electronic.band_gap, license: CC-BY-NC-4.0}}
              - {{name: doi, path: doi, json_schema: {{type: string}}, identifier: true,
                  license: CC-BY-NC-4.0}}
          - id: mixed_band_gap
            name: GET /mixed/band_gap
            operation: {{method: GET, path: /mixed/band_gap}}
            summary: Band gap with its open citation.
            parameters: [{FORMULA}]
            output_fields:
              - {{name: band_gap, path: band_gap, json_schema: {{type: number}}, unit: eV,
                  semantic_id: electronic.band_gap, license: CC-BY-NC-4.0}}
              - {{name: doi, path: doi, json_schema: {{type: string}}, identifier: true}}
          - id: handbook_band_gap
            name: GET /handbook/band_gap
            operation: {{method: GET, path: /handbook/band_gap}}
            summary: Band gap from a proprietary handbook.
            parameters: [{FORMULA}]
            output_fields:
              - {{name: band_gap, path: band_gap, json_schema: {{type: number}}, unit: meV,
                  semantic_id: electronic.band_gap, license: LicenseRef-Proprietary,
                  source_type: experimental,
                  normalization: {{source_unit: meV, canonical_unit: eV, dimension: energy,
                                   scale: 0.001}}}}
"""


@pytest.fixture
def gateway(tmp_path: Path) -> Any:
    (tmp_path / "literature.yaml").write_text(CATALOG)
    with SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    ) as router:
        router.add_catalog(tmp_path / "literature.yaml")
        yield Gateway(router)


def test_describe_says_the_license_and_provenance_the_values_carry(gateway: Any) -> None:
    nc = gateway.describe("literature__rest__nc_band_gap")
    assert (nc["license"], nc["source_type"]) == ("CC-BY-NC-4.0", "literature")
    assert all("license" not in f for f in nc["returns"])  # every field's is the route's

    # fields that differ: the route keeps the provider's, each such field says its own
    mixed = gateway.describe("literature__rest__mixed_band_gap")
    assert mixed["license"] == "CC-BY-4.0"
    fields = {f["name"]: f for f in mixed["returns"]}
    assert fields["band_gap"]["license"] == "CC-BY-NC-4.0"
    assert "license" not in fields["doi"]

    handbook = gateway.describe("literature__rest__handbook_band_gap")
    assert (handbook["license"], handbook["source_type"]) == (
        "LicenseRef-Proprietary",
        "experimental",
    )
    (gap,) = handbook["returns"]
    assert (gap["unit"], gap["canonical_unit"]) == ("meV", "eV")  # a call answers in eV
    assert "experimental data" in handbook["description"]
    assert "literature data" not in handbook["description"]


def test_tool_descriptions_name_the_fields_own_provenance_and_licences(gateway: Any) -> None:
    """Trial U4 (low): an exported tool definition said nothing of the licence its values
    are under, so a model could not keep to the tools its host may use."""
    found = gateway.router.retrieve("band gap from a proprietary handbook", k=5)
    descriptions = {t["name"]: t["description"] for t in found.tools("anthropic")}
    assert (
        "(Literature Values, experimental data, LicenseRef-Proprietary)"
        in descriptions["literature__rest__handbook_band_gap"]
    )
    assert (
        "(Literature Values, literature data, CC-BY-NC-4.0)"
        in descriptions["literature__rest__nc_band_gap"]
    )
    mixed = {t["name"]: t["description"] for t in found.tools("openai")}
    assert "CC-BY-4.0 and CC-BY-NC-4.0)" in mixed["literature__rest__mixed_band_gap"]


def test_a_gateway_allowing_some_licences_neither_offers_nor_runs_the_others(
    tmp_path: Path,
) -> None:
    """Trial U4 (medium): the licence rule held for plans only; an agent behind the gateway
    was offered the non-commercial tool and could call it. ``allow.licenses`` in the config
    now bounds both ``search_tools`` and ``call_tool``."""
    from schemarouter.errors import PolicyError
    from schemarouter.serve.config import GatewayConfig

    (tmp_path / "literature.yaml").write_text(CATALOG)
    config = GatewayConfig.model_validate({"allow": {"licenses": ["CC-BY-4.0"]}})
    with SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    ) as router:
        router.add_catalog(tmp_path / "literature.yaml")
        gateway = Gateway(router, config)
        answer = gateway.search("band gap of a semiconductor", 5)
        assert answer["tools"] == []  # every tool has a value under another licence
        assert "3 matching tools are under licenses not allowed" in answer["blocked"]
        assert "not one the gateway config allows (allow.licenses)" in answer["blocked"]
        with pytest.raises(PolicyError, match="which this run does not allow"):
            gateway.call("literature__rest__nc_band_gap", {"formula": "Si"})
        open_gateway = Gateway(router)  # no licence rule: offered as before
        assert len(open_gateway.search("band gap of a semiconductor", 5)["tools"]) == 3


def test_describe_says_a_tool_under_a_licence_not_allowed_is_not_allowed(tmp_path: Path) -> None:
    """``describe_tool`` answered ``"allowed": true`` for a tool the config's allow.licenses
    keeps from running (every call of it refused)."""
    from schemarouter.serve.config import GatewayConfig

    (tmp_path / "literature.yaml").write_text(CATALOG)
    with SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    ) as router:
        router.add_catalog(tmp_path / "literature.yaml")
        strict = Gateway(
            router, GatewayConfig.model_validate({"allow": {"licenses": ["CC-BY-4.0"]}})
        )
        assert strict.describe("literature__rest__nc_band_gap")["allowed"] is False
        nc = Gateway(
            router, GatewayConfig.model_validate({"allow": {"licenses": ["CC BY-NC 4.0"]}})
        )
        assert nc.describe("literature__rest__nc_band_gap")["allowed"] is True
        assert Gateway(router).describe("literature__rest__nc_band_gap")["allowed"] is True


def test_search_tools_says_the_licence_each_tool_s_values_carry(gateway: Any) -> None:
    """Trial U4 (low): ``search_tools`` offered tools with no word of their licence; only
    ``describe_tool`` and a call's answer said it."""
    answer = gateway.search("band gap of a semiconductor", 5)
    licences = {tool["name"]: tool["license"] for tool in answer["tools"]}
    assert licences["literature__rest__nc_band_gap"] == "CC-BY-NC-4.0"
    assert licences["literature__rest__handbook_band_gap"] == "LicenseRef-Proprietary"
    assert (
        licences["literature__rest__mixed_band_gap"] == "CC-BY-4.0"
    )  # fields differ: the provider's
