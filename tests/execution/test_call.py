"""router.call / acall and planning on a user's own registry (no semantic ids anywhere).

The registry is what a new user brings: an OpenAPI document served for real on loopback
(tests/servers/user_api.py), plus typed Python callables. Before this change, ``plan`` on
such a registry selected no output fields and ``execute`` reported ``ok`` with no values;
there was no public way to run the route and arguments an agent picked.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter, capability
from schemarouter.errors import (
    ArgumentError,
    GateError,
    OutputValidationError,
    ParameterValidationError,
    PolicyError,
)
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer
from servers.user_api import (
    ALERT,
    BROKEN,
    FORECAST,
    STATION,
    weather_openapi,
    weather_router,
)


@pytest.fixture
def router(weather: LoopbackServer) -> SchemaRouter:
    weather.reset()
    return weather_router(weather.base_url)


# -- call ------------------------------------------------------------------------------------


def test_call_returns_the_whole_validated_output(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    result = router.call(FORECAST, {"city": "Paris", "days": 2})
    assert result.ok and result.status == "ok" and not result.projected
    assert result.output == {
        "city": "Paris",
        "units": "metric",
        "days": [
            {"date": "2025-06-01", "temp_max": 30.5, "precip_mm": 0.0},
            {"date": "2025-06-02", "temp_max": 29.5, "precip_mm": 0.2},
        ],
    }
    assert result.fields == {}  # nothing declared a semantic id, unit or identifier
    assert result.calls == 1 and result.attempts[0].ok and result.bytes > 0
    assert weather.paths() == ["/forecast?city=Paris&days=2"]


def test_call_projects_to_the_requested_fields(router: SchemaRouter) -> None:
    result = router.call(FORECAST, {"city": "Oslo"}, fields=["days.temp_max", "city"])
    assert result.projected
    assert result.output == {"city": "Oslo", "days": [{"temp_max": 30.5}, {"temp_max": 29.5}]}
    assert result.value("days.temp_max") == [30.5, 29.5]
    assert result.fields["city"].route_id == FORECAST


def test_call_types_the_fields_a_route_declares() -> None:
    @capability(fields={"result": {"unit": "GPa", "semantic_id": "mechanical.hardness"}})
    def vickers_hardness(sample_id: str) -> float:
        """Vickers hardness measured in our lab."""
        return 9.5

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(vickers_hardness, provider="lab")
    (route_id,) = router.snapshot().route_ids()
    result = router.call(route_id, {"sample_id": "S-12"})
    assert result.output == 9.5
    hardness = result.fields["result"]
    assert (hardness.value, hardness.unit, hardness.semantic_id) == (
        9.5,
        "GPa",
        "mechanical.hardness",
    )


def test_a_callables_nan_and_infinity_are_invalid_not_a_null_reading() -> None:
    """A sensor function's ``NaN`` / ``inf`` readings (a fault) were serialized to ``null``
    before validation: ``[1000.0, nan, None, inf]`` came back ``ok`` as ``[1.0, None, None,
    None]`` kW, a fault indistinguishable from "no reading". They fail validation, as a
    server's ``NaN`` does (docs/faults.md, #15)."""
    spec = {"source_unit": "W", "canonical_unit": "kW", "dimension": "power", "scale": 0.001}

    @capability(fields={"result": {"unit": "W", "dimension": "power", "normalization": spec}})
    def power_readings(site_id: str) -> list[float | None]:
        """Power readings of a plant site."""
        return [1000.0, float("nan"), None, float("inf")]

    @capability(fields={"result": {"unit": "W", "dimension": "power", "normalization": spec}})
    def latest_power(site_id: str) -> float | None:
        """Latest power reading of a plant site."""
        return float("nan")

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(power_readings, provider="plant")
    router.add_callable(latest_power, provider="plant")
    with pytest.raises(OutputValidationError, match="not a JSON number"):
        router.call("plant/python/power_readings", {"site_id": "P-1"})
    readings = router.call("plant/python/power_readings", {"site_id": "P-1"}, partial=True)
    field = readings.fields["result"]
    assert field.status == "invalid" and field.value is None
    assert [i.kind for i in field.issues] == ["invalid"]
    assert field.issues[0].message.endswith("is not a JSON number")
    assert field.issues[0].path in ("$[1]", "$[3]") and field.raw_value[0] == 1000.0
    latest = router.call("plant/python/latest_power", {"site_id": "P-1"}, partial=True)
    assert latest.fields["result"].status == "invalid"
    assert latest.fields["result"].issues[0].path == "$"
    json.loads(readings.model_dump_json())
    json.loads(latest.model_dump_json())


