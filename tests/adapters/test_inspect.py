"""inspect(): human docs -> proposal (grounded, deterministic); approve() is the only way in."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schemarouter import SchemaRouter
from schemarouter.adapters.inspect import ContractProposal, approve, inspect
from schemarouter.contracts import Effect
from schemarouter.errors import DocumentError, PolicyError

HTML_DOC = """<!DOCTYPE html>
<html><head><title>AlloyDB API</title><style>body {color: red}</style>
<script>var GET = "/not/an/endpoint";</script></head>
<body>
<h1>AlloyDB REST API</h1>
<p>Base URL: <code>https://api.alloydb.example.org/v2</code></p>
<h2>GET /alloys/{alloy_id}</h2>
<p>Returns one alloy with its measured properties.</p>
<h3>Parameters</h3>
<table>
  <tr><th>Name</th><th>Type</th><th>Required</th><th>Description</th></tr>
  <tr><td>alloy_id</td><td>string</td><td>yes</td><td>The alloy identifier, e.g. AL-7075.</td></tr>
  <tr><td>temperature</td><td>number</td><td>no</td><td>Test temperature in K.</td></tr>
</table>
<h3>Response</h3>
<ul>
  <li>yield_strength (number, unit: MPa): 0.2% offset yield strength.</li>
  <li>density (number, unit: g/cm^3): Mass density.</li>
</ul>
<p>Example:</p>
<pre>{"alloy_id": "AL-7075", "yield_strength": 503, "density": 2.81,
 "elements": [{"symbol": "Zn", "fraction": 0.056}]}</pre>
<h2>DELETE /alloys/{alloy_id}</h2>
<p>Removes an alloy record (admin only).</p>
</body></html>
"""

MARKDOWN_DOC = """# Band gap service

Base URL: https://bandgaps.example.com/api

## GET /materials/search

Search materials by formula.

Parameters:

- formula (string, required): Reduced chemical formula such as `SiO2`.
- limit (integer): Maximum results.
- `functional` (string): PBE or HSE.

Example request: `https://bandgaps.example.com/api/materials/search?formula=Si&page=2`

Response fields:

- band_gap (number): Electronic band gap, unit: eV
- formula (string): Reduced formula.

```json
{"results": [{"material_id": "bg-1", "band_gap": 1.12, "formula": "Si", "tags": ["semiconductor"]}], "count": 1}
```

## POST /materials

Create a material entry.

- formula (string, required): the formula.

## GET /materials/:material_id

One material.
"""


def _router() -> SchemaRouter:
    return SchemaRouter(abstention=None, embedding_cache=None)


def test_html_proposal_is_grounded() -> None:
    proposal = inspect(HTML_DOC)
    assert proposal.base_url == "https://api.alloydb.example.org/v2"
    assert "Base URL" in proposal.base_url_passage
    assert [(e.method, e.path) for e in proposal.endpoints] == [
        ("GET", "/alloys/{alloy_id}"),
        ("DELETE", "/alloys/{alloy_id}"),
    ]
    get = proposal.endpoints[0]
    assert get.summary.startswith("Returns one alloy")
    params = {p.name: p for p in get.parameters}
    assert params["alloy_id"].location == "path" and params["alloy_id"].required
    assert params["temperature"].json_type == "number" and not params["temperature"].required
    assert "Test temperature" in params["temperature"].passage
    fields = {f.name: f for f in get.fields}
    assert fields["yield_strength"].unit == "MPa" and fields["yield_strength"].json_type == "number"
    assert fields["density"].unit == "g/cm^3"
    assert fields["elements.symbol"].path == "elements.*.symbol"
    assert fields["elements.symbol"].json_type == "string"
    for item in (*get.parameters, *get.fields, get):
        assert 0.0 <= item.grounding <= 1.0 and item.passage
    assert fields["yield_strength"].grounding > fields["elements.symbol"].grounding
    assert get.effect is Effect.READ and proposal.endpoints[1].effect is Effect.DESTRUCTIVE


def test_markdown_proposal() -> None:
    proposal = inspect(MARKDOWN_DOC)
    assert proposal.base_url == "https://bandgaps.example.com/api"
    search, create, one = proposal.endpoints
    assert (search.method, search.path) == ("GET", "/materials/search")
    params = {p.name: p for p in search.parameters}
    assert params["formula"].required and params["formula"].json_type == "string"
    assert params["limit"].json_type == "integer"
    assert "functional" in params
    assert params["page"].grounding == 0.5 and "?formula=Si" in params["page"].passage
    assert params["formula"].grounding == 0.9
    fields = {f.name: f for f in search.fields}
    assert fields["band_gap"].unit == "eV"
    assert fields["results.band_gap"].path == "results.*.band_gap"
    assert fields["results.tags"].json_type == "array"
    assert fields["count"].json_type == "integer"
    assert create.effect is Effect.WRITE
    assert one.path == "/materials/{material_id}"
    assert one.parameters[0].location == "path"


def test_inspect_is_deterministic_and_inert() -> None:
    a, b = inspect(MARKDOWN_DOC), inspect(MARKDOWN_DOC)
    assert a == b and a.model_dump() == b.model_dump()
    assert isinstance(a, ContractProposal)
    with pytest.raises(ValidationError):  # frozen: a proposal is data, it cannot be altered
        a.base_url = "https://evil.example"  # type: ignore[misc]
    router = _router()
    version = router.snapshot().version
    proposal = router.inspect(MARKDOWN_DOC)  # the router's own entry point
    assert proposal == a
    assert len(router.snapshot()) == 0 and router.snapshot().version == version


def test_approve_registers_read_only_and_binds() -> None:
    router = _router()
    proposal = inspect(MARKDOWN_DOC)
    change = approve(
        router, proposal, base_url="https://bandgaps.example.com/api", provider="bandgaps"
    )
    assert set(change.added) == {
        "bandgaps/docs/get_materials_search",
        "bandgaps/docs/get_materials_material_id",
    }
    route = router.snapshot().route("bandgaps/docs/get_materials_search")
    assert route.endpoint.field("band_gap").unit == "eV"
    assert route.endpoint.parameter("formula").required
    assert route.access.base_url == "https://bandgaps.example.com/api"
    assert all(router.is_bound(r) for r in change.added)


def test_approve_writes_only_with_permission() -> None:
    router = _router()
    proposal = inspect(HTML_DOC)
    change = approve(
        router, proposal, base_url="https://api.alloydb.example.org/v2", provider="alloydb"
    )
    assert change.added == ("alloydb/docs/get_alloys_alloy_id",)
    change = approve(
        router,
        proposal,
        base_url="https://api.alloydb.example.org/v2",
        provider="alloydb",
        allow_write=True,
        replace=True,
    )
    route = router.snapshot().route("alloydb/docs/delete_alloys_alloy_id")
    assert route.endpoint.effect is Effect.DESTRUCTIVE
    only_writes = ContractProposal(endpoints=(proposal.endpoints[1],))
    with pytest.raises(PolicyError):
        approve(_router(), only_writes, base_url="https://x.example", provider="x")


def test_bad_inputs() -> None:
    with pytest.raises(DocumentError):
        inspect(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(DocumentError):
        approve(_router(), {"endpoints": []}, base_url="https://x.example", provider="x")  # type: ignore[arg-type]
    assert inspect("no endpoints here at all").endpoints == ()
