"""Execution against real loopback servers shaped like the bundled providers: values, units,
provenance, license, server-side and local projection, sync/async parity, Python callables."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from schemarouter import SchemaRouter, capability
from schemarouter.execution.credentials import EnvironmentCredentials
from schemarouter.execution.drivers import ExecutionHost, aexecute, execute
from schemarouter.execution.results import ExecutionResult
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest

from servers import catalogs
from servers.world import CREDS, MP, MP_KEY, OPTIMADE, PUBCHEM, Servers, fresh_router


@pytest.fixture
def router(served_router: SchemaRouter) -> SchemaRouter:
    return served_router


def _values(result: ExecutionResult) -> dict[str, Any]:
    return {name: value.value for name, value in result.steps[0].fields.items()}


def test_materials_project_values_units_provenance_license(
    router: SchemaRouter, servers: Servers
) -> None:
    snapshot = router.snapshot()
    fields = ["material_id", "formula_pretty", "band_gap", "k_vrh", "density"]
    plan = catalogs.plan(snapshot, catalogs.step(snapshot, MP, fields, {"formula": "Fe2O3"}))
    result = execute(router, plan, credentials=CREDS)

    step = result.steps[0]
    assert step.status == "ok" and result.complete
    assert list(step.fields) == fields  # only the planned fields, in plan order
    k = step.fields["k_vrh"]
    assert k.raw_value == [160.0] and k.value == [pytest.approx(1.6e11)]
    assert (k.unit, k.source_unit, k.canonical_unit, k.dimension) == ("Pa", "GPa", "Pa", "pressure")
    assert k.normalized is True
    assert k.qualifiers == {"functional": "PBE", "average": "Voigt-Reuss-Hill"}
    assert k.semantic_id == "mechanical.bulk_modulus"
    assert (k.source_type, k.license) == ("calculated", "CC-BY-4.0")
    assert k.license_url == "https://creativecommons.org/licenses/by/4.0/"
    route = snapshot.routes[MP]
    assert (k.route_id, k.fingerprint, k.provider, k.path) == (
        MP,
        route.fingerprint,
        "materials_project",
        "data.*.bulk_modulus.vrh",
    )
    gap = step.fields["band_gap"]
    assert gap.value == [2.03] and gap.unit == "eV" and gap.normalized is False  # no spec
    assert step.fields["density"].value == [pytest.approx(5230.0)]
    assert step.fields["density"].unit == "kg/m^3"
    assert step.fields["material_id"].value == ["mp-19770"]
    assert step.attribution == "Data from materials_project"
    # server-side projection: document names of the planned fields, and the key in a header
    assert step.server_projection == (
        "material_id",
        "formula_pretty",
        "band_gap",
        "bulk_modulus",
        "density",
    )
    (seen,) = servers.mp.requests
    assert seen.query["_fields"] == ["material_id,formula_pretty,band_gap,bulk_modulus,density"]
    assert seen.query["formula"] == ["Fe2O3"]
    assert seen.headers["X-API-KEY"] == MP_KEY
    assert step.arguments["_fields"] == seen.query["_fields"][0]
    assert (result.calls, step.bytes > 0, result.bytes) == (1, True, step.bytes)


def test_optimade_response_fields_and_jsonapi_shape(router: SchemaRouter, servers: Servers) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(
            snapshot,
            OPTIMADE,
            ["id", "nsites", "elements"],
            {"filter": 'elements HAS ALL "Fe","O"', "page_limit": 5},
        ),
    )
    result = execute(router, plan)
    assert _values(result) == {"id": ["mp-19770"], "nsites": [10], "elements": [["Fe", "O"]]}
    (seen,) = servers.optimade.requests
    assert seen.path == "/v1/structures"
    assert seen.query["response_fields"] == ["id,nsites,elements"]
    assert seen.query["page_limit"] == ["5"]
    assert result.steps[0].server_projection == ("id", "nsites", "elements")


def test_a_plan_that_sets_the_projection_keeps_it(router: SchemaRouter, servers: Servers) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, OPTIMADE, ["id", "nsites"], {"response_fields": "nsites"}),
    )
    result = execute(router, plan)
    assert result.steps[0].server_projection is None
    assert servers.optimade.requests[0].query["response_fields"] == ["nsites"]
    assert _values(result)["nsites"] == [2, 10]


def test_pubchem_local_projection_and_string_values(router: SchemaRouter, servers: Servers) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot, catalogs.step(snapshot, PUBCHEM, ["CID", "MolecularWeight"], {"name": "caffeine"})
    )
    result = execute(router, plan)
    step = result.steps[0]
    assert step.server_projection is None  # PubChem has no projection parameter
    assert set(step.fields) == {"CID", "MolecularWeight"}  # IUPACName etc. projected away
    weight = step.fields["MolecularWeight"]
    assert weight.value == ["194.19"] and weight.unit == "g/mol" and not weight.normalized
    assert (weight.source_type, weight.license) == ("curated", "Public domain (NCBI data policy)")
    assert servers.pubchem.paths() == [
        "/rest/pug/compound/name/caffeine/property/MolecularFormula,MolecularWeight,IUPACName/JSON"
    ]


def test_three_providers_in_one_plan(router: SchemaRouter, servers: Servers) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, MP, ["material_id", "k_vrh"], {"material_ids": "mp-149"}),
        catalogs.step(
            snapshot, OPTIMADE, ["id", "nsites"], {"filter": 'chemical_formula_reduced="Si"'}
        ),
        catalogs.step(snapshot, PUBCHEM, ["CID", "MolecularFormula"], {"name": "Aspirin"}),
    )
    result = execute(router, plan, credentials=CREDS)
    assert [s.status for s in result.steps] == ["ok", "ok", "ok"]
    assert result.field("k_vrh").value == [pytest.approx(8.8e10)]
    assert result.field("nsites").value == [2]
    assert result.field("MolecularFormula").value == ["C9H8O4"]
    assert [v.field for v in result.by_semantic_id("mechanical.bulk_modulus")] == ["k_vrh"]
    assert result.calls == 3 and len(list(result.values())) == 6


def test_router_plan_then_execute(servers: Servers, tmp_path: Path) -> None:
    servers.reset()
    router = fresh_router(servers, tmp_path)
    plan = router.plan("bulk modulus of Fe2O3 from Materials Project", projection="minimal")
    assert plan.steps[0].route_id == MP and plan.steps[0].arguments == {"formula": "Fe2O3"}
    result = execute(router, plan, credentials=CREDS)
    assert result.field("k_vrh").value == [pytest.approx(1.6e11)]
    assert result.field("k_vrh").unit == "Pa"
    by_fields = router.plan(PlanRequest(fields=("structure.nsites",)))
    assert execute(router, by_fields).field("nsites").value == [2, 10]


def test_environment_credentials_are_the_default(
    router: SchemaRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MP_API_KEY", MP_KEY)
    snapshot = router.snapshot()
    plan = catalogs.plan(snapshot, catalogs.step(snapshot, MP, ["material_id"], {}))
    assert execute(router, plan).field("material_id").value == ["mp-19770", "mp-149"]
    assert EnvironmentCredentials(prefix="APP_").get("MP_API_KEY") is None


def _comparable(result: ExecutionResult) -> Any:
    data = json.loads(result.model_dump_json())
    data.pop("elapsed_s")
    for step in data["steps"]:
        step.pop("elapsed_s")
        for attempt in step["attempts"]:
            attempt.pop("elapsed_s")
    return data


def test_aexecute_gives_the_same_result(router: SchemaRouter) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot,
        catalogs.step(snapshot, MP, ["material_id", "k_vrh", "density"], {"formula": "Si"}),
        catalogs.step(snapshot, OPTIMADE, ["id", "elements"], {}),
    )
    sync = execute(router, plan, credentials=CREDS)

    async def run() -> ExecutionResult:
        async with httpx.AsyncClient() as client:
            return await aexecute(router, plan, client=client, credentials=CREDS)

    assert _comparable(asyncio.run(run())) == _comparable(sync)
    assert _comparable(asyncio.run(aexecute(router, plan, credentials=CREDS))) == _comparable(sync)


def test_an_injected_client_is_used_and_left_open(router: SchemaRouter) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(snapshot, catalogs.step(snapshot, OPTIMADE, ["id"], {}))
    seen: list[httpx.URL] = []
    with httpx.Client(
        event_hooks={"request": [lambda request: seen.append(request.url)]}
    ) as client:
        execute(router, plan, client=client)
        execute(router, plan, client=client)
        assert not client.is_closed
    assert len(seen) == 2


def test_an_execution_host_stands_in_for_a_router(router: SchemaRouter) -> None:
    host = ExecutionHost.of(router)
    assert ExecutionHost.of(host) is host
    snapshot = router.snapshot()
    plan = catalogs.plan(snapshot, catalogs.step(snapshot, OPTIMADE, ["id"], {}))
    assert execute(host, plan).field("id").value == ["mp-149", "mp-19770"]


# -- Python callables --------------------------------------------------------------------


class Elastic(BaseModel):
    material_id: str
    youngs_modulus: float
    poisson_ratio: float


_FIELDS = {
    "material_id": {"identifier": True, "semantic_id": "identifier.material_id"},
    "youngs_modulus": {
        "semantic_id": "mechanical.youngs_modulus",
        "unit": "GPa",
        "dimension": "pressure",
        "normalization": catalogs.GPA_PA,
        "qualifiers": {"temperature": "300 K"},
    },
    "poisson_ratio": {"semantic_id": "mechanical.poisson_ratio"},
}


@capability(fields=_FIELDS)
def elastic(material_id: str) -> Elastic:
    """Elastic constants of a material."""
    return Elastic(material_id=material_id, youngs_modulus=160.0, poisson_ratio=0.29)


@capability(fields=_FIELDS)
async def elastic_async(material_id: str) -> Elastic:
    """Elastic constants of a material (async)."""
    await asyncio.sleep(0)
    return Elastic(material_id=material_id, youngs_modulus=160.0, poisson_ratio=0.29)


@pytest.mark.parametrize("fn", [elastic, elastic_async])
def test_python_callables_sync_and_async(fn: Any) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(fn, provider="lab", license="CC0-1.0", source_type="experimental")
    snapshot = router.snapshot()
    (route_id,) = snapshot.routes
    plan = catalogs.plan(
        snapshot,
        catalogs.step(
            snapshot, route_id, ["material_id", "youngs_modulus"], {"material_id": "MAT-7"}
        ),
    )
    for result in (execute(router, plan), asyncio.run(aexecute(router, plan))):
        youngs = result.field("youngs_modulus")
        assert youngs.value == pytest.approx(1.6e11) and youngs.raw_value == 160.0
        assert (youngs.unit, youngs.source_unit, youngs.dimension) == ("Pa", "GPa", "pressure")
        assert youngs.qualifiers == {"temperature": "300 K"}
        assert (youngs.source_type, youngs.license, youngs.provider) == (
            "experimental",
            "CC0-1.0",
            "lab",
        )
        assert result.field("material_id").value == "MAT-7"
        assert "poisson_ratio" not in result.steps[0].fields


def test_sync_execute_inside_a_running_loop_runs_async_callables() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(elastic_async, provider="lab")
    snapshot = router.snapshot()
    (route_id,) = snapshot.routes
    plan = catalogs.plan(
        snapshot, catalogs.step(snapshot, route_id, ["youngs_modulus"], {"material_id": "x"})
    )

    async def inside() -> ExecutionResult:
        return execute(router, plan)  # a blocking call from a coroutine, on purpose

    assert asyncio.run(inside()).field("youngs_modulus").value == pytest.approx(1.6e11)


def test_the_result_is_plain_json(router: SchemaRouter) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(snapshot, catalogs.step(snapshot, MP, ["material_id", "k_vrh"], {}))
    result = execute(router, plan, credentials=CREDS)
    again = ExecutionResult.model_validate_json(result.model_dump_json())
    assert again == result