def test_acall_gives_the_same_result(router: SchemaRouter) -> None:
    sync = router.call(STATION, {"station_id": "LFPG"})
    async_ = asyncio.run(router.acall(STATION, {"station_id": "LFPG"}))
    assert (
        sync.output
        == async_.output
        == {
            "id": "LFPG",
            "name": "Paris Montsouris",
            "elevation_m": 75.0,
        }
    )
    assert async_.status == "ok"


def test_call_refuses_what_the_gate_refuses(router: SchemaRouter, weather: LoopbackServer) -> None:
    with pytest.raises(GateError, match="not registered") as unknown:
        router.call("weather/rest/get_forcast", {"city": "Paris"})
    assert "weather/rest/get_forecast" in str(unknown.value)  # did you mean ...
    with pytest.raises(GateError, match="no output field 'temp_max'") as field:
        router.call(FORECAST, {"city": "Paris"}, fields=["temp_max"])
    assert "days.temp_max" in str(field.value)
    with pytest.raises(ParameterValidationError, match="'city' is a required property"):
        router.call(FORECAST, {})
    with pytest.raises(ParameterValidationError, match=r"\$\.days"):
        router.call(FORECAST, {"city": "Paris", "days": 30})
    with pytest.raises(ParameterValidationError, match="no parameter 'town'"):
        router.call(FORECAST, {"town": "Paris"})
    with pytest.raises(ParameterValidationError, match="mapping"):
        router.call(FORECAST, ["Paris"])  # type: ignore[arg-type]
    assert weather.requests == []  # nothing reached the server


def test_writes_need_the_effect_and_an_approval(router: SchemaRouter) -> None:
    body = {"body": {"city": "Paris", "message": "heat wave"}}
    with pytest.raises(PolicyError, match="effect write"):
        router.call(ALERT, body)
    with pytest.raises(PolicyError, match="approval"):
        router.call(ALERT, body, allow_effects={"read", "write"})
    seen: list[str] = []

    def approve(route: Any, arguments: Any) -> bool:
        seen.append(route.route_id)
        return True

    result = router.call(ALERT, body, allow_effects={"read", "write"}, approve=approve)
    assert result.output == {"id": 1, "status": "created"} and seen == [ALERT]


def test_output_that_breaks_its_schema_is_an_error(router: SchemaRouter) -> None:
    with pytest.raises(OutputValidationError, match=r"output \$\.aqi"):
        router.call(BROKEN, {})
    kept = router.call(BROKEN, {}, partial=True)
    assert kept.status == "partial" and kept.output == {"aqi": "moderate"}
    assert kept.issues and kept.issues[0].path == "$.aqi"


def test_unhealthy_routes_are_refused(router: SchemaRouter) -> None:
    router.mark_unhealthy(STATION)
    with pytest.raises(PolicyError, match="unhealthy"):
        router.call(STATION, {"station_id": "LFPG"})


# -- planning on any registry ----------------------------------------------------------------


def test_plan_fills_arguments_the_schema_accepts_and_keeps_the_whole_output(
    router: SchemaRouter,
) -> None:
    plan = router.plan('daily forecast for city "Paris" in imperial units, days 3')
    (step,) = plan.steps
    assert step.route_id == FORECAST and step.whole_output
    assert step.arguments == {"city": "Paris", "units": "imperial", "days": 3}
    assert plan.missing_arguments == {} and plan.reason == ""
    result = router.execute(plan)
    (done,) = result.steps
    assert done.status == "ok"
    assert done.output["units"] == "imperial" and len(done.output["days"]) == 3
    # the old failure: ok, one call, nothing handed back
    assert result.calls == 1 and done.output is not None


