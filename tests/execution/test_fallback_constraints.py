"""A fallback keeps to the request's provenance filter and named providers, and says when it
changes source type or licence (trial Q §2: a 'measured' request fell back to a calculated,
non-commercial route and delivered its value with no warning)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.contracts import SourceType
from schemarouter.errors import InvocationError
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.planning.fallbacks import Fallback
from schemarouter.planning.planner import PlanRequest

from servers.loopback import LoopbackServer, Request, Response, json_response

EXP, DFT = "lab_exp/rest/bulk_modulus", "lab_dft/rest/bulk_modulus"
ONCE = ExecutionPolicy(max_attempts=1)


def _provider(pid: str, source_type: str, license: str, prefix: str, base: str) -> dict[str, Any]:
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
                                "name": "formula",
                                "path": "formula",
                                "json_schema": {"type": "string"},
                                "semantic_id": "chemical.formula",
                                "identifier": True,
                            },
                            {
                                "name": "bulk_modulus",
                                "path": "bulk_modulus_gpa",
                                "json_schema": {"type": "number"},
                                "semantic_id": "mechanical.bulk_modulus",
                                "aliases": ["bulk modulus"],
                                "unit": "GPa",
                                "dimension": "pressure",
                                "normalization": {
                                    "source_unit": "GPa",
                                    "canonical_unit": "Pa",
                                    "dimension": "pressure",
                                    "scale": 1e9,
                                },
                                "qualifiers": {"temperature": "300 K"},
                            },
                        ],
                    }
                ],
            }
        ],
    }


#: Path prefixes the server answers 503 for.
DOWN: list[str] = []


def _app(request: Request) -> Response:
    if any(request.path.startswith(p) for p in DOWN):
        return json_response({"detail": "instrument DB down"}, status=503)
    return json_response({"formula": "GaN", "bulk_modulus_gpa": 172.0})


@pytest.fixture
def lab(tmp_path: Path) -> Any:
    DOWN[:] = ["/exp/"]
    with LoopbackServer(_app) as server:
        catalog = {
            "schemarouter_catalog": 1,
            "providers": [
                _provider("lab_exp", "experimental", "CC-BY-4.0", "exp", server.base_url),
                _provider("lab_dft", "calculated", "CC-BY-NC-4.0", "dft", server.base_url),
            ],
        }
        path = tmp_path / "lab.yaml"
        path.write_text(yaml.safe_dump(catalog), "utf-8")
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_catalog(path)
        yield router, server


def test_a_measured_request_never_falls_back_to_a_calculated_route(lab: Any) -> None:
    router, server = lab
    plan = router.plan("measured bulk modulus of GaN")
    assert plan.request.source_types == (SourceType.EXPERIMENTAL,)
    assert plan.route_ids == (EXP,)
    assert plan.steps[0].fallbacks == ()  # the calculated route does not qualify
    with pytest.raises(InvocationError, match="HTTP 503"):
        router.execute(plan, policy=ONCE)
    assert [r.path for r in server.requests] == ["/exp/bulk"]  # the DFT route never called
    # the same holds for a filter given explicitly, and for a named provider
    for request in (
        PlanRequest(fields=("mechanical.bulk_modulus",), source_types=("experimental",)),
        PlanRequest(fields=("mechanical.bulk_modulus",), providers=("lab_exp",)),
    ):
        (step,) = router.plan(request).steps
        assert step.route_id == EXP and step.fallbacks == ()


def test_a_fallback_planned_outside_the_filter_is_not_used(lab: Any) -> None:
    """A plan carrying such a fallback (made by hand, or by an older planner) is refused it
    at execution: the use is recorded as skipped and the step fails."""
    router, server = lab
    plan = router.plan("measured bulk modulus of GaN")
    dft = router.registry.snapshot().routes[DFT]
    forged = Fallback(
        semantic_id="mechanical.bulk_modulus",
        route_id=DFT,
        field="bulk_modulus",
        fingerprint=dft.fingerprint,
    )
    step = plan.steps[0].model_copy(update={"fallbacks": (forged,)})
    plan = plan.model_copy(update={"steps": (step,)})
    result = router.execute(plan, policy=ONCE, partial=True)
    (use,) = result.steps[0].fallbacks
    assert not use.used and "source type 'calculated'" in str(use.skipped)
    assert result.steps[0].fields["bulk_modulus"].status == "missing"
    assert [r.path for r in server.requests] == ["/exp/bulk"]


def test_an_unfiltered_fallback_says_it_changes_source_type_and_licence(lab: Any) -> None:
    router, server = lab
    # no filter: with no rank to break the tie, the route id does (lab_dft before lab_exp)
    plan = router.plan(PlanRequest(fields=("mechanical.bulk_modulus",)))
    plan = plan.with_arguments(0, {"formula": "GaN"})
    assert plan.route_ids == (DFT,)
    (fallback,) = plan.steps[0].fallbacks
    assert fallback.route_id == EXP
    assert fallback.changes == (
        "source type calculated -> experimental",
        "license CC-BY-NC-4.0 -> CC-BY-4.0",
    )
    DOWN[:] = ["/dft/"]
    result = router.execute(plan, policy=ONCE)
    value = result.steps[0].fields["bulk_modulus"]
    assert value.value == 172e9 and value.route_id == EXP and value.fallback_for == DFT
    assert value.source_type == "experimental" and value.license == "CC-BY-4.0"
    (use,) = result.steps[0].fallbacks
    assert use.used and use.changes == fallback.changes
    assert any(EXP in w and "license CC-BY-NC-4.0 -> CC-BY-4.0" in w for w in result.warnings)
    assert [r.path for r in server.requests] == ["/dft/bulk", "/exp/bulk"]
