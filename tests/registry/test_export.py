"""A registry exported as a catalog document and registered again from it gives the same
route ids, route fingerprints and registry fingerprint (``router.export_catalog``,
``schemarouter catalog export``): the bundled catalog, OpenAPI documents (one under a
numbered provider id), an MCP listing, an OPTIMADE service and typed Python callables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter, bundled_catalog
from schemarouter.errors import RegistrationError
from schemarouter.index.saved_registry import registration_of, registry_file
from schemarouter.registry.export import catalog_document
from schemarouter.registry.registry import Registry

OPENAPI = (
    "apis.guru__2.0.json",
    "rbaskets.in__0.5.json",
    "box.com__content__2.0.json",
    "amazonaws.com__acm__2015-12-08.json",
)


def bare_router() -> SchemaRouter:
    return SchemaRouter(abstention=None, reranker=None, ranking=None, embedding_cache=None)


def prints(router: Any) -> dict[str, str]:
    return {r.route_id: r.fingerprint for r in router.snapshot().routes.values()}


def assert_round_trip(router: SchemaRouter, tmp_path: Path) -> None:
    """Exported, then registered from the file (as add_catalog) and from the registry file a
    saved index keeps (as a restore reads it): the same routes, fingerprints, field groups
    and intents."""
    snapshot = router.snapshot()
    file = router.export_catalog(tmp_path / "exported.json")
    again = bare_router()
    again.add_catalog(file)
    saved = registry_file(snapshot)
    assert saved is not None
    restored = Registry()
    restored.register(registration_of(saved, source="saved")[0])
    for other in (again.snapshot(), restored.snapshot()):
        assert {r.route_id: r.fingerprint for r in other.routes.values()} == prints(router)
        assert other.fingerprint == snapshot.fingerprint
        assert dict(other.field_groups) == dict(snapshot.field_groups)
        assert dict(other.intents) == dict(snapshot.intents)
        for route in other.routes.values():
            assert route == snapshot.routes[route.route_id].model_copy(
                update={"source": route.source}
            )


def test_bundled_catalog_round_trips(tmp_path: Path) -> None:
    router = bare_router()
    router.add_catalog(bundled_catalog())
    assert len(router.snapshot()) > 20 and router.snapshot().intents
    assert_round_trip(router, tmp_path)


def test_openapi_documents_round_trip_with_a_numbered_provider(
    shared_data: Path, tmp_path: Path
) -> None:
    folder = shared_data / "openapi-permissive"
    router = bare_router()
    for name in OPENAPI:
        router.add_openapi(folder / name)
    # another document of the same title registers as <id>_2
    other = json.loads((folder / OPENAPI[0]).read_text())
    first_path = sorted(other["paths"])[0]
    other["paths"] = {first_path: other["paths"][first_path]}
    change = router.add_openapi(other)
    assert all(r.split("/")[0].endswith("_2") for r in change.added)
    assert len(router.snapshot()) > 30
    assert_round_trip(router, tmp_path)


def test_mcp_listing_round_trips(shared_data: Path, tmp_path: Path) -> None:
    servers = json.loads((shared_data / "mcp" / "livemcp_tools.json").read_text())
    router = bare_router()
    registered = 0
    for server in servers[:8]:
        for name, listing in server["tools"].items():
            router.add_mcp_tools({"tools": listing["tools"]}, provider=name)
            registered += 1
    assert registered and len(router.snapshot()) > 10
    assert_round_trip(router, tmp_path)


def optimade_payloads() -> dict[str, Any]:
    info = {
        "data": {
            "type": "info",
            "id": "/",
            "attributes": {
                "api_version": "1.2.0",
                "available_api_versions": [{"url": "http://127.0.0.1:9/v1", "version": "1.2.0"}],
                "available_endpoints": ["info", "structures"],
                "entry_types_by_format": {"json": ["structures"]},
            },
        },
        "meta": {"api_version": "1.2.0", "provider": {"name": "Ex", "prefix": "ex"}},
    }
    structures = {
        "data": {
            "properties": {
                "id": {"type": "string", "description": "Entry"},
                "_ex_band_gap": {"type": "float", "description": "Band gap", "unit": "eV"},
            }
        }
    }
    return {"info": info, "info/structures": structures}


def test_optimade_registration_round_trips(tmp_path: Path) -> None:
    from schemarouter.adapters.optimade import add_optimade

    router = bare_router()
    add_optimade(router, optimade_payloads(), provider="ex")
    assert len(router.snapshot()) == 2
    assert_round_trip(router, tmp_path)


def test_a_mixed_registry_round_trips_with_the_catalogs_groups_and_intents(
    tmp_path: Path,
) -> None:
    """A catalog that declares field groups and intents beside adapters' routes: the
    export declares them once, and add_catalog's reference checks pass."""
    from schemarouter.adapters.optimade import add_optimade

    router = bare_router()
    router.add_catalog(bundled_catalog())
    add_optimade(router, optimade_payloads(), provider="ex")
    router.add_callable(band_gap, provider="lab")
    assert_round_trip(router, tmp_path)


def band_gap(formula: str, temperature_k: float = 300.0) -> dict[str, float]:
    """Band gap of a material at a temperature."""
    return {"band_gap": 1.1}


def density(formula: str) -> dict[str, float]:
    """Density of a material."""
    return {"density": 2.3}


def test_python_callables_round_trip_as_contracts(tmp_path: Path) -> None:
    """Callables of two modules under one provider share the access id ``python`` with two
    access paths (one per call): the catalog lists both under that id."""
    router = bare_router()
    router.add_callable(band_gap, provider="lab")
    other = type(density)(density.__code__, density.__globals__, "density")
    other.__module__ = "lab_tools.physics"
    other.__annotations__ = density.__annotations__
    router.add_callable(other, provider="lab")
    accesses = {r.access for r in router.snapshot().routes.values()}
    assert len(accesses) == 2 and {a.id for a in accesses} == {"python"}
    assert_round_trip(router, tmp_path)


def test_a_provider_with_two_versions_of_its_metadata_is_refused_by_name(
    tmp_path: Path,
) -> None:
    from schemarouter.contracts import Provider

    router = bare_router()
    router.add_callable(band_gap, provider=Provider(id="lab", display_name="Lab"))
    router.add_callable(
        density, provider=Provider(id="lab", display_name="Lab", license="CC0-1.0"), replace=True
    )
    with pytest.raises(RegistrationError, match="'lab' is registered with two versions") as info:
        catalog_document(router.snapshot())
    assert "replace=True" in str(info.value)


def test_an_export_writes_through_no_link_planted_at_its_staging_name(tmp_path: Path) -> None:
    """The staging file was ``.NAME.tmp``, opened for writing: a link planted at that name
    in a folder others can write (/tmp) had the catalog written into the file it points to,
    and the export became a link to it (trial W1)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / ".exported.json.tmp").symlink_to(victim)
    router = bare_router()
    router.add_catalog(bundled_catalog())
    file = router.export_catalog(tmp_path / "exported.json")
    assert victim.read_text() == "precious\n"
    assert not file.is_symlink() and json.loads(file.read_text())["schemarouter_catalog"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == [".exported.json.tmp"]