def test_minimal_plans_project_to_the_matched_fields(router: SchemaRouter) -> None:
    hits = router.index.search("forecast temp_max", k=5)
    matched = next(h.matched_fields for h in hits if h.route_id == FORECAST)
    assert "days.temp_max" in matched
    plan = router.plan(
        PlanRequest(query="forecast temp_max city=Rome", projection="minimal"),
    )
    (step,) = plan.steps
    assert not step.whole_output and "days.temp_max" in step.fields
    result = router.execute(plan)
    output = result.steps[0].output
    assert output["days"] == [{"temp_max": 30.5}, {"temp_max": 29.5}]
    assert result.field("days.temp_max").value == [30.5, 29.5]


def test_plan_lists_missing_arguments(router: SchemaRouter) -> None:
    plan = router.plan("daily weather forecast")
    assert plan.route_ids == (FORECAST,)
    assert plan.missing_arguments == {FORECAST: ("city",)}
    with pytest.raises(ParameterValidationError, match="city"):
        router.execute(plan)


def _writes_only(weather: LoopbackServer) -> SchemaRouter:
    """A router over the weather API's write route alone (a read request plans nothing)."""
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    document = weather_openapi(weather.base_url)
    document["paths"] = {"/alerts": document["paths"]["/alerts"]}  # writes only
    router.add_openapi(document, provider="weather")
    return router


def test_an_empty_plan_says_why(weather: LoopbackServer) -> None:
    router = _writes_only(weather)
    plan = router.plan("create a weather alert for Paris")
    assert plan.steps == ()
    assert "effect write" in plan.reason and "allowed_effects" in plan.reason
    allowed = router.plan(
        PlanRequest(query="create a weather alert", allowed_effects=frozenset({"read", "write"}))
    )
    assert allowed.route_ids == (ALERT,)


