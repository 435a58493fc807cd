"""Faults against a real misbehaving loopback server: timeouts, 5xx (retry, then fallback),
malformed and schema-breaking output, oversized bodies, redirects, path traversal, budgets,
health and cooldowns. Every test here is named in docs/faults.md."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx
import pytest

from schemarouter import SchemaRouter, load_catalog
from schemarouter.errors import (
    BudgetExceededError,
    InvocationError,
    OutputValidationError,
    ParameterValidationError,
    PolicyError,
)
from schemarouter.execution.credentials import MappingCredentials, Redactor
from schemarouter.execution.invokers.http import build_request, origin
from schemarouter.execution.policy import Budget, ExecutionPolicy
from schemarouter.execution.results import ExecutionResult
from schemarouter.planning.fallbacks import Fallback
from schemarouter.planning.planner import Plan

from helpers import BUNDLED_CATALOG
from servers import catalogs
from servers.world import CREDS, MP, Servers

FAST = ExecutionPolicy(backoff=0.01, timeout=2.0)
#: Never marks a route unhealthy (for tests that call a failing route again).
PATIENT = ExecutionPolicy(backoff=0.01, timeout=2.0, failure_threshold=100)
FIELDS = ["material_id", "band_gap"]


@pytest.fixture
def router(served_router: SchemaRouter) -> SchemaRouter:
    return served_router


def _plan(router: SchemaRouter, fault: str, fallbacks: Any = False, **arguments: Any) -> Plan:
    snapshot = router.snapshot()
    route_id = f"faulty/rest/{fault.replace('-', '_')}"
    step = catalogs.step(snapshot, route_id, FIELDS, arguments, fallbacks=fallbacks)
    return catalogs.plan(snapshot, step)


def _run(mode: str, router: SchemaRouter, plan: Plan, **kwargs: Any) -> ExecutionResult:
    kwargs.setdefault("policy", FAST)
    kwargs.setdefault("credentials", CREDS)
    result: ExecutionResult = catalogs.run(mode, router, plan, **kwargs)
    return result


MODES = pytest.mark.parametrize("mode", ["sync", "async"])


def _hits(servers: Servers, path: str) -> int:
    return sum(1 for r in servers.faulty.requests if r.path == path)


# -- timeouts, status codes, retries --------------------------------------------------------


@MODES
def test_slow_server_times_out_and_reads_are_retried(
    mode: str, router: SchemaRouter, servers: Servers
) -> None:
    policy = ExecutionPolicy(timeout=1.0, max_attempts=2, backoff=0.01)
    started = time.monotonic()
    with pytest.raises(InvocationError, match="timed out") as caught:
        _run(mode, router, _plan(router, "slow"), policy=policy)
    assert time.monotonic() - started < 30  # 2 s; the server answers after 60 s
    assert _hits(servers, "/slow") == 2
    assert "faulty/rest/slow" in str(caught.value)
    # "timed out after 1 s" is one attempt's; the error says how many and how long in all
    assert re.search(r"after 2 attempts, \d+\.\d s in all", caught.value.what)


@MODES
def test_5xx_is_retried_with_backoff_then_fails(
    mode: str, router: SchemaRouter, servers: Servers
) -> None:
    with pytest.raises(InvocationError, match="HTTP 500") as caught:
        _run(mode, router, _plan(router, "error500"))
    assert _hits(servers, "/error500") == FAST.max_attempts
    assert getattr(caught.value, "status_code", None) == 500
    assert f"after {FAST.max_attempts} attempts" in caught.value.what


def test_5xx_then_fallback_is_recorded(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "error500", fallbacks=[MP], formula="Si")
    result = _run("sync", router, plan)
    step = result.steps[0]
    assert step.status == "fallback"
    gap = step.fields["band_gap"]
    assert gap.value == [0.61] and gap.route_id == MP and gap.fallback_for == "faulty/rest/error500"
    assert gap.license == "CC-BY-4.0" and gap.source_type == "calculated"  # the fallback's evidence
    (use,) = step.fallbacks
    assert (use.from_route, use.to_route, use.used, use.fields) == (
        "faulty/rest/error500",
        MP,
        True,
        {"band_gap": "band_gap"},
    )
    assert "HTTP 500" in use.reason and use.semantic_ids == ("electronic.band_gap",)
    assert use.identifiers["material_id"].value == ["mp-149"]
    # the identifier the failed route would have given is marked, never silently dropped
    missing = step.fields["material_id"]
    assert missing.status == "missing" and missing.issues[0].kind == "route_failed"
    assert [a.route_id for a in step.attempts] == ["faulty/rest/error500"] * 3 + [MP]
    assert servers.mp.requests[0].query["formula"] == ["Si"]  # argument mapped by semantic id
    assert step.error is not None and step.error.code == "SR602"
    assert not result.complete


def test_repeated_failures_make_a_route_unhealthy(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "error500", fallbacks=[MP], formula="Si")
    _run("sync", router, plan)
    assert not router.is_healthy("faulty/rest/error500")  # 3 failed attempts = threshold
    servers.reset()
    result = _run("sync", router, plan)  # skipped while cooling down: straight to the fallback
    assert _hits(servers, "/error500") == 0
    assert result.steps[0].fields["band_gap"].route_id == MP
    assert "unhealthy" in result.steps[0].fallbacks[0].reason
    # the refusal says how long the cooldown has left (60 s by default) and how to end it
    with pytest.raises(PolicyError, match=r"unhealthy \(cooling down .*, [56]\d s left\)") as no:
        _run("sync", router, _plan(router, "error500"))
    assert "router.mark_healthy('faulty/rest/error500')" in str(no.value.hint)
    assert 50 < router.cooldown_left("faulty/rest/error500") <= 60
    router.mark_healthy("faulty/rest/error500")
    assert router.cooldown_left("faulty/rest/error500") == 0.0
    with pytest.raises(InvocationError):
        _run("sync", router, _plan(router, "error500"), policy=ExecutionPolicy(max_attempts=1))


def test_a_retry_is_not_sent_once_another_call_marked_the_route_unhealthy() -> None:
    """Retries in flight ignored a route just taken out: 50 calls on a failing route sent
    106 requests, 56 of them after it was marked unhealthy (trial G §9). Here the route is
    taken out while the first attempt is answered; the retry is not sent."""
    from schemarouter.index import HashingEncoder

    from servers.loopback import LoopbackServer, Request, Response, json_response
    from servers.user_api import FORECAST, weather_openapi

    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )

    def taken_out(request: Request) -> Response:  # another caller opens the circuit
        router.mark_unhealthy(FORECAST, cooldown=60)
        return json_response({"error": "boom"}, status=500)

    with LoopbackServer(taken_out) as server:
        router.add_openapi(weather_openapi(server.base_url), provider="weather")
        with pytest.raises(InvocationError, match="not retried: the route was marked") as no:
            router.call(FORECAST, {"city": "Paris"}, policy=PATIENT)
        assert len(server.requests) == 1
    assert "HTTP 500" in no.value.what and "after 1 attempt," in no.value.what


def test_flaky_server_recovers_within_the_attempts(router: SchemaRouter, servers: Servers) -> None:
    result = _run("sync", router, _plan(router, "flaky"))
    assert [a.status_code for a in result.steps[0].attempts] == [503, 503, 200]
    assert [a.ok for a in result.steps[0].attempts] == [False, False, True]
    assert result.steps[0].status == "ok" and result.field("band_gap").value == [0.61]
    assert router.is_healthy("faulty/rest/flaky")  # a success resets the count


def test_4xx_is_not_retried_and_not_a_health_failure(
    router: SchemaRouter, servers: Servers
) -> None:
    for _ in range(4):
        with pytest.raises(InvocationError, match="HTTP 404"):
            _run("sync", router, _plan(router, "not-found"))
    assert _hits(servers, "/not-found") == 4
    assert router.is_healthy("faulty/rest/not_found")


def test_writes_are_never_retried_nor_replaced(router: SchemaRouter, servers: Servers) -> None:
    snapshot = router.snapshot()
    plan = catalogs.plan(
        snapshot, catalogs.step(snapshot, "faulty/rest/store_fail", FIELDS, {"formula": "Si"})
    )
    with pytest.raises(InvocationError, match="HTTP 500") as caught:
        _run("sync", router, plan, allow_effects={"read", "write"}, approve=lambda r, a: True)
    assert _hits(servers, "/error500") == 1
    assert "attempts" not in caught.value.what  # one attempt: nothing to add
    assert plan.steps[0].fallbacks == ()  # the planner lists none for a write route


# -- bodies --------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["malformed", "html"])
def test_malformed_or_non_json_body(fault: str, router: SchemaRouter, servers: Servers) -> None:
    with pytest.raises(InvocationError, match="not valid JSON"):
        _run("sync", router, _plan(router, fault))
    assert _hits(servers, f"/{fault}") == 1  # not retried


def test_schema_breaking_output_strict_and_partial(router: SchemaRouter) -> None:
    with pytest.raises(OutputValidationError) as caught:
        _run("sync", router, _plan(router, "schema-break"))
    assert getattr(caught.value, "json_path", None) == "$.data[1].band_gap"
    assert "$.data[1].band_gap" in str(caught.value)

    result = _run("sync", router, _plan(router, "schema-break"), partial=True)
    gap = result.steps[0].fields["band_gap"]
    assert gap.status == "partial" and gap.value == [0.61, None] and gap.raw_value == [0.61, "wide"]
    (issue,) = gap.issues
    assert (issue.kind, issue.path) == ("invalid", "$.data[1].band_gap")
    assert result.steps[0].fields["material_id"].status == "ok"
    assert result.steps[0].status == "partial" and result.partial and not result.complete


def test_missing_fields_strict_and_partial(router: SchemaRouter) -> None:
    with pytest.raises(OutputValidationError, match="missing") as caught:
        _run("sync", router, _plan(router, "missing-field"))
    assert getattr(caught.value, "json_path", None) == "$.data[0].band_gap"
    result = _run("sync", router, _plan(router, "missing-field"), partial=True)
    gap = result.steps[0].fields["band_gap"]
    assert gap.value == [None, 1.5] and gap.issues[0].kind == "missing"


def test_zero_rows_is_a_missing_field_not_a_complete_result(router: SchemaRouter) -> None:
    """{"data": []} answered "ok" with ``complete`` True: an agent checking it believed it
    had the value (a user trial). The planned fields are missing, as an absent key is."""
    with pytest.raises(OutputValidationError, match=r"no value: \$\.data lists nothing"):
        _run("sync", router, _plan(router, "empty-rows"))
    result = _run("sync", router, _plan(router, "empty-rows"), partial=True)
    gap = result.steps[0].fields["band_gap"]
    assert gap.status == "missing" and gap.issues[0].path == "$.data"
    assert not result.complete


def test_declared_output_schema_is_enforced(router: SchemaRouter) -> None:
    with pytest.raises(OutputValidationError, match="output schema") as caught:
        _run("sync", router, _plan(router, "good_strict"))
    assert getattr(caught.value, "json_path", None) == "$.meta"
    result = _run("sync", router, _plan(router, "good_strict"), partial=True)
    assert [i.path for i in result.steps[0].issues] == ["$.meta"]
    assert result.steps[0].fields["band_gap"].status == "ok"  # not under the broken part
    assert result.steps[0].status == "partial"  # the step still says its output was off


@MODES
@pytest.mark.parametrize("fault", ["oversized", "oversized-stream"])
def test_oversized_bodies_stop_at_the_cap(
    mode: str, fault: str, router: SchemaRouter, servers: Servers
) -> None:
    policy = ExecutionPolicy(max_response_bytes=64 * 1024, backoff=0.01)
    started = time.monotonic()
    with pytest.raises(InvocationError, match="larger than the cap"):
        _run(mode, router, _plan(router, fault), policy=policy)
    assert time.monotonic() - started < 30  # only a hang could pass it
    assert _hits(servers, f"/{fault}") == 1


# -- redirects and paths ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault", ["redirect-away", "redirect-host", "redirect-scheme", "redirect-userinfo"]
)
def test_redirect_to_another_host_scheme_or_port_is_refused(
    fault: str, router: SchemaRouter, servers: Servers
) -> None:
    with pytest.raises(InvocationError, match="another origin"):
        _run("sync", router, _plan(router, fault))
    assert servers.faulty.paths() == [f"/{fault}"]  # the redirect target was never asked
    assert servers.elsewhere.requests == []


@MODES
def test_redirect_to_another_origin_is_refused(
    mode: str, router: SchemaRouter, servers: Servers
) -> None:
    seen: list[httpx.URL] = []
    hooks = {"request": [lambda request: seen.append(request.url)]} if mode == "sync" else {}
    client = httpx.Client(event_hooks=hooks) if mode == "sync" else None
    try:
        kwargs = {"client": client} if client else {}
        with pytest.raises(InvocationError, match="another origin"):
            _run(mode, router, _plan(router, "redirect-away"), **kwargs)
    finally:
        if client:
            client.close()
    assert servers.elsewhere.requests == []
    assert all(origin(url) == origin(servers.faulty.base_url) for url in seen)


@MODES
def test_redirect_within_the_origin_is_followed(
    mode: str, router: SchemaRouter, servers: Servers
) -> None:
    result = _run(mode, router, _plan(router, "redirect-home"))
    assert result.field("band_gap").value == [0.61]
    assert servers.faulty.paths() == ["/redirect-home", "/good?from=redirect"]
    assert result.calls == 2


def test_a_redirected_post_becomes_a_get_without_its_body(
    router: SchemaRouter, servers: Servers
) -> None:
    snapshot = router.snapshot()
    step = catalogs.step(snapshot, "faulty/rest/store_redirect", FIELDS, {"body": {"a": 1}})
    plan = catalogs.plan(snapshot, step)
    _run("sync", router, plan, allow_effects={"read", "write"}, approve=lambda r, a: True)
    first, second = servers.faulty.requests
    assert (first.method, first.body) == ("POST", b'{"a":1}')
    assert (second.method, second.raw_path, second.body) == ("GET", "/good?from=redirect", b"")
    assert "Content-Type" not in second.headers


def test_redirect_loops_are_bounded(router: SchemaRouter, servers: Servers) -> None:
    with pytest.raises(InvocationError, match="more than 2 redirects"):
        _run(
            "sync", router, _plan(router, "redirect-loop"), policy=ExecutionPolicy(max_redirects=2)
        )
    assert _hits(servers, "/redirect-loop") == 3


@pytest.mark.parametrize(
    ("value", "seen"),
    [
        ("a/b", "/echo/a%2Fb"),
        ("a%2Fb", "/echo/a%252Fb"),
        ("http://evil.example/x", "/echo/http%3A%2F%2Fevil.example%2Fx"),
        ("x?admin=1#frag", "/echo/x%3Fadmin%3D1%23frag"),
        ("..a", "/echo/..a"),
        ("Fe₂O₃", "/echo/Fe%E2%82%82O%E2%82%83"),
    ],
)
def test_path_parameters_stay_inside_their_segment(
    value: str, seen: str, router: SchemaRouter, servers: Servers
) -> None:
    result = _run("sync", router, _plan(router, "echo", material=value))
    assert servers.faulty.paths() == [seen]
    assert result.field("material_id").value == [seen]  # what the server received


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"material": ".."}, "$.material"),
        ({"material": "."}, "$.material"),
        ({"material": ""}, "$.material"),
        # sent encoded (..%2F..%2Fadmin), a server or proxy that decodes %2F before it
        # routes climbed out of /echo (trial X4)
        ({"material": "../../admin"}, "$.material"),
        ({"material": "%2F..%2Fadmin"}, "$.material"),
        ({"material": "..;x"}, "$.material"),
        ({"material": "..\\admin"}, "$.material"),
        # full-width and look-alike forms, which a server that folds Unicode (NFKC) reads
        # as ../ (trial Z1: each was sent, percent-encoded)
        ({"material": "x／..／admin"}, "$.material"),
        ({"material": "x／．．／admin"}, "$.material"),
        ({"material": "‥"}, "$.material"),
        ({"material": "x∕..∕admin"}, "$.material"),
        ({"material": "x", "note": "a\r\nX-Injected: 1"}, "$.note"),
        ({"material": "x", "note": "caf\u00e9"}, "$.note"),
        ({"material": "A" * 70_000}, "arguments"),
        ({"material": "x", "q": "B" * 70_000}, "arguments"),
    ],
)
def test_unsafe_path_and_header_values_are_refused_before_any_call(
    arguments: dict[str, Any], path: str, router: SchemaRouter, servers: Servers
) -> None:
    with pytest.raises(ParameterValidationError) as caught:
        _run("sync", router, _plan(router, "echo", **arguments))
    assert path in str(caught.value)
    assert servers.faulty.requests == []


def test_query_values_cannot_add_parameters(router: SchemaRouter, servers: Servers) -> None:
    _run("sync", router, _plan(router, "echo", material="x", q="1&admin=true"))
    (request,) = servers.faulty.requests
    assert request.query == {"q": ["1&admin=true"]}


# -- budgets ---------------------------------------------------------------------------------


def test_call_budget(router: SchemaRouter, servers: Servers) -> None:
    with pytest.raises(BudgetExceededError, match="call budget of 2"):
        _run("sync", router, _plan(router, "flaky"), budget=Budget(max_calls=2))
    assert _hits(servers, "/flaky") == 2


@MODES
def test_byte_budget(mode: str, router: SchemaRouter) -> None:
    with pytest.raises(BudgetExceededError, match="byte budget"):
        _run(mode, router, _plan(router, "oversized"), budget=Budget(max_bytes=10_000))


@MODES
def test_time_budget(mode: str, router: SchemaRouter) -> None:
    started = time.monotonic()
    with pytest.raises(BudgetExceededError, match="time budget"):
        _run(mode, router, _plan(router, "slow"), budget=Budget(max_seconds=0.3))
    assert time.monotonic() - started < 30  # 0.3 s; the server answers after 60 s


def test_budget_spent_by_fallbacks_too(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "error500", fallbacks=[MP], formula="Si")
    with pytest.raises(BudgetExceededError):
        _run("sync", router, plan, budget=Budget(max_calls=3))
    assert servers.mp.requests == []


@MODES
def test_a_spent_budget_under_partial_keeps_the_steps_that_ran(
    mode: str, router: SchemaRouter, servers: Servers
) -> None:
    """``partial=True``: the step that ran keeps its output, the step the budget stops is
    failed with the budget's error, and later steps are never called (before, the error
    was raised and the finished steps were lost)."""
    snapshot = router.snapshot()
    steps = [
        catalogs.step(snapshot, f"faulty/rest/{name}", FIELDS, {"formula": "Si"}, fallbacks=False)
        for name in ("good", "error500", "good")
    ]
    plan = catalogs.plan(snapshot, *steps)
    budget = Budget(max_calls=2)
    with pytest.raises(BudgetExceededError, match="call budget of 2"):
        _run(mode, router, plan, budget=budget, policy=PATIENT)
    servers.faulty.requests.clear()
    result = _run(mode, router, plan, budget=budget, policy=PATIENT, partial=True)
    assert [s.status for s in result.steps] == ["ok", "failed", "failed"]
    assert result.steps[0].fields["band_gap"].status == "ok"
    spent, unrun = result.steps[1].error, result.steps[2].error
    assert spent is not None and spent.code == "SR604" and "call budget of 2" in spent.message
    assert unrun is not None and unrun.message.startswith("not called: call budget of 2")
    assert result.steps[2].attempts == ()
    assert {f.status for f in result.steps[2].fields.values()} == {"missing"}
    # the good step once, the failing one once (its retry is where the budget ran out)
    assert _hits(servers, "/good") == 1 and _hits(servers, "/error500") == 1
    assert any("not called (partial=True)" in w for w in result.warnings)
    json.loads(result.model_dump_json())


def test_a_budget_spent_in_a_fallback_under_partial_fails_that_step_only(
    router: SchemaRouter, servers: Servers
) -> None:
    plan = _plan(router, "error500", fallbacks=[MP], formula="Si")
    result = _run("sync", router, plan, budget=Budget(max_calls=3), partial=True)
    (step,) = result.steps
    assert step.status == "failed" and servers.mp.requests == []
    (use,) = step.fallbacks
    assert not use.used and use.skipped.startswith("not called: call budget of 3")


# -- fallbacks are re-checked at execution ----------------------------------------------------


def test_fallbacks_are_rechecked_against_the_registry(
    router: SchemaRouter, servers: Servers
) -> None:
    snapshot = router.snapshot()
    step = catalogs.step(
        snapshot, "faulty/rest/error500", FIELDS, {"formula": "Si"}, fallbacks=False
    )
    good = snapshot.routes["faulty/rest/good"]
    keyed = snapshot.routes["keyed/rest/good"]
    forged = (
        Fallback(
            semantic_id="electronic.band_gap",
            route_id="faulty/rest/good",
            field="band_gap",
            fingerprint="sha256:stale",
        ),
        Fallback(
            semantic_id="electronic.band_gap",
            route_id="keyed/rest/good",
            field="band_gap",
            fingerprint=keyed.fingerprint,
        ),
        Fallback(
            semantic_id="electronic.band_gap",
            route_id="nobody/rest/x",
            field="band_gap",
            fingerprint=good.fingerprint,
        ),
        Fallback(
            semantic_id="electronic.band_gap",
            route_id="faulty/rest/store",
            field="band_gap",
            fingerprint=snapshot.routes["faulty/rest/store"].fingerprint,
        ),
    )
    plan = catalogs.plan(snapshot, step.model_copy(update={"fallbacks": forged}))
    result = _run("sync", router, plan, partial=True, policy=PATIENT)
    reasons = {u.to_route: u.skipped for u in result.steps[0].fallbacks}
    assert "planned fingerprint" in reasons["faulty/rest/good"]
    assert "qualifiers differ" in reasons["keyed/rest/good"]  # HSE is not PBE
    assert "planned fingerprint" in reasons["nobody/rest/x"]
    assert "read-only" in reasons["faulty/rest/store"]
    assert not any(u.used for u in result.steps[0].fallbacks)
    assert result.steps[0].status == "failed"
    assert _hits(servers, "/good") == 0 and servers.mp.requests == []
    with pytest.raises(InvocationError):  # strict: the original error, after the attempts
        _run("sync", router, plan, policy=PATIENT)


def test_a_failing_fallback_is_recorded_and_the_error_raised(router: SchemaRouter) -> None:
    plan = _plan(router, "error500", fallbacks=["faulty/rest/malformed"], formula="Si")
    result = _run("sync", router, plan, partial=True, policy=PATIENT)
    (use,) = result.steps[0].fallbacks
    assert not use.used and use.skipped is not None and "not valid JSON" in use.skipped
    with pytest.raises(InvocationError, match="HTTP 500"):
        _run("sync", router, plan, policy=PATIENT)


def test_no_fallback_when_disabled(router: SchemaRouter, servers: Servers) -> None:
    plan = _plan(router, "error500", fallbacks=[MP], formula="Si")
    with pytest.raises(InvocationError):
        _run("sync", router, plan, policy=ExecutionPolicy(backoff=0.01, fallbacks=False))
    assert servers.mp.requests == []


# -- request shapes of bundled routes (built, not sent) ---------------------------------------


def _bundled(name: str, route_id: str) -> Any:
    routes = {r.route_id: r for r in load_catalog(BUNDLED_CATALOG / name).routes}
    return routes[route_id]


def test_aflux_raw_query_placeholder_keeps_its_syntax() -> None:
    route = _bundled("aflow.yaml", "aflow/aflux/aflux_search")

    def url(summons: str) -> bytes:
        request = build_request(
            route,
            {"summons": summons},
            credentials=MappingCredentials({}),
            redactor=Redactor(),
            timeout=1.0,
            where="t",
        )
        assert origin(request.url) == ("https", "aflow.org", 443)
        return request.url.raw_path

    assert url("species(Si),nspecies(1),Egap(*),$paging(1)") == (
        b"/API/aflux/v1.0/?species(Si),nspecies(1),Egap(*),$paging(1)"
    )
    assert url("x&y=1#frag/../z") == b"/API/aflux/v1.0/?x%26y%3D1%23frag%2F..%2Fz"


def test_json_body_parameters_form_one_object() -> None:
    route = _bundled("nomad.yaml", "nomad/api_v1/entries_query")
    request = build_request(
        route,
        {"query": {"results.material.elements": {"all": ["Ga", "As"]}}, "owner": "public"},
        credentials=MappingCredentials({}),  # the token is optional
        redactor=Redactor(),
        timeout=1.0,
        where="t",
    )
    assert request.method == "POST" and request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == {
        "query": {"results.material.elements": {"all": ["Ga", "As"]}},
        "owner": "public",
    }
    assert "Authorization" not in request.headers
