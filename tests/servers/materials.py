"""Loopback servers in the shape of the bundled providers: OPTIMADE, Materials Project, PubChem.

Data are small, fixed and realistic (values as the public services serve them).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from servers.loopback import App, Request, Response, json_response

#: Materials Project summary documents (``/materials/summary/``), as the API serves them.
MP_DOCS: list[dict[str, Any]] = [
    {
        "material_id": "mp-19770",
        "formula_pretty": "Fe2O3",
        "band_gap": 2.03,
        "density": 5.23,
        "bulk_modulus": {"voigt": 165.0, "reuss": 155.0, "vrh": 160.0},
        "symmetry": {"crystal_system": "Trigonal", "number": 167},
    },
    {
        "material_id": "mp-149",
        "formula_pretty": "Si",
        "band_gap": 0.61,
        "density": 2.28,
        "bulk_modulus": {"voigt": 88.5, "reuss": 87.5, "vrh": 88.0},
        "symmetry": {"crystal_system": "Cubic", "number": 227},
    },
]

#: OPTIMADE structures (``/v1/structures``).
OPTIMADE_ENTRIES: list[dict[str, Any]] = [
    {
        "id": "mp-149",
        "type": "structures",
        "attributes": {
            "chemical_formula_reduced": "Si",
            "elements": ["Si"],
            "nelements": 1,
            "nsites": 2,
            "last_modified": "2024-01-01T00:00:00Z",
        },
    },
    {
        "id": "mp-19770",
        "type": "structures",
        "attributes": {
            "chemical_formula_reduced": "Fe2O3",
            "elements": ["Fe", "O"],
            "nelements": 2,
            "nsites": 10,
            "last_modified": "2024-01-02T00:00:00Z",
        },
    },
]

PUBCHEM: dict[str, dict[str, Any]] = {
    "caffeine": {
        "CID": 2519,
        "MolecularFormula": "C8H10N4O2",
        "MolecularWeight": "194.19",
        "IUPACName": "1,3,7-trimethylpurine-2,6-dione",
    },
    "aspirin": {
        "CID": 2244,
        "MolecularFormula": "C9H8O4",
        "MolecularWeight": "180.16",
        "IUPACName": "2-acetyloxybenzoic acid",
    },
}


def materials_project_app(api_key: str) -> App:
    """``GET /materials/summary/`` with ``formula``/``material_ids`` and ``_fields``; needs
    the ``X-API-KEY`` header."""

    def app(request: Request) -> Response:
        if request.path != "/materials/summary/":
            return json_response({"detail": "Not Found"}, 404)
        if request.headers.get("X-API-KEY") != api_key:
            return json_response({"detail": "invalid or missing API key"}, 401)
        docs = MP_DOCS
        formula = request.arg("formula")
        if formula:
            docs = [d for d in docs if d["formula_pretty"] in formula.split(",")]
        ids = request.arg("material_ids")
        if ids:
            docs = [d for d in docs if d["material_id"] in ids.split(",")]
        fields = request.arg("_fields")
        if fields:
            keep = fields.split(",")
            docs = [{k: v for k, v in d.items() if k in keep} for d in docs]
        return json_response({"data": docs, "meta": {"total_doc": len(docs)}})

    return app


_FILTER_VALUE = re.compile(r'"([^"]*)"')


def optimade_app(request: Request) -> Response:
    """``GET /v1/structures`` with a (tiny) ``filter`` and ``response_fields``."""
    if request.path != "/v1/structures":
        return json_response({"errors": [{"status": "404", "title": "Not Found"}]}, 404)
    entries = OPTIMADE_ENTRIES
    wanted = _FILTER_VALUE.findall(request.arg("filter") or "")
    if wanted:
        entries = [
            e
            for e in entries
            if e["attributes"]["chemical_formula_reduced"] in wanted
            or set(wanted) <= set(e["attributes"]["elements"])
        ]
    fields = request.arg("response_fields")
    out = []
    for entry in entries:
        attributes = entry["attributes"]
        if fields:
            attributes = {k: v for k, v in attributes.items() if k in fields.split(",")}
        out.append({"id": entry["id"], "type": entry["type"], "attributes": attributes})
    return json_response(
        {
            "data": out,
            "meta": {"data_returned": len(out), "api_version": "1.2.0"},
            "links": {"next": None},
        },
        **{"Content-Type": "application/vnd.api+json"},
    )


def pubchem_app(request: Request) -> Response:
    """``GET /rest/pug/compound/name/{name}/property/<list>/JSON``."""
    match = re.fullmatch(
        r"/rest/pug/compound/name/([^/]+)/property/([^/]+)/JSON", request.raw_path.split("?")[0]
    )
    if not match:
        return json_response({"Fault": {"Code": "PUGREST.BadRequest"}}, 400)
    name = unquote(match.group(1)).lower()
    if name not in PUBCHEM:
        return json_response(
            {"Fault": {"Code": "PUGREST.NotFound", "Message": "No CID found"}}, 404
        )
    properties = match.group(2).split(",")
    record = {k: v for k, v in PUBCHEM[name].items() if k == "CID" or k in properties}
    return json_response({"PropertyTable": {"Properties": [record]}})