def test_text_that_is_not_unicode_is_refused_before_anything_is_sent(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """A model's tool call is JSON, and '"\\ud800"' is valid JSON for a lone surrogate, which
    no request can encode: a typed refusal at its path, not a UnicodeEncodeError."""
    arguments = json.loads('{"city": "Pa\\ud800ris", "days": 2}')
    with pytest.raises(ParameterValidationError, match=r"not valid Unicode") as caught:
        router.call(FORECAST, arguments)
    assert "$.city" in str(caught.value)
    with pytest.raises(ParameterValidationError, match=r"not valid Unicode"):
        asyncio.run(router.acall(FORECAST, arguments))
    assert weather.paths() == []


def test_calls_without_a_client_load_the_trusted_certificates_once(
    router: SchemaRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each acall without client= made a new AsyncClient that loaded the system's
    certificates on the event loop (about 25 ms a call; a user trial)."""
    loads: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    for _ in range(3):
        assert router.call(FORECAST, {"city": "Paris", "days": 1}).ok
        assert asyncio.run(router.acall(FORECAST, {"city": "Paris", "days": 1})).ok
    assert len(loads) <= 1  # once in the process at most (none where made before the test)


def test_a_whole_float_for_an_integer_is_sent_as_an_integer(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """Models send 2.0 now and then: valid for JSON Schema's integer, but "days=2.0" is not an
    integer to most servers (a user trial)."""
    assert router.call(FORECAST, {"city": "Paris", "days": 2.0}).ok
    assert weather.paths() == ["/forecast?city=Paris&days=2"]
    with pytest.raises(ParameterValidationError, match=r"\$\.days"):
        router.call(FORECAST, {"city": "Paris", "days": 2.5})


def test_a_route_registered_anew_starts_healthy(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """A route's cooldown outlived its removal and a registration at a working URL: fresh
    plans were refused for 60 s (a user trial). A changed or removed route starts healthy;
    one registered again unchanged keeps its state."""
    router.mark_unhealthy(FORECAST, cooldown=60)
    router.add_openapi(weather_openapi(weather.base_url), provider="weather", replace=True)
    assert not router.is_healthy(FORECAST)  # the same contract: its failures still count
    router.add_openapi(weather_openapi(weather.base_url + "/v2"), provider="weather", replace=True)
    assert router.is_healthy(FORECAST)  # a new base URL: a new route
    router.mark_unhealthy(FORECAST, cooldown=60)
    router.remove_provider("weather")
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    assert router.is_healthy(FORECAST) and router.call(FORECAST, {"city": "Paris", "days": 1}).ok


def test_plan_reports_routes_it_passed_over(router: SchemaRouter) -> None:
    plan = router.plan("alert message")  # the write route ranks first; no verb asks for it
    assert plan.steps and plan.route_ids != (ALERT,)
    assert any("passed over" in w and ALERT in w for w in plan.warnings)
    # a request to create one is not planned as a read (test_chained_plans has the why)
    refused = router.plan("create alert message")
    assert refused.steps == () and ALERT in refused.reason


def test_options_are_keywords_checked_per_method(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """The execution options travel as one ExecutionOptions; an unknown one is still a
    TypeError naming the method the caller called, and nothing is sent."""
    plan = router.plan(PlanRequest(query="forecast for Paris"))
    for method, call in (
        ("call", lambda: router.call(FORECAST, {"city": "Paris"}, allow_effect=["write"])),
        ("execute", lambda: router.execute(plan, budgets=None)),
        ("acall", lambda: asyncio.run(router.acall(FORECAST, {"city": "Paris"}, retry=2))),
        ("aexecute", lambda: asyncio.run(router.aexecute(plan, partials=True))),
    ):
        with pytest.raises(TypeError, match=rf"^{method}\(\) got an unexpected keyword"):
            call()
    assert weather.paths() == []
    result = router.call(FORECAST, {"city": "Paris"}, partial=True, allow_effects=["read"])
    assert result.ok


@pytest.mark.parametrize("arguments", [[], "", 0, False, b"", "city=Paris", ["city"]])
def test_arguments_that_are_not_a_mapping_are_refused_at_the_root(
    router: SchemaRouter, weather: LoopbackServer, arguments: Any
) -> None:
    """Empty lists, strings, 0 and False were read as "no arguments" and the request was sent
    (a user trial); every non-mapping is refused at ``$`` and nothing is sent. ``None`` is no
    arguments."""
    with pytest.raises(ParameterValidationError, match="must be a mapping") as refused:
        router.call(FORECAST, arguments)
    assert refused.value.json_path == "$"  # type: ignore[attr-defined]
    assert weather.paths() == []


def test_a_newcomers_call_mistakes_get_errors_that_point_at_the_fix(
    router: SchemaRouter, weather: LoopbackServer
) -> None:
    """Trial W #3, #10, #11: a Candidate passed where its route id belongs was reported as
    a route "not registered"; a direct call's errors said "at plan step 0" with no plan;
    an approval callback of the wrong shape was told to "return True or False"."""
    (candidate,) = router.retrieve("weather forecast for a city", k=1)
    for mistake in (candidate, router.snapshot().route(FORECAST)):
        with pytest.raises(ArgumentError, match="route_id must be a route id") as caught:
            router.call(mistake, {"city": "Paris"})  # type: ignore[arg-type]
        assert repr(candidate.route_id) in str(caught.value) and ".route_id" in caught.value.hint
    with pytest.raises(ParameterValidationError) as bounds:
        router.call(FORECAST, {"city": "Paris", "days": 30})
    assert bounds.value.where.startswith(f"call ({FORECAST})") and "plan" not in str(bounds.value)
    body = {"body": {"city": "Paris", "message": "heat wave"}}
    with pytest.raises(PolicyError, match="callback failed") as shape:
        router.call(ALERT, body, allow_effects={"read", "write"}, approve=lambda: True)
    assert "approve(route, arguments)" in shape.value.hint
    assert weather.requests == []


def test_executing_a_plan_of_no_steps_says_nothing_ran(weather: LoopbackServer) -> None:
    """Trial W #6: execute() of a plan that found no route returned an ok-looking result
    (no steps, no warnings, ``complete`` true) to a caller checking only for errors."""
    router = _writes_only(weather)
    plan = router.plan("create a weather alert for Paris")
    assert plan.steps == () and plan.reason
    result = router.execute(plan)
    assert result.steps == () and not result.complete
    (said,) = result.warnings
    assert said.startswith("the plan has no steps, so nothing ran") and plan.reason in said
