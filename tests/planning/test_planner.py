"""Field-first planning: coverage, set cover within max_calls, projection, fallback rules."""

from __future__ import annotations

import datetime
import enum
from pathlib import Path
from typing import Any, Literal, Optional

import pytest
import yaml

from schemarouter.contracts import SourceType
from schemarouter.planning.fallbacks import fallback_compatible
from schemarouter.planning.planner import (
    PlanRequest,
    plan_routes,
    project_fields,
)
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot
from schemarouter.retrieval.analysis import find_values


def _provider(
    pid: str,
    source: str,
    fields: list[dict[str, Any]],
    *,
    effect: str = "read",
    params: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": pid,
        "display_name": pid.upper(),
        "license": "CC-BY-4.0",
        "source_type": source,
        "access": [
            {
                "id": "rest",
                "kind": "http",
                "base_url": f"https://{pid}.example.org",
                "endpoints": [
                    {
                        "id": "get",
                        "name": f"{pid}_get",
                        "effect": effect,
                        "operation": {"method": "GET", "path": "/materials"},
                        "parameters": params
                        or [
                            {
                                "name": "formula",
                                "location": "query",
                                "json_schema": {"type": "string"},
                                "required": True,
                            }
                        ],
                        "output_fields": fields,
                    }
                ],
            }
        ],
    }


def _f(
    name: str,
    sid: str | None,
    *,
    unit: str | None = None,
    dim: str | None = None,
    norm: tuple[str, float] | None = None,
    q: dict[str, str] | None = None,
    group: str | None = None,
    ident: bool = False,
    kind: str = "number",
    aliases: list[str] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "path": f"data.*.{name}",
        "json_schema": {"type": kind},
        "identifier": ident,
    }
    if sid:
        out["semantic_id"] = sid
    if unit:
        out["unit"] = unit
        out["dimension"] = dim
    if norm:
        out["normalization"] = {
            "source_unit": unit,
            "canonical_unit": norm[0],
            "dimension": dim,
            "scale": norm[1],
        }
    if q:
        out["qualifiers"] = q
    if group:
        out["group"] = group
    if aliases:
        out["aliases"] = aliases
    return out


CATALOG = {
    "schemarouter_catalog": 1,
    "providers": [
        _provider(
            "mp",
            "calculated",
            [
                _f("material_id", None, ident=True, kind="string"),
                _f(
                    "band_gap",
                    "electronic.band_gap",
                    unit="eV",
                    dim="energy",
                    q={"functional": "PBE"},
                    group="electronic",
                ),
                _f(
                    "efermi", "electronic.fermi_energy", unit="eV", dim="energy", group="electronic"
                ),
                _f(
                    "k_vrh",
                    "mechanical.bulk_modulus",
                    unit="GPa",
                    dim="pressure",
                    norm=("Pa", 1e9),
                    group="mechanical",
                    aliases=["bulk modulus", "체적탄성률"],
                ),
                _f("density", "structure.density", unit="g/cm^3", dim="density", group="structure"),
            ],
        ),
        _provider(
            "oqmd",
            "calculated",
            [
                _f("entry_id", None, ident=True, kind="string"),
                _f(
                    "band_gap",
                    "electronic.band_gap",
                    unit="eV",
                    dim="energy",
                    q={"functional": "PBE"},
                ),
                _f(
                    "bulk_modulus_mpa",
                    "mechanical.bulk_modulus",
                    unit="MPa",
                    dim="pressure",
                    norm=("Pa", 1e6),
                ),
            ],
        ),
        _provider(
            "jarvis",
            "calculated",
            [
                _f(
                    "optb88vdw_bandgap",
                    "electronic.band_gap",
                    unit="eV",
                    dim="energy",
                    q={"functional": "OptB88vdW"},
                ),
                _f("bulk_modulus_kv", "mechanical.bulk_modulus", unit="GPa", dim="pressure"),
            ],
        ),
        _provider(
            "lab",
            "experimental",
            [
                _f("gap", "electronic.band_gap", unit="eV", dim="energy", q={"functional": "PBE"}),
                _f("melting_point", "thermo.melting_point", unit="K", dim="temperature"),
            ],
            effect="write",
        ),
        _provider(
            "cod",
            "experimental",
            [
                _f("density", "structure.density", unit="g/cm^3", dim="density"),
                _f("mass_density", "structure.density", unit="kg/m^3", dim="density"),
            ],
        ),
    ],
}


