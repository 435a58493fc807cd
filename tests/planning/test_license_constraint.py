"""A licence policy (user trial U4): a lab whose answers may carry no non-commercial or
proprietary values. A literature service serves one band gap three ways: open (CC-BY-4.0), a
non-commercial compilation (CC-BY-NC-4.0) and a proprietary handbook. No request could leave
a licence out: the non-commercial route was planned, or listed and used as a fallback of the
open one (its licence change only warned of). ``PlanRequest(licenses=...)`` now keeps a route
whose output is under another licence from being planned or falling back, and says why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

ROUTES = {  # endpoint id -> (path, licence of its fields, value)
    "open_band_gap": ("/open/band_gap", None, 1.12),
    "nc_band_gap": ("/nc/band_gap", "CC-BY-NC-4.0", 1.11),
    "handbook_band_gap": ("/handbook/band_gap", "LicenseRef-Proprietary", 1.13),
}


def _catalog(base_url: str) -> str:
    endpoints = []
    for endpoint, (path, license, _) in ROUTES.items():
        own = f", license: {license}" if license else ""
        endpoints.append(
            f"""
          - id: {endpoint}
            name: GET {path}
            operation: {{method: GET, path: {path}}}
            summary: Band gap of a semiconductor ({endpoint}).
            parameters:
              - {{name: formula, location: query, required: true, json_schema: {{type: string}},
                  semantic_id: chemical.formula}}
            output_fields:
              - {{name: band_gap, path: band_gap, json_schema: {{type: number}}, unit: eV,
                  semantic_id: electronic.band_gap{own}}}"""
        )
    return f"""
schemarouter_catalog: 1
providers:
  - id: literature
    display_name: Literature Values
    license: CC-BY-4.0
    source_type: literature
    access:
      - id: rest
        kind: http
        base_url: {base_url}
        endpoints:{"".join(endpoints)}
"""


class _App:
    def __init__(self) -> None:
        self.failing: set[str] = set()

    def __call__(self, request: Request) -> Response:
        if request.path in self.failing:
            return json_response({"detail": "down"}, status=500)
        value = next(v for path, _, v in ROUTES.values() if path == request.path)
        return json_response({"band_gap": value})


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[Any, LoopbackServer, _App]]:
    app = _App()
    with LoopbackServer(app) as server:
        (tmp_path / "literature.yaml").write_text(_catalog(server.base_url))
        with SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        ) as router:
            router.add_catalog(tmp_path / "literature.yaml")
            yield router, server, app


def _request(**options: Any) -> PlanRequest:
    return PlanRequest(query="band gap of Si", fields=("electronic.band_gap",), **options)


ONCE = ExecutionPolicy(max_attempts=1, backoff=0)


def test_a_route_under_a_licence_not_allowed_is_neither_planned_nor_a_fallback(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    router, server, app = lab
    unrestricted = router.plan(_request())
    listed = {unrestricted.route_ids[0], *(f.route_id for f in unrestricted.steps[0].fallbacks)}
    assert "literature/rest/nc_band_gap" in listed  # before: nothing could leave it out

    plan = router.plan(_request(licenses=("CC-BY-4.0",)))
    assert plan.route_ids == ("literature/rest/open_band_gap",)
    assert plan.steps[0].fallbacks == ()
    said = " ".join(plan.warnings)
    assert "literature/rest/nc_band_gap is not planned for 'electronic.band_gap'" in said
    assert "under CC-BY-NC-4.0, which the request does not allow" in said
    assert "literature/rest/handbook_band_gap" in said and "LicenseRef-Proprietary" in said

    result = router.execute(plan, policy=ONCE)
    value = result.steps[0].fields["band_gap"]
    assert (value.value, value.license) == (1.12, "CC-BY-4.0")

    # the open route fails: nothing stands in for it, and the others are never asked
    app.failing.add("/open/band_gap")
    failed = router.execute(plan, policy=ONCE, partial=True)
    assert failed.steps[0].status == "failed"
    assert failed.steps[0].fields["band_gap"].value is None
    assert {r.path for r in server.requests} == {"/open/band_gap"}


def test_a_listed_fallback_outside_the_requests_licences_is_skipped_at_execution(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    """Execution checks each fallback against the plan's request again: one a plan lists
    (made before the policy, or edited) that the request's licences leave out is not called."""
    router, server, app = lab
    plan = router.plan(_request())
    primary = router.snapshot().routes[plan.route_ids[0]]
    allowed = (primary.field_license(primary.endpoint.field("band_gap")) or "",)
    assert plan.steps[0].fallbacks  # listed while any licence was allowed
    strict = plan.model_copy(
        update={"request": plan.request.model_copy(update={"licenses": allowed})}
    )
    app.failing.add(primary.endpoint.operation.path or "")
    result = router.execute(strict, policy=ONCE, partial=True)
    (step,) = result.steps
    assert step.status == "failed"
    assert [u.used for u in step.fallbacks] == [False] * len(step.fallbacks)
    assert all("which this run does not allow" in (u.skipped or "") for u in step.fallbacks)
    assert {r.path for r in server.requests} == {primary.endpoint.operation.path}


