"""Test catalogs pointed at loopback servers, and hand-built plans over them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from schemarouter.execution.invokers import bind_http_routes
from schemarouter.planning.fallbacks import Fallback, fallback_compatible
from schemarouter.planning.planner import (
    Coverage,
    Plan,
    PlanRequest,
    PlanStep,
)
from schemarouter.registry.registry import RegistrySnapshot

GPA_PA = {"source_unit": "GPa", "canonical_unit": "Pa", "dimension": "pressure", "scale": 1.0e9}
GCC_KGM3 = {
    "source_unit": "g/cm^3",
    "canonical_unit": "kg/m^3",
    "dimension": "density",
    "scale": 1000.0,
}
PBE = {"functional": "PBE"}


def fld(name: str, path: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "path": path, "json_schema": schema, **extra}


def param(
    name: str, location: str = "query", schema: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "location": location,
        "json_schema": schema or {"type": "string"},
        **extra,
    }


def endpoint(
    eid: str,
    path: str,
    *,
    params: Sequence[dict[str, Any]] = (),
    fields: Sequence[dict[str, Any]] = (),
    method: str = "GET",
    effect: str = "read",
    output_schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": eid,
        "name": f"{method} {path}",
        "operation": {"method": method, "path": path},
        "parameters": list(params),
        "output_fields": list(fields),
        "effect": effect,
    }
    if output_schema is not None:
        out["output_schema"] = output_schema
    return out


def provider(
    pid: str,
    base_url: str,
    endpoints: Sequence[dict[str, Any]],
    *,
    kind: str = "http",
    access_id: str = "rest",
    auth: dict[str, Any] | None = None,
    license: str = "CC-BY-4.0",
    source_type: str = "calculated",
) -> dict[str, Any]:
    access: dict[str, Any] = {
        "id": access_id,
        "kind": kind,
        "base_url": base_url,
        "endpoints": list(endpoints),
    }
    if auth:
        access["auth"] = auth
    return {
        "id": pid,
        "display_name": pid.replace("_", " ").title(),
        "license": license,
        "license_url": "https://creativecommons.org/licenses/by/4.0/"
        if license == "CC-BY-4.0"
        else None,
        "attribution": f"Data from {pid}",
        "source_type": source_type,
        "access": [access],
    }


# -- the three provider shapes ------------------------------------------------------------

MP_FIELDS = [
    fld(
        "material_id",
        "data.*.material_id",
        {"type": "string"},
        semantic_id="identifier.material_id",
        identifier=True,
        group="identity",
    ),
    fld(
        "formula_pretty",
        "data.*.formula_pretty",
        {"type": "string"},
        semantic_id="chemical.formula",
        identifier=True,
        group="identity",
    ),
    fld(
        "band_gap",
        "data.*.band_gap",
        {"type": "number", "minimum": 0},
        semantic_id="electronic.band_gap",
        unit="eV",
        dimension="energy",
        qualifiers=PBE,
        group="electronic",
    ),
    fld(
        "k_vrh",
        "data.*.bulk_modulus.vrh",
        {"type": ["number", "null"]},
        semantic_id="mechanical.bulk_modulus",
        unit="GPa",
        dimension="pressure",
        normalization=GPA_PA,
        qualifiers={**PBE, "average": "Voigt-Reuss-Hill"},
        group="mechanical",
    ),
    fld(
        "density",
        "data.*.density",
        {"type": "number"},
        semantic_id="structure.density",
        unit="g/cm^3",
        dimension="density",
        normalization=GCC_KGM3,
        group="structure",
    ),
    fld(
        "crystal_system",
        "data.*.symmetry.crystal_system",
        {"type": "string"},
        semantic_id="structure.crystal_system",
        group="structure",
    ),
]
MP_AUTH = {
    "credentials": ["MP_API_KEY"],
    "scheme": "api_key",
    "location": "header",
    "parameter": "X-API-KEY",
}


def materials_project(base_url: str) -> dict[str, Any]:
    return provider(
        "materials_project",
        base_url,
        [
            endpoint(
                "summary_search",
                "/materials/summary/",
                params=[
                    param("formula", semantic_id="chemical.formula"),
                    param("material_ids", semantic_id="identifier.material_id"),
                    param("_fields"),
                    param("_limit", schema={"type": "integer", "minimum": 1, "maximum": 1000}),
                ],
                fields=MP_FIELDS,
            )
        ],
        auth=MP_AUTH,
    )


def optimade(base_url: str) -> dict[str, Any]:
    pattern = "([a-z_][a-z_0-9]*(,[a-z_][a-z_0-9]*)*)?"
    return provider(
        "optimade",
        base_url + "/v1",
        [
            endpoint(
                "structures",
                "/structures",
                params=[
                    param("filter", semantic_id="query.optimade_filter"),
                    param("response_fields", schema={"type": "string", "pattern": pattern}),
                    param("page_limit", schema={"type": "integer", "minimum": 0}),
                ],
                fields=[
                    fld(
                        "id",
                        "data.*.id",
                        {"type": "string"},
                        semantic_id="identifier.optimade_entry_id",
                        identifier=True,
                    ),
                    fld(
                        "chemical_formula_reduced",
                        "data.*.attributes.chemical_formula_reduced",
                        {"type": ["string", "null"]},
                        semantic_id="chemical.formula_reduced",
                    ),
                    fld(
                        "elements",
                        "data.*.attributes.elements",
                        {"type": ["array", "null"], "items": {"type": "string"}},
                        semantic_id="chemical.elements",
                    ),
                    fld(
                        "nsites",
                        "data.*.attributes.nsites",
                        {"type": ["integer", "null"]},
                        semantic_id="structure.nsites",
                    ),
                ],
                output_schema={
                    "type": "object",
                    "required": ["data", "meta"],
                    "properties": {
                        "data": {
                            "type": "array",
                            "items": {"type": "object", "required": ["id", "type"]},
                        },
                        "meta": {"type": "object"},
                    },
                },
            )
        ],
        kind="optimade",
        access_id="v1",
    )


def pubchem(base_url: str) -> dict[str, Any]:
    props = "PropertyTable.Properties.*."
    return provider(
        "pubchem",
        base_url + "/rest/pug",
        [
            endpoint(
                "compound_properties_by_name",
                "/compound/name/{name}/property/MolecularFormula,MolecularWeight,IUPACName/JSON",
                params=[
                    param(
                        "name",
                        "path",
                        {"type": "string", "minLength": 1},
                        required=True,
                        semantic_id="chemical.name",
                    )
                ],
                fields=[
                    fld(
                        "CID",
                        props + "CID",
                        {"type": "integer"},
                        semantic_id="identifier.pubchem_cid",
                        identifier=True,
                    ),
                    fld(
                        "MolecularFormula",
                        props + "MolecularFormula",
                        {"type": "string"},
                        semantic_id="chemical.molecular_formula",
                    ),
                    fld(
                        "MolecularWeight",
                        props + "MolecularWeight",
                        {"type": ["string", "number"]},
                        semantic_id="chemistry.molecular_weight",
                        unit="g/mol",
                        dimension="molar_mass",
                    ),
                    fld(
                        "IUPACName",
                        props + "IUPACName",
                        {"type": "string"},
                        semantic_id="chemical.iupac_name",
                    ),
                ],
            )
        ],
        access_id="pug_rest",
        license="Public domain (NCBI data policy)",
        source_type="curated",
    )


FAULTS = [
    "slow",
    "error500",
    "not-found",
    "flaky",
    "malformed",
    "html",
    "schema-break",
    "missing-field",
    "empty-rows",
    "oversized",
    "oversized-stream",
    "redirect-away",
    "redirect-home",
    "redirect-host",
    "redirect-scheme",
    "redirect-userinfo",
    "redirect-loop",
    "good",
]


def faulty(base_url: str) -> dict[str, Any]:
    """One read route per fault, each serving MP-shaped ``material_id`` and ``band_gap``."""
    fields = [
        fld(
            "material_id",
            "data.*.material_id",
            {"type": "string"},
            semantic_id="identifier.material_id",
            identifier=True,
        ),
        fld(
            "band_gap",
            "data.*.band_gap",
            {"type": "number"},
            semantic_id="electronic.band_gap",
            unit="eV",
            dimension="energy",
            qualifiers=PBE,
        ),
    ]
    endpoints = [
        endpoint(
            name.replace("-", "_"),
            f"/{name}",
            params=[param("formula", semantic_id="chemical.formula")],
            fields=fields,
        )
        for name in FAULTS
    ]
    endpoints.append(
        endpoint(
            "echo",
            "/echo/{material}",
            params=[
                param("material", "path", {"type": "string"}, required=True),
                param("note", "header", {"type": "string"}),
                param("q"),
            ],
            fields=fields,
        )
    )
    endpoints.append(
        endpoint(
            "store",
            "/good",
            method="POST",
            effect="write",
            params=[param("body", "body", {"type": "object"})],
            fields=fields,
        )
    )
    endpoints.append(
        endpoint("wipe", "/good", method="DELETE", effect="destructive", fields=fields)
    )
    endpoints.append(
        endpoint(
            "store_redirect",
            "/redirect-home",
            method="POST",
            effect="write",
            params=[param("body", "body", {"type": "object"})],
            fields=fields,
        )
    )
    endpoints.append(
        endpoint(
            "store_fail",
            "/error500",
            method="POST",
            effect="write",
            params=[param("formula", semantic_id="chemical.formula")],
            fields=fields,
        )
    )
    endpoints.append(
        endpoint(
            "good_strict",
            "/good",
            params=[param("formula", semantic_id="chemical.formula")],
            fields=fields,
            output_schema={
                "type": "object",
                "required": ["data", "meta"],
                "properties": {"data": {"type": "array"}},
            },
        )
    )
    return provider("faulty", base_url, endpoints, license="CC0-1.0", source_type="experimental")


def keyed(base_url: str) -> dict[str, Any]:
    """Routes whose API key travels in the query string (``?api_key=...``); ``seen`` is
    what the echo route reports it received (the query string included)."""
    fields = [
        fld(
            "band_gap",
            "data.*.band_gap",
            {"type": "number"},
            semantic_id="electronic.band_gap",
            unit="eV",
            dimension="energy",
            qualifiers={"functional": "HSE"},
        ),
        fld("seen", "data.*.material_id", {"type": "string"}),
    ]
    auth = {
        "credentials": ["KEYED_API_KEY"],
        "scheme": "api_key",
        "location": "query",
        "parameter": "api_key",
    }
    echo_params = [param("material", "path", required=True)]
    return provider(
        "keyed",
        base_url,
        [
            endpoint("good", "/good", fields=fields),
            endpoint("error500", "/error500", fields=fields),
            endpoint("echo", "/echo/{material}", params=echo_params, fields=fields),
        ],
        auth=auth,
    )


def write_catalog(path: Path, providers: Iterable[dict[str, Any]]) -> Path:
    path.write_text(
        json.dumps({"schemarouter_catalog": 1, "providers": list(providers)}), encoding="utf-8"
    )
    return path


def register(router: Any, path: Path, providers: Iterable[dict[str, Any]]) -> list[str]:
    """Register ``providers`` as a catalog file and bind their HTTP routes."""
    router.add_catalog(write_catalog(path, providers))
    return bind_http_routes(router)


# -- plans ---------------------------------------------------------------------------------


def fallbacks_for(
    snapshot: RegistrySnapshot, route_id: str, fields: Iterable[str]
) -> tuple[Fallback, ...]:
    route = snapshot.routes[route_id]
    out = []
    for name in fields:
        item = route.endpoint.field(name)
        if item.semantic_id is None:
            continue
        for offer in snapshot.providers_of(item.semantic_id):
            other = snapshot.routes[offer.route_id]
            if fallback_compatible(route, item, other, offer.field)[0]:
                out.append(
                    Fallback(
                        semantic_id=item.semantic_id,
                        route_id=other.route_id,
                        field=offer.field.name,
                        fingerprint=other.fingerprint,
                    )
                )
    return tuple(out)


def step(
    snapshot: RegistrySnapshot,
    route_id: str,
    fields: Sequence[str],
    arguments: dict[str, Any] | None = None,
    *,
    covers: Sequence[str] | None = None,
    fallbacks: bool | Sequence[str] = True,
    fingerprint: str | None = None,
) -> PlanStep:
    """A plan step as the planner makes it; ``fallbacks``: all compatible ones (``True``),
    none, or only those to the listed route ids."""
    route = snapshot.routes[route_id]
    if covers is None:
        covers = [
            route.endpoint.field(n).semantic_id
            for n in fields
            if route.endpoint.field(n).semantic_id and not route.endpoint.field(n).identifier
        ]
    needed = [n for n in fields if route.endpoint.field(n).semantic_id in covers]
    return PlanStep(
        route_id=route_id,
        fingerprint=fingerprint or route.fingerprint,
        provider=route.provider.id,
        endpoint=route.endpoint.name,
        fields=tuple(fields),
        covers=tuple(covers),
        arguments=arguments or {},
        fallbacks=tuple(
            fb
            for fb in fallbacks_for(snapshot, route_id, needed)
            if fallbacks is True or (not isinstance(fallbacks, bool) and fb.route_id in fallbacks)
        ),
    )


def plan(snapshot: RegistrySnapshot, *steps: PlanStep) -> Plan:
    covers = tuple(dict.fromkeys(c for s in steps for c in s.covers))
    return Plan(
        request=PlanRequest(fields=covers),
        steps=steps,
        coverage=Coverage(required=covers, covered=covers, uncovered=()),
        max_calls=max(len(steps), 1),
        registry_version=snapshot.version,
    )


def run(mode: str, router: Any, plan: Plan, **kwargs: Any) -> Any:
    """Execute ``plan`` with the blocking (``mode="sync"``) or the awaiting driver."""
    from schemarouter.execution.drivers import aexecute, execute

    if mode == "sync":
        return execute(router, plan, **kwargs)
    return asyncio.run(aexecute(router, plan, **kwargs))
