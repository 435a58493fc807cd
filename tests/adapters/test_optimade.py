"""OPTIMADE adapter: recorded /info payloads (MockTransport) and the real property folder."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx
import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.optimade import add_optimade, optimade_registration
from schemarouter.contracts import ParameterLocation, SourceType
from schemarouter.errors import DocumentError, SchemaRouterError

BASE = "https://optimade.example.org/v1"

INFO = {
    "data": {
        "type": "info",
        "id": "/",
        "attributes": {
            "api_version": "1.2.0",
            "available_api_versions": [{"url": BASE, "version": "1.2.0"}],
            "formats": ["json"],
            "available_endpoints": ["info", "structures"],
            "entry_types_by_format": {"json": ["structures"]},
            "is_index": False,
            "license": {"href": "https://creativecommons.org/licenses/by/4.0/"},
            "available_licenses": ["CC-BY-4.0"],
        },
    },
    "meta": {
        "api_version": "1.2.0",
        "provider": {
            "name": "Example Materials DB",
            "description": "DFT structures.",
            "prefix": "exmpl",
            "homepage": "https://example.org",
        },
    },
}

STRUCTURES = {
    "data": {
        "description": "a structure",
        "properties": {
            "id": {"description": "Entry id", "type": "string", "sortable": True},
            "chemical_formula_reduced": {"description": "Reduced formula", "type": "string"},
            "nsites": {"description": "Number of sites", "type": "integer", "sortable": True},
            "lattice_vectors": {"description": "Cell", "type": "list", "unit": "Å"},
            "_exmpl_volume": {
                "description": "Cell volume",
                "x-optimade-type": "float",
                "unit": "Å^3",
            },
            "_exmpl_band_gap": {
                "description": "Band gap",
                "x-optimade-type": "float",
                "unit": "eV",
            },
            "_exmpl_weird": {"description": "Odd unit", "type": "float", "unit": "bogons/frob"},
            "last_modified": {"description": "Changed", "type": "timestamp"},
        },
        "formats": ["json"],
        "output_fields_by_format": {"json": ["id", "nsites"]},
    },
    "meta": {"api_version": "1.2.0"},
}


def _client(info: dict = INFO, structures: dict = STRUCTURES) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/v1/info"):
            return httpx.Response(200, json=info)
        if path.endswith("/v1/info/structures"):
            return httpx.Response(200, json=structures)
        return httpx.Response(404, json={"errors": []})

    return httpx.Client(transport=httpx.MockTransport(handler))


def _route(registration, endpoint_id):
    return next(r for r in registration.routes if r.endpoint.id == endpoint_id)


def test_from_url_fields_units_parameters_license() -> None:
    with _client() as client:
        registration = optimade_registration(BASE, provider="exmpl", client=client)
    assert [r.route_id for r in registration.routes] == [
        "exmpl/optimade/get_structure",
        "exmpl/optimade/list_structures",
    ]
    route = _route(registration, "list_structures")
    assert route.access.base_url == BASE
    assert route.endpoint.operation.path == "/structures"
    fields = {f.name: f for f in route.endpoint.output_fields}
    assert fields["id"].path == "data.*.id" and fields["id"].identifier
    assert fields["nsites"].path == "data.*.attributes.nsites"
    assert fields["nsites"].json_schema["type"] == "integer"
    assert fields["lattice_vectors"].unit == "Å" and fields["lattice_vectors"].dimension == "length"
    assert fields["_exmpl_volume"].unit == "Å^3" and fields["_exmpl_volume"].dimension == "volume"
    assert fields["_exmpl_band_gap"].dimension == "energy"
    assert (
        fields["_exmpl_weird"].unit is None and "bogons/frob" in fields["_exmpl_weird"].description
    )
    # and the registration says so, once (a user trial found it only in a log line)
    (weird,) = [w for w in registration.warnings if "_exmpl_weird" in w]
    assert "unit 'bogons/frob' is unknown; the field carries no unit" in weird
    assert fields["last_modified"].json_schema == {"type": "string", "format": "date-time"}
    assert fields["chemical_formula_reduced"].semantic_id == "chemical.formula"
    params = {p.name: p for p in route.endpoint.parameters}
    assert set(params) == {
        "filter",
        "sort",
        "page_limit",
        "page_offset",
        "response_fields",
        "response_format",
    }
    assert params["page_limit"].json_schema["type"] == "integer"
    assert params["filter"].location is ParameterLocation.QUERY
    one = _route(registration, "get_structure")
    assert one.endpoint.parameter("entry_id").required
    assert one.endpoint.field("nsites").path == "data.attributes.nsites"
    provider = registration.providers[0]
    assert provider.license == "CC-BY-4.0"
    assert provider.license_url == "https://creativecommons.org/licenses/by/4.0/"
    assert provider.display_name == "Example Materials DB"
    assert provider.source_type is SourceType.CALCULATED


def test_recorded_payloads_and_license_default() -> None:
    info = copy.deepcopy(INFO)
    del info["data"]["attributes"]["available_licenses"]
    del info["data"]["attributes"]["license"]
    registration = optimade_registration(
        {"info": info, "info/structures": STRUCTURES}, provider="exmpl", source_type="experimental"
    )
    assert registration.providers[0].license == "unknown"
    assert registration.providers[0].source_type is SourceType.EXPERIMENTAL
    # the base URL comes from available_api_versions
    assert registration.routes[0].access.base_url == BASE
    # same payloads, same fingerprints
    again = optimade_registration(
        {"info": info, "info/structures": STRUCTURES}, provider="exmpl", source_type="experimental"
    )
    assert [r.fingerprint for r in again.routes] == [r.fingerprint for r in registration.routes]


def test_add_optimade_registers_and_binds() -> None:
    router = SchemaRouter(abstention=None, embedding_cache=None)
    with _client() as client:
        change = add_optimade(router, BASE, provider="exmpl", client=client)
    assert len(change.added) == 2
    assert all(router.is_bound(r) for r in change.added)


@pytest.mark.parametrize(
    "payloads",
    [
        {"info": INFO},
        {"info": [], "info/structures": STRUCTURES},
        {"info": {"data": []}, "info/structures": STRUCTURES},
        {"info": INFO, "info/structures": {"data": {"properties": []}}},
    ],
)
def test_malformed_payloads_are_located_errors(payloads) -> None:
    with pytest.raises(DocumentError) as info:
        optimade_registration(payloads, provider="exmpl")
    assert info.value.where


def test_http_error_and_bad_source_are_schemarouter_errors() -> None:
    def boom(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="down")

    with (
        httpx.Client(transport=httpx.MockTransport(boom)) as client,
        pytest.raises(SchemaRouterError),
    ):
        optimade_registration(BASE, provider="exmpl", client=client)
    with pytest.raises(DocumentError):
        optimade_registration(42, provider="exmpl")  # type: ignore[arg-type]
    with pytest.raises(DocumentError):
        optimade_registration({"info": INFO, "info/structures": STRUCTURES}, provider=" ")


@pytest.mark.shared_data
def test_real_property_definitions(shared_data: Path) -> None:
    folder = shared_data / "optimade" / "properties" / "optimade" / "structures"
    structures = {
        "data": {
            "description": "structures",
            "properties": {"id": {"description": "id", "type": "string"}},
        }
    }
    registration = optimade_registration(
        {"info": INFO, "info/structures": structures}, provider="exmpl", properties_dir=folder
    )
    fields = {f.name: f for f in _route(registration, "list_structures").endpoint.output_fields}
    assert "type" not in fields
    assert len(fields) == len(list(folder.glob("*.yaml"))) - 1
    assert fields["lattice_vectors"].unit == "angstrom"
    assert fields["lattice_vectors"].dimension == "length"
    assert fields["cartesian_site_positions"].json_schema["type"] == "array"
    assert fields["nsites"].json_schema == {"type": "integer"}
    assert fields["last_modified"].json_schema["format"] == "date-time"
    assert fields["id"].description  # inherited through $$inherit from core/id
    json.dumps([f.model_dump(mode="json") for f in fields.values()])


def test_inherit_resolution_lenient_and_strict(tmp_path: Path) -> None:
    from schemarouter.adapters.optimade import resolve_inherit

    core = tmp_path / "properties" / "core"
    core.mkdir(parents=True)
    (core / "id.yaml").write_text("type: [string]\ndescription: core id\n", encoding="utf-8")
    (core / "a.yaml").write_text("$$inherit: /v1.2/properties/core/b\n", encoding="utf-8")
    (core / "b.yaml").write_text("$$inherit: /v1.2/properties/core/a\nx: 1\n", encoding="utf-8")
    node = {"$$inherit": "/v1.2/properties/core/id", "description": "own"}
    resolved = resolve_inherit(node, tmp_path, strict=True)
    assert resolved == {"type": ["string"], "description": "own"}  # the own keys win
    missing = {"$$inherit": "/v1.2/properties/core/nope", "x": 1}
    cycle = {"$$inherit": "/v1.2/properties/core/a"}
    assert resolve_inherit(missing, tmp_path) == {"x": 1}  # registration: left out
    assert resolve_inherit(cycle, tmp_path) == {"x": 1}  # the cycle is cut, not followed
    with pytest.raises(DocumentError, match=r"missing target of '/v1\.2/properties/core/nope'"):
        resolve_inherit(missing, tmp_path, strict=True)
    with pytest.raises(DocumentError, match="cycle through"):
        resolve_inherit(cycle, tmp_path, strict=True)
    # references outside properties/ are not definitions: kept out of both modes' way
    other = {"$$inherit": "/v1.2/definitions/thing", "y": 2}
    assert resolve_inherit(other, tmp_path, strict=True) == {"y": 2}