@pytest.fixture
def snapshot(tmp_path: Path) -> RegistrySnapshot:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(CATALOG, allow_unicode=True), "utf-8")
    registry = Registry()
    registry.register(load_catalog(path))
    return registry.snapshot()


def test_fields_first_then_routes(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(
        PlanRequest(query="bulk modulus and band gap of GaN"),
        snapshot,
        ranked=["jarvis/rest/get", "mp/rest/get"],
        values=find_values("bulk modulus and band gap of GaN"),
    )
    assert plan.coverage.required == ("mechanical.bulk_modulus", "electronic.band_gap")
    assert plan.coverage.complete
    (step,) = plan.steps
    # jarvis ranks first but mp and jarvis both cover both: the retrieval rank breaks the tie
    assert step.route_id == "jarvis/rest/get"
    assert step.arguments == {"formula": "GaN"}
    assert step.missing_parameters == ()


def test_minimal_vs_recall_projection(snapshot: RegistrySnapshot) -> None:
    route = snapshot.route("mp/rest/get")
    assert project_fields(route, {"band_gap"}, mode="minimal") == ("material_id", "band_gap")
    assert project_fields(route, {"band_gap"}, mode="recall") == (
        "material_id",
        "band_gap",
        "efermi",
    )


def test_max_calls_and_complementary_routes(snapshot: RegistrySnapshot) -> None:
    request = PlanRequest(
        fields=("thermo.melting_point", "electronic.band_gap", "structure.density"),
        allowed_effects=frozenset({"read", "write"}),
    )
    one = plan_routes(request, snapshot, max_calls=1)
    assert len(one.steps) == 1 and not one.coverage.complete
    assert any("max_calls=1" in w for w in one.warnings)
    two = plan_routes(request, snapshot, max_calls=2)
    assert two.coverage.complete
    # lab covers two fields; density is then a tie between mp and cod, and with no retrieval
    # rank the route with fewer fields wins (breadth is never rewarded)
    assert [s.route_id for s in two.steps] == ["lab/rest/get", "cod/rest/get"]
    ranked = plan_routes(request, snapshot, max_calls=2, ranked=["mp/rest/get"])
    assert [s.route_id for s in ranked.steps] == ["mp/rest/get", "lab/rest/get"]


def test_requested_fields_are_never_swapped(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(PlanRequest(fields=("thermo.melting_point", "no.such_field")), snapshot)
    # melting point is only on a write route, which read-only planning excludes
    assert plan.steps == ()
    assert plan.coverage.uncovered == ("thermo.melting_point", "no.such_field")
    assert any("not provided by any registered route" in w for w in plan.warnings)
    assert any("constraints exclude" in w for w in plan.warnings)


def test_source_constraints_filter(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(
        PlanRequest(fields=("structure.density",), source_types=(SourceType.EXPERIMENTAL,)),
        snapshot,
    )
    assert plan.route_ids == ("cod/rest/get",)


def test_korean_alias_resolves(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(PlanRequest(query="Si 의 체적탄성률"), snapshot)
    assert plan.coverage.required == ("mechanical.bulk_modulus",)


def _field(snapshot: RegistrySnapshot, route_id: str, name: str) -> Any:
    route = snapshot.route(route_id)
    return route, route.endpoint.field(name)


@pytest.mark.parametrize(
    ("a", "b", "ok", "reason"),
    [
        (("mp/rest/get", "band_gap"), ("oqmd/rest/get", "band_gap"), True, "compatible"),
        (
            ("mp/rest/get", "band_gap"),
            ("jarvis/rest/get", "optb88vdw_bandgap"),
            False,
            "qualifiers differ",
        ),
        (("mp/rest/get", "band_gap"), ("lab/rest/get", "gap"), False, "read-only"),
        (("mp/rest/get", "k_vrh"), ("oqmd/rest/get", "bulk_modulus_mpa"), True, "compatible"),
        (("mp/rest/get", "k_vrh"), ("jarvis/rest/get", "bulk_modulus_kv"), False, "canonical unit"),
        (
            ("mp/rest/get", "density"),
            ("cod/rest/get", "mass_density"),
            False,
            "without a declared normalization",
        ),
        (("mp/rest/get", "density"), ("cod/rest/get", "density"), True, "compatible"),
        (("mp/rest/get", "band_gap"), ("mp/rest/get", "efermi"), False, "same route"),
    ],
)
def test_fallback_rules(
    snapshot: RegistrySnapshot, a: tuple[str, str], b: tuple[str, str], ok: bool, reason: str
) -> None:
    ra, fa = _field(snapshot, *a)
    rb, fb = _field(snapshot, *b)
    result, why = fallback_compatible(ra, fa, rb, fb)
    assert result is ok
    assert reason in why


def test_plan_lists_only_compatible_fallbacks(snapshot: RegistrySnapshot) -> None:
    plan = plan_routes(
        PlanRequest(fields=("electronic.band_gap",)), snapshot, ranked=["mp/rest/get"]
    )
    (step,) = plan.steps
    assert step.route_id == "mp/rest/get"
    assert [(f.route_id, f.field) for f in step.fallbacks] == [("oqmd/rest/get", "band_gap")]
    assert step.meta["band_gap"]["license"] == "CC-BY-4.0"
    assert step.meta["band_gap"]["qualifiers"] == {"functional": "PBE"}


def test_retrieval_and_planning_share_the_provenance_rule(snapshot: RegistrySnapshot) -> None:
    from schemarouter.retrieval.candidates import matches_sources

    cod = snapshot.route("cod/rest/get")
    experimental, calculated = [SourceType.EXPERIMENTAL], [SourceType.CALCULATED]
    assert matches_sources(cod, experimental)
    assert not matches_sources(cod, calculated)  # every COD field is experimental
    # unknown provenance cannot be ruled out by a constraint
    unknown = cod.model_copy(
        update={
            "provider": cod.provider.model_copy(update={"source_type": SourceType.UNKNOWN}),
            "endpoint": cod.endpoint.model_copy(
                update={
                    "output_fields": tuple(
                        f.model_copy(update={"source_type": None})
                        for f in cod.endpoint.output_fields
                    )
                }
            ),
        }
    )
    assert matches_sources(unknown, experimental) and matches_sources(unknown, calculated)


class _Mode(enum.Enum):
    COOL = "cool"
    HEAT = "heat"


def electricity_price(region: str, hour: Optional[int] = None) -> float:  # noqa: UP045
    """Day-ahead electricity price per kWh for a region and hour."""
    return 0.2


def forecast(city: str | None = None, day: datetime.date | None = None) -> float:
    """Weather forecast for a city on a day."""
    return 1.0


def set_hvac(
    zone: str, mode: _Mode | None = None, fan: Literal["low", "high"] | None = None
) -> bool:
    """Set the heating and cooling mode and fan speed of a zone."""
    return True


def test_optional_parameters_are_filled_as_their_non_null_type() -> None:
    """Trial M: ``hour: Optional[int]`` stayed open for "hour 18" (``hour: int`` got it), and
    ``day: date | None`` for a date in the request: pydantic writes an optional as
    ``anyOf [X, null]``, and the filler read only a top-level ``type`` / ``format``."""
    from schemarouter import SchemaRouter
    from schemarouter.retrieval.values import value_schema

    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_callable([electricity_price, forecast, set_hvac], provider="home", effect="read")
    for query in (
        'electricity price region "ES" hour 18',
        "electricity price region: ES, hour: 18",
        'electricity price region="ES" hour=18',
    ):
        (step,) = router.plan(query).steps
        assert step.route_id == "home/python/electricity_price"
        assert step.arguments == {"region": "ES", "hour": 18}
    (step,) = router.plan('weather forecast city "Paris" on 2025-07-03').steps
    assert step.arguments == {"city": "Paris", "day": "2025-07-03"}
    (step,) = router.plan("set the hvac of zone: attic to heat with the fan high").steps
    assert step.arguments == {"zone": "attic", "mode": "heat", "fan": "high"}
    # and an OpenAPI 3.1 ``type: [integer, "null"]``
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Prices", "version": "1"},
        "servers": [{"url": "https://prices.example"}],
        "paths": {
            "/price": {
                "get": {
                    "operationId": "hourlyPrice",
                    "summary": "Electricity price per kWh for an hour",
                    "parameters": [
                        {"name": "hour", "in": "query", "schema": {"type": ["integer", "null"]}}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    other = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    other.add_openapi(document, provider="prices")
    (step,) = other.plan("electricity price for hour 18").steps
    assert step.arguments == {"hour": 18}
    assert value_schema({"oneOf": [{"type": "null"}, {"type": "number"}]}) == {"type": "number"}