def test_no_route_under_an_allowed_licence_leaves_the_plan_empty_and_says_why(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    plan = lab[0].plan(_request(licenses=("MIT",)))
    assert plan.steps == ()
    said = " ".join(plan.warnings) + plan.reason
    assert (
        "'electronic.band_gap' is served only by routes the request's constraints exclude" in said
    )
    assert "literature/rest/open_band_gap is not planned" in said and "allows MIT" in said


def test_a_hand_edited_plan_or_a_call_under_a_licence_not_allowed_is_refused(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    """Trial U4 (medium): the licence rule held for planning and fallbacks only. A plan
    whose step was edited to the non-commercial route still ran, and ``router.call`` of it
    had no rule at all. A plan runs under its request's licences now, and ``execute`` /
    ``call`` take ``allow_licenses``; nothing is sent for a refused route."""
    from schemarouter.errors import ArgumentError, PolicyError

    router, server, _ = lab
    snapshot = router.snapshot()
    plan = router.plan(_request(licenses=("CC-BY-4.0",)))
    nc = snapshot.routes["literature/rest/nc_band_gap"]
    edited = plan.model_copy(
        update={
            "steps": (
                plan.steps[0].model_copy(
                    update={"route_id": nc.route_id, "fingerprint": nc.fingerprint}
                ),
            )
        }
    )
    with pytest.raises(PolicyError, match=r"under CC-BY-NC-4\.0, which this run does not allow"):
        router.execute(edited, policy=ONCE)
    arguments = {"formula": "Si"}
    with pytest.raises(PolicyError, match=r"it allows CC-BY-4\.0, CC0-1\.0\)") as refused:
        router.call(nc.route_id, arguments, allow_licenses=["CC-BY-4.0", "CC0-1.0"])
    assert "allow_licenses" in str(refused.value.hint)
    assert server.requests == []  # nothing was sent
    ok = router.call("literature/rest/open_band_gap", arguments, allow_licenses=["CC-BY-4.0"])
    assert ok.fields["band_gap"].value == 1.12
    assert router.call(nc.route_id, arguments).fields["band_gap"].value == 1.11  # no rule: any
    with pytest.raises(ArgumentError, match="list of license names"):
        router.call(nc.route_id, arguments, allow_licenses="CC-BY-4.0")  # type: ignore[arg-type]


def test_retrieval_leaves_out_routes_under_a_licence_the_state_does_not_allow(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    from schemarouter.retrieval.state import ExecutionState

    router = lab[0]
    state = ExecutionState(allowed_licenses=frozenset({"CC-BY-4.0"}))
    found = router.retrieve_executable("band gap of a semiconductor", k=3, state=state)
    assert found.route_ids == ("literature/rest/open_band_gap",)
    reasons = {e.route_id: (e.reason, e.detail) for e in found.exclusions}
    assert reasons["literature/rest/nc_band_gap"] == (
        "license",
        "its output is under CC-BY-NC-4.0; allowed: CC-BY-4.0",
    )
    assert "2 matching routes are under licenses not allowed" in found.blocked
    assert "ExecutionState(allowed_licenses=...)" in found.blocked
    everything = router.retrieve_executable("band gap of a semiconductor", k=3)
    assert len(everything.route_ids) == 3  # no licence rule: all three


def test_a_licence_is_matched_whatever_its_case_spaces_or_underscores(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    """Trial U4 (low): licences were matched as exact strings, so a policy written "CC BY
    4.0" (as licence deeds write it) left out every CC-BY-4.0 route."""
    from schemarouter.retrieval.state import ExecutionState

    router = lab[0]
    state = ExecutionState(allowed_licenses=frozenset({"cc by 4.0"}))
    found = router.retrieve_executable("band gap of a semiconductor", k=3, state=state)
    assert found.route_ids == ("literature/rest/open_band_gap",)
    arguments = {"formula": "Si"}
    ok = router.call("literature/rest/open_band_gap", arguments, allow_licenses=["CC_BY_4.0"])
    assert ok.fields["band_gap"].value == 1.12
    plan = router.plan(_request(licenses=("Cc-By-4.0",)))
    assert plan.route_ids == ("literature/rest/open_band_gap",)


def test_a_plans_licences_and_the_runs_meet_whatever_their_spelling(
    lab: tuple[Any, LoopbackServer, _App],
) -> None:
    """Trial X1 (medium): a plan's ``licenses`` and ``execute(allow_licenses=...)`` met by
    their exact text, so "CC BY 4.0" asked of a run allowing "CC-BY-4.0" allowed none, and
    the open route was refused ("it allows none") though both name one licence; a generator
    of names allowed none either (read once by the check, empty after)."""
    router, server, _ = lab
    plan = router.plan(_request(licenses=("cc by 4.0",)))
    (step,) = plan.steps
    assert step.route_id == "literature/rest/open_band_gap"
    result = router.execute(plan, policy=ONCE, allow_licenses=["CC-BY-4.0"])
    assert result.steps[0].fields["band_gap"].value == 1.12
    names = (name for name in ["CC-BY-4.0"])
    ok = router.call(step.route_id, {"formula": "Si"}, allow_licenses=names)
    assert ok.fields["band_gap"].value == 1.12
    assert len(server.requests) == 2
