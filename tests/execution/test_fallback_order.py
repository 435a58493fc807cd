"""Of a step's fallbacks, one that changes nothing beside the route is tried before one that
changes source type or licence (trial T3: a Korean team's DFT database went down and its
value came from their lab's measured, non-commercial route though their own DFT mirror,
same provenance and licence, was registered and up: the listed order was the route ids')."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest

from servers.loopback import LoopbackServer, Request, Response, json_response

CALC, LAB, MIRROR = (
    "kmat_calc/rest/bulk_modulus",
    "kmat_lab/rest/bulk_modulus",
    "kmat_mirror/rest/bulk_modulus",
)


def _provider(pid: str, source_type: str, license: str, unit: str, scale: float, base: str) -> Any:
    prefix = pid.split("_")[1]
    return {
        "id": pid,
        "display_name": pid.replace("_", " ").title(),
        "license": license,
        "source_type": source_type,
        "access": [
            {
                "id": "rest",
                "kind": "http",
                "base_url": base,
                "endpoints": [
                    {
                        "id": "bulk_modulus",
                        "name": f"GET /{prefix}/bulk",
                        "operation": {"method": "GET", "path": f"/{prefix}/bulk"},
                        "summary": f"{pid}: bulk modulus of a compound by formula.",
                        "parameters": [
                            {
                                "name": "formula",
                                "location": "query",
                                "required": True,
                                "json_schema": {"type": "string"},
                                "semantic_id": "chemical.formula",
                            }
                        ],
                        "output_fields": [
                            {
                                "name": "bulk_modulus",
                                "path": "bulk_modulus",
                                "json_schema": {"type": "number"},
                                "semantic_id": "mechanical.bulk_modulus",
                                "unit": unit,
                                "dimension": "pressure",
                                "normalization": {
                                    "source_unit": unit,
                                    "canonical_unit": "GPa",
                                    "dimension": "pressure",
                                    "scale": scale,
                                },
                            }
                        ],
                    }
                ],
            }
        ],
    }


def _app(request: Request) -> Response:
    if request.path.startswith("/calc/"):
        return json_response({"detail": "DFT database down"}, status=503)
    value = {"/lab/bulk": 143.0, "/mirror/bulk": 141.0}[request.path]
    return json_response({"bulk_modulus": value})


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    with LoopbackServer(_app) as server:
        catalog = {
            "schemarouter_catalog": 1,
            "providers": [
                # the primary sends kbar; both others GPa: all three normalize to GPa
                _provider("kmat_calc", "calculated", "CC-BY-4.0", "kbar", 0.1, server.base_url),
                _provider("kmat_lab", "experimental", "CC-BY-NC-4.0", "GPa", 1.0, server.base_url),
                _provider("kmat_mirror", "calculated", "CC-BY-4.0", "GPa", 1.0, server.base_url),
            ],
        }
        path = tmp_path / "kmat.yaml"
        path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        yield router, server


def test_a_fallback_that_changes_nothing_is_tried_first(stack: Any) -> None:
    router, server = stack
    plan = router.plan(PlanRequest(fields=("mechanical.bulk_modulus",)))
    plan = plan.with_arguments(0, {"formula": "ZnO"})
    assert plan.route_ids == (CALC,)
    fallbacks = plan.steps[0].fallbacks
    # before: [kmat_lab, kmat_mirror], the route ids' order
    assert [f.route_id for f in fallbacks] == [MIRROR, LAB]
    assert fallbacks[0].changes == ()
    assert fallbacks[1].changes == (
        "source type calculated -> experimental",
        "license CC-BY-4.0 -> CC-BY-NC-4.0",
    )
    result = router.execute(plan, policy=ExecutionPolicy(max_attempts=1))
    value = result.steps[0].fields["bulk_modulus"]
    assert (value.value, value.unit, value.route_id) == (141.0, "GPa", MIRROR)
    assert (value.source_type, value.license, value.fallback_for) == (
        "calculated",
        "CC-BY-4.0",
        CALC,
    )
    assert [u.to_route for u in result.steps[0].fallbacks] == [MIRROR]
    assert not any("stood in" in w for w in result.warnings)
    # the lab's measured, non-commercial route was never called
    assert [r.path for r in server.requests] == ["/calc/bulk", "/mirror/bulk"]


def _invalid_then_mirror(request: Request) -> Response:
    if request.path.startswith("/calc/"):
        # the primary sends its number as text with a unit: it breaks the declared schema
        return json_response({"bulk_modulus": "1420 kbar"})
    return json_response(
        {"bulk_modulus": {"/lab/bulk": 143.0, "/mirror/bulk": 141.0}[request.path]}
    )


@pytest.mark.parametrize("partial", [False, True])
def test_a_field_that_breaks_its_schema_is_taken_from_a_fallback_under_partial_too(
    tmp_path: Path, partial: bool
) -> None:
    """Without partial the invalid field failed the step and the fallback served it; with
    partial=True (keep what validates) the same field came back None, 'invalid', and the
    listed fallback was never called."""
    with LoopbackServer(_invalid_then_mirror) as server:
        catalog = {
            "schemarouter_catalog": 1,
            "providers": [
                _provider("kmat_calc", "calculated", "CC-BY-4.0", "kbar", 0.1, server.base_url),
                _provider("kmat_mirror", "calculated", "CC-BY-4.0", "GPa", 1.0, server.base_url),
            ],
        }
        path = tmp_path / "kmat.yaml"
        path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        plan = router.plan(PlanRequest(fields=("mechanical.bulk_modulus",)))
        plan = plan.with_arguments(0, {"formula": "ZnO"})
        assert plan.route_ids == (CALC,)
        result = router.execute(plan, partial=partial, policy=ExecutionPolicy(max_attempts=1))
        step = result.steps[0]
        value = step.fields["bulk_modulus"]
        assert (value.value, value.unit, value.route_id, value.status) == (
            141.0,
            "GPa",
            MIRROR,
            "ok",
        )
        assert value.fallback_for == CALC
        (use,) = step.fallbacks
        assert use.used and use.to_route == MIRROR and "1420 kbar" in use.reason
        assert step.status == "fallback"
        assert [r.path for r in server.requests] == ["/calc/bulk", "/mirror/bulk"]


def _down_with_density(request: Request) -> Response:
    if request.path.startswith("/calc/"):
        return Response(200, b"<html>proxy error</html>", {"Content-Type": "text/html"})
    return json_response({"bulk_modulus": 141.0})


def test_an_error_raised_after_a_fallback_served_says_what_it_served(tmp_path: Path) -> None:
    """The primary answered garbage; the mirror served the bulk modulus, but the density the
    plan also needs has no fallback, so execute raises. Before, the error named only the
    garbage: nothing said the mirror had been called and served, nor what to do to keep it."""
    with LoopbackServer(_down_with_density) as server:
        calc = _provider("kmat_calc", "calculated", "CC-BY-4.0", "kbar", 0.1, server.base_url)
        calc["access"][0]["endpoints"][0]["output_fields"].append(
            {
                "name": "density",
                "path": "density",
                "json_schema": {"type": "number"},
                "semantic_id": "structure.density",
                "unit": "g/cm^3",
            }
        )
        mirror = _provider("kmat_mirror", "calculated", "CC-BY-4.0", "GPa", 1.0, server.base_url)
        path = tmp_path / "kmat.yaml"
        catalog = {"schemarouter_catalog": 1, "providers": [calc, mirror]}
        path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        plan = router.plan(PlanRequest(fields=("mechanical.bulk_modulus", "structure.density")))
        plan = plan.with_arguments(0, {"formula": "ZnO"})
        assert plan.route_ids == (CALC,)
        with pytest.raises(InvocationError) as raised:
            router.execute(plan, policy=ExecutionPolicy(max_attempts=1))
        message = str(raised.value)
        assert "not valid JSON" in message
        assert f"{MIRROR} served bulk_modulus" in message
        assert "density" in message and "partial=True" in message
        assert [r.path for r in server.requests] == ["/calc/bulk", "/mirror/bulk"]
        # and partial=True keeps what the mirror served
        result = router.execute(plan, partial=True, policy=ExecutionPolicy(max_attempts=1))
        assert result.steps[0].fields["bulk_modulus"].value == 141.0
        assert result.steps[0].fields["density"].status == "missing"


def _gap(request: Request) -> Response:
    if request.path.startswith("/calc/"):
        return json_response({"detail": "DFT database down"}, status=503)
    return json_response({"band_gap": 3.31})


def _gap_provider(pid: str, unit: str, spec: dict[str, Any] | None, base: str) -> Any:
    provider = _provider(pid, "calculated", "CC-BY-4.0", "GPa", 1.0, base)
    field: dict[str, Any] = {
        "name": "band_gap",
        "path": "band_gap",
        "json_schema": {"type": "number"},
        "semantic_id": "electronic.band_gap",
        "unit": unit,
        "dimension": "energy",
    }
    if spec is not None:
        field["normalization"] = spec
    provider["access"][0]["endpoints"][0]["output_fields"] = [field]
    return provider


@pytest.mark.parametrize(("mirror_dimension", "falls_back"), [("energy", True), (None, False)])
def test_a_field_declared_in_the_canonical_unit_stands_in_for_one_normalized_to_it(
    tmp_path: Path, mirror_dimension: str | None, falls_back: bool
) -> None:
    """The primary sends meV and declares meV -> eV; the mirror sends eV, the canonical unit,
    and declares no conversion (there is none to make). Before, the mirror was no fallback
    ("units differ (meV vs eV) without a declared normalization") and the plan listed none,
    though both values compare in eV. A mirror that does not declare its dimension is still
    none: nothing says its eV is the same quantity's."""
    meV_eV = {"source_unit": "meV", "canonical_unit": "eV", "dimension": "energy", "scale": 0.001}
    with LoopbackServer(_gap) as server:
        calc = _gap_provider("kmat_calc", "meV", meV_eV, server.base_url)
        mirror = _gap_provider("kmat_mirror", "eV", None, server.base_url)
        field = mirror["access"][0]["endpoints"][0]["output_fields"][0]
        if mirror_dimension is None:
            del field["dimension"]
        path = tmp_path / "kmat.yaml"
        catalog = {"schemarouter_catalog": 1, "providers": [calc, mirror]}
        path.write_text(yaml.safe_dump(catalog, allow_unicode=True), "utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        plan = router.plan(PlanRequest(fields=("electronic.band_gap",)))
        plan = plan.with_arguments(0, {"formula": "ZnO"})
        assert plan.route_ids == (CALC,)
        fallbacks = [f.route_id for f in plan.steps[0].fallbacks]
        assert fallbacks == ([MIRROR] if falls_back else [])
        result = router.execute(plan, partial=True, policy=ExecutionPolicy(max_attempts=1))
        value = result.steps[0].fields["band_gap"]
        if falls_back:
            assert (value.value, value.unit, value.route_id) == (3.31, "eV", MIRROR)
        else:
            assert value.status == "missing"
