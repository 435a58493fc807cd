"""schema_diff and stale bindings after re-registering a changed OpenAPI document."""

from __future__ import annotations

import copy

from schemarouter import SchemaRouter
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Registration, Route
from schemarouter.execution.invokers.http import bind_http_routes
from schemarouter.registry.diff import schema_diff

from helpers import TINY_CATALOG

BASE = "https://api.example.org"

DOC = {
    "openapi": "3.0.3",
    "info": {"title": "Example", "version": "1"},
    "servers": [{"url": BASE}],
    "paths": {
        "/materials/{id}": {
            "get": {
                "operationId": "getMaterial",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "band_gap": {"type": "number"},
                                        "formula": {"type": "string"},
                                    },
                                }
                            }
                        },
                    }
                },
            }
        },
        "/materials": {
            "get": {
                "operationId": "searchMaterials",
                "parameters": [{"name": "formula", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}},
    },
}


def _changed_doc() -> dict:
    doc = copy.deepcopy(DOC)
    props = doc["paths"]["/materials/{id}"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]["properties"]
    props["density"] = {"type": "number"}
    del props["formula"]
    props["band_gap"] = {"type": "string"}
    search = doc["paths"]["/materials"]["get"]
    search["parameters"].append({"name": "limit", "in": "query", "schema": {"type": "integer"}})
    search["parameters"][0]["schema"] = {"type": "string", "maxLength": 64}
    del doc["paths"]["/ping"]
    doc["paths"]["/health"] = {
        "get": {"operationId": "health", "responses": {"200": {"description": "ok"}}}
    }
    return doc


def _router() -> SchemaRouter:
    return SchemaRouter(abstention=None, embedding_cache=None)


def test_schema_diff_against_registration_and_snapshot() -> None:
    router = _router()
    router.add_openapi(DOC, provider="ex")
    old = router.snapshot()
    new = openapi_registration(_changed_doc(), provider="ex")
    diff = schema_diff(old, new)
    assert diff.added == ("ex/rest/health",)
    assert diff.removed == ("ex/rest/ping",)
    assert diff.needs_rebinding == ("ex/rest/get_material", "ex/rest/search_materials")
    get_id = next(r for r in diff.needs_rebinding if "get" in r)
    search_id = next(r for r in diff.needs_rebinding if "search" in r)
    get = diff.route(get_id)
    assert get.fields_added == ("density",)
    assert get.fields_removed == ("formula",)
    assert get.fields_changed == ("band_gap",)
    assert "output_schema" in get.parts_changed
    search = diff.route(search_id)
    assert search.parameters_added == ("limit",)
    assert search.parameters_changed == ("formula",)
    assert "input_schema" in search.parts_changed
    # the same diff from the snapshot after re-registration
    router.register(new, replace=True)
    again = schema_diff(old, router.snapshot())
    assert again.added == diff.added and again.removed == diff.removed
    assert [d.route_id for d in again.changed] == [d.route_id for d in diff.changed]
    assert schema_diff(old, old).empty
    assert schema_diff(old, router.snapshot(), provider="other").empty


def _without_document_hash(registration: Registration) -> Registration:
    routes = tuple(
        Route.build(
            r.provider,
            r.access.model_copy(update={"document_hash": None}),
            r.endpoint,
            source=r.source,
        )
        for r in registration.routes
    )
    return registration.model_copy(update={"routes": routes})


def _added_limit(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["paths"]["/materials"]["get"]["parameters"].append(
        {"name": "limit", "in": "query", "schema": {"type": "integer"}}
    )
    return doc


def test_reregistered_changed_routes_unbound_unchanged_kept() -> None:
    """The router's mechanism: only routes whose fingerprint changed lose their binding."""
    router = _router()
    router.register(_without_document_hash(openapi_registration(DOC, provider="ex")))
    bind_http_routes(router)
    assert all(router.is_bound(r) for r in router.snapshot().route_ids())
    new = _without_document_hash(openapi_registration(_added_limit(DOC), provider="ex"))
    diff = schema_diff(router.snapshot(), new)
    assert diff.needs_rebinding == ("ex/rest/search_materials",)
    assert diff.route("ex/rest/search_materials").parameters_added == ("limit",)
    change = router.register(new, replace=True)
    assert change.replaced == ("ex/rest/search_materials",)
    assert not router.is_bound("ex/rest/search_materials")
    assert "ex/rest/search_materials" not in router.bindings()  # the stale binding was dropped
    assert diff.unchanged == ("ex/rest/get_material", "ex/rest/ping")
    assert all(router.is_bound(r) for r in diff.unchanged)


def test_add_openapi_rebinds_only_what_it_registers_again() -> None:
    router = _router()
    router.add_openapi(DOC, provider="ex")
    old = router.snapshot()
    router.add_openapi(_added_limit(DOC), provider="ex", replace=True)
    new = router.snapshot()
    # the document's hash is provenance, not contract: untouched routes keep their fingerprint
    for route_id in ("ex/rest/get_material", "ex/rest/ping"):
        assert old.route(route_id).fingerprint == new.route(route_id).fingerprint
    changed = "ex/rest/search_materials"
    assert old.route(changed).fingerprint != new.route(changed).fingerprint
    # add_openapi binds what it registers, at the new fingerprint
    assert router.bindings()[changed][0] == new.route(changed).fingerprint


def test_add_openapi_keeps_unchanged_routes_bound() -> None:
    router = _router()
    router.add_openapi(DOC, provider="ex")
    diff = schema_diff(router.snapshot(), openapi_registration(_added_limit(DOC), provider="ex"))
    assert diff.needs_rebinding == ("ex/rest/search_materials",)
    router.add_openapi(_added_limit(DOC), provider="ex", replace=True)
    assert all(router.is_bound(r) for r in diff.unchanged)
    assert router.is_bound("ex/rest/search_materials")  # bound again at its new fingerprint


def test_registering_another_source_leaves_unbound_routes_unbound(tmp_path) -> None:
    router = _router()
    router.add_openapi(DOC, provider="ex")
    router.unbind("ex/rest/ping")
    catalog = tmp_path / "tiny.yaml"
    catalog.write_text(TINY_CATALOG, encoding="utf-8")
    change = router.add_catalog(catalog)  # binds only what it registers
    assert not router.is_bound("ex/rest/ping")
    assert router.is_bound("ex/rest/get_material")
    assert change.added and all(router.is_bound(r) for r in change.added)
