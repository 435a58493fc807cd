"""Registration, bindings and health of one router shared by threads (user trial G): a
batch stages its bindings, registrations bind the routes they made, a document's provider id
is chosen against the registrations of other threads, health reads never race health writes,
and a replaced route's failures are forgotten where execution counts them.

Real loopback servers (tests/servers/), real OpenAPI documents as dicts and files, real
threads; where two threads must meet at one point, a barrier holds them there."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Registration
from schemarouter.errors import (
    ArgumentError,
    DocumentError,
    DuplicateRouteError,
    GateError,
    InvocationError,
    RegistrationError,
    RegistryLookupError,
    SchemaRouterError,
)
from schemarouter.execution.invokers import bind_http_routes
from schemarouter.execution.policy import ExecutionPolicy, monitor_for
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.state import ExecutionState

from servers.interleave import Interleaved, TwoWriters
from servers.loopback import LoopbackServer, json_response
from servers.user_api import FORECAST, WeatherApp, weather_openapi

ONE_ATTEMPT = ExecutionPolicy(max_attempts=1, timeout=2.0)


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _answers(router: SchemaRouter, *servers: LoopbackServer) -> LoopbackServer:
    """Which of ``servers`` answered one call of the forecast."""
    before = [len(s.requests) for s in servers]
    assert router.call(FORECAST, {"city": "Paris"}).ok
    (answered,) = [s for s, n in zip(servers, before, strict=True) if len(s.requests) > n]
    return answered


@pytest.fixture
def second() -> Iterator[LoopbackServer]:
    """Another weather server: a re-registration moves the provider to it."""
    with LoopbackServer(WeatherApp()) as server:
        yield server


@pytest.fixture
def failing() -> Iterator[LoopbackServer]:
    """A server whose every answer is HTTP 500."""
    with LoopbackServer(lambda request: json_response({"error": "boom"}, status=500)) as server:
        yield server


# -- a batch stages the bindings it makes and drops ----------------------------------------


def test_a_failed_batch_leaves_the_routes_it_replaced_bound_and_callable(
    weather: LoopbackServer, tmp_path: Path
) -> None:
    """The undo put the snapshot back but not the bindings its replacement had dropped:
    ``is_bound`` False, ``retrieve_executable`` empty and every call refused "not bound"
    (trial G §1), for a block that raised and for a registration that failed in it."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    before = router.bindings()
    with pytest.raises(RuntimeError, match="a later source failed"), router.batch():
        router.add_openapi(
            weather_openapi(weather.base_url + "/v2"), provider="weather", replace=True
        )
        assert router.binding(FORECAST).base_url.endswith("/v2")  # this thread: the new one
        raise RuntimeError("a later source failed")
    assert router.bindings() == before and router.is_bound(FORECAST)
    assert FORECAST in router.retrieve_executable("daily weather forecast", k=5).route_ids
    assert router.call(FORECAST, {"city": "Paris"}).output["city"] == "Paris"

    with pytest.raises(DocumentError), router.batch():
        router.add_openapi(
            weather_openapi(weather.base_url + "/v2"), provider="weather", replace=True
        )
        router.add_openapi(tmp_path / "missing.json")
    assert router.bindings() == before and router.call(FORECAST, {"city": "Oslo"}).ok


def test_other_threads_keep_the_bindings_a_batch_replaces_until_it_commits(
    weather: LoopbackServer, second: LoopbackServer
) -> None:
    """While a batch that moved ``weather`` to another server was open, other threads saw
    the old snapshot (as documented) but not its binding: the route was hidden from
    ``retrieve_executable`` and its calls refused for as long as the batch ran (trial G §1)."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.build_index()  # a first build waits for the writers' lock: not what this tests
    replaced, finish = threading.Event(), threading.Event()

    def batcher() -> None:
        with router.batch():
            router.add_openapi(weather_openapi(second.base_url), provider="weather", replace=True)
            replaced.set()
            finish.wait(10)

    thread = threading.Thread(target=batcher)
    thread.start()
    try:
        assert replaced.wait(10)
        assert router.is_bound(FORECAST)
        assert router.binding(FORECAST).base_url == weather.base_url
        assert FORECAST in router.retrieve_executable("daily weather forecast", k=5).route_ids
        assert _answers(router, weather, second) is weather
    finally:
        finish.set()
        thread.join(10)
    assert router.binding(FORECAST).base_url == second.base_url  # committed: the new binding
    assert _answers(router, weather, second) is second


# -- health reads and writes from many threads ----------------------------------------------


def test_executable_retrieval_survives_health_changing_in_another_thread(
    weather: LoopbackServer,
) -> None:
    """``retrieve_executable`` iterated the live health dict while other threads marked
    routes: "RuntimeError: dictionary changed size during iteration" (trial G §2)."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    for n in range(2000):
        router.mark_unhealthy(f"other/rest/r{n}", cooldown=60)
    stop, errors = threading.Event(), []

    def flip() -> None:
        n = 0
        while not stop.is_set():
            router.mark_unhealthy(f"flip/rest/r{n % 50}", cooldown=60)
            router.mark_healthy(f"flip/rest/r{(n + 25) % 50}")
            n += 1

    def read() -> None:
        while not stop.is_set():
            try:
                router.retrieve_executable("daily weather forecast", k=2)
            except RuntimeError as exc:  # what the race raised
                errors.append(exc)
                stop.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: the race shows within a second
    threads = [threading.Thread(target=flip)] + [threading.Thread(target=read) for _ in range(3)]
    try:
        for thread in threads:
            thread.start()
        stop.wait(3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
        sys.setswitchinterval(interval)
    assert errors == []


def test_a_cooldown_that_ran_out_is_dropped(weather: LoopbackServer) -> None:
    """Expired cooldowns were kept for the life of the process (trial G §2)."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    for n in range(100):
        router.mark_unhealthy(f"gone/rest/r{n}", cooldown=0.01)
    time.sleep(0.05)
    router.retrieve_executable("daily weather forecast", k=2)
    assert router._cooldowns.unhealthy() == frozenset()
    assert len(router._cooldowns._until) == 0


def test_replace_forgets_the_failure_count_execution_keeps(
    failing: LoopbackServer,
) -> None:
    """Execution counted failures on ``router.health_monitor`` while a replacement cleared
    another monitor: after two failures on the old contract, one on the new one took the
    route out for 60 s (trial G §6)."""
    router = _router()
    router.add_openapi(weather_openapi(failing.base_url), provider="weather")
    for _ in range(2):
        with pytest.raises(InvocationError, match="HTTP 500"):
            router.call(FORECAST, {"city": "Paris"}, policy=ONE_ATTEMPT)
    change = router.add_openapi(
        weather_openapi(failing.base_url + "/v2"), provider="weather", replace=True
    )
    assert FORECAST in change.replaced
    with pytest.raises(InvocationError, match="HTTP 500"):
        router.call(FORECAST, {"city": "Paris"}, policy=ONE_ATTEMPT)
    assert router.is_healthy(FORECAST)  # one failure of the new contract, not three
    assert monitor_for(router) is router.health_monitor  # one count, wherever it is read


# -- a registration binds the routes it made ------------------------------------------------


def test_a_registration_never_binds_the_route_another_registration_replaced(
    weather: LoopbackServer, second: LoopbackServer
) -> None:
    """A registered, B registered, A bound: A's bind took the fingerprint of the current
    snapshot (B's route) and bound it to A's base URL; B's bind then skipped it as bound,
    and every call was refused "bound to another base URL" (trial G §4)."""
    from schemarouter.adapters.openapi import openapi_registration

    router = Interleaved()
    router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
    other = openapi_registration(weather_openapi(second.base_url), provider="weather")
    router.between = lambda: router.register(other, replace=True)
    router.add_openapi(weather_openapi(weather.base_url), provider="weather", replace=True)
    bind_http_routes(router, other.routes)  # B binds what it registered
    assert router.snapshot().route(FORECAST).access.base_url == second.base_url
    assert router.binding(FORECAST).base_url == second.base_url
    assert _answers(router, weather, second) is second


def test_add_openapi_whose_provider_another_thread_removed_returns_its_change(
    weather: LoopbackServer,
) -> None:
    """``remove_provider`` between the registration and its binding made ``add_openapi``
    raise "RegistryLookupError: no route ... is registered" after it had succeeded
    (trial G §4)."""
    router = Interleaved()
    router.between = lambda: router.remove_provider("weather")
    change = router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    assert FORECAST in change.added
    assert len(router.snapshot()) == 0 and router.bindings() == {}


_BANDGAPS = """# Band gap service

## GET /materials/search

Search materials by formula.

- formula (string, required): Reduced chemical formula such as `SiO2`.

Response fields:

- band_gap (number): Electronic band gap, unit: eV
"""
SEARCH = "bandgaps/docs/get_materials_search"


def test_approve_never_binds_the_route_another_approval_replaced() -> None:
    """The race add_openapi was rid of stayed on every other registration path (approve,
    OPTIMADE, profiles, live MCP servers), which bound at the *current* fingerprint: A
    registered, B registered, A bound B's route to A's base URL, B's bind skipped it as
    bound, and every call went to A's server (or was refused "bound to another base
    URL")."""
    from schemarouter.adapters.inspect import approve, inspect

    proposal = inspect(_BANDGAPS)
    answer = {"band_gap": 1.12}
    with (
        LoopbackServer(lambda request: json_response(answer)) as a,
        LoopbackServer(lambda request: json_response(answer)) as b,
    ):
        router = TwoWriters()
        router.race(
            lambda: approve(router, proposal, base_url=a.base_url, provider="bandgaps"),
            lambda: approve(
                router, proposal, base_url=b.base_url, provider="bandgaps", replace=True
            ),
        )
        assert router.snapshot().route(SEARCH).access.base_url == b.base_url
        assert router.binding(SEARCH).base_url == b.base_url
        assert router.call(SEARCH, {"formula": "Si"}).ok
        assert [len(a.requests), len(b.requests)] == [0, 1]


def test_add_optimade_whose_provider_another_thread_removed_returns_its_change() -> None:
    """``remove_provider`` between the registration and its binding made ``add_optimade``
    raise "RegistryLookupError: no route ... is registered" after it had succeeded."""
    from schemarouter.adapters.optimade import add_optimade

    info = {
        "data": {
            "type": "info",
            "id": "/",
            "attributes": {
                "api_version": "1.2.0",
                "available_api_versions": [{"url": "http://127.0.0.1:9/v1", "version": "1.2.0"}],
                "available_endpoints": ["info", "structures"],
                "entry_types_by_format": {"json": ["structures"]},
            },
        },
        "meta": {"api_version": "1.2.0", "provider": {"name": "Ex", "prefix": "ex"}},
    }
    structures = {"data": {"properties": {"id": {"type": "string", "description": "Entry"}}}}
    router = Interleaved()
    router.between = lambda: router.remove_provider("ex")
    change = add_optimade(router, {"info": info, "info/structures": structures}, provider="ex")
    assert len(change.added) == 2
    assert len(router.snapshot()) == 0 and router.bindings() == {}


# -- provider ids chosen against other threads' registrations -------------------------------


def _titled(base_url: str, extra: str) -> dict[str, Any]:
    """The weather document with one more operation: another document of the same title."""
    document = weather_openapi(base_url)
    document["paths"][f"/{extra}"] = {
        "get": {"operationId": extra, "summary": f"{extra} report", "responses": {"200": {}}}
    }
    return document


def test_two_documents_of_one_title_registered_at_once_take_id_and_id_2(
    monkeypatch: pytest.MonkeyPatch, weather: LoopbackServer
) -> None:
    """Both threads chose ``weather`` before either registered; the second failed with
    DuplicateRouteError, whose "Pass replace=True" would have removed the first document's
    routes (trial G §5). The barrier only lets both choose first."""
    chose = threading.Barrier(2, timeout=10)
    own_provider = SchemaRouter._own_provider

    def choose_together(self: SchemaRouter, *args: Any, **kwargs: Any) -> Registration:
        chosen = own_provider(self, *args, **kwargs)
        chose.wait()
        return chosen

    monkeypatch.setattr(SchemaRouter, "_own_provider", choose_together)
    router = _router()
    errors: list[Exception] = []

    def add(document: dict[str, Any]) -> None:
        try:
            router.add_openapi(document)
        except SchemaRouterError as exc:
            errors.append(exc)

    documents = [_titled(weather.base_url, "wind"), _titled(weather.base_url, "rain")]
    threads = [threading.Thread(target=add, args=(d,)) for d in documents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert errors == []
    assert sorted(router.snapshot().providers) == ["weather", "weather_2"]
    extras = {r.endpoint.id for r in router.snapshot() if r.endpoint.id in ("wind", "rain")}
    assert extras == {"wind", "rain"}


def test_a_duplicate_of_another_documents_route_says_provider_not_replace(
    weather: LoopbackServer, tmp_path: Path
) -> None:
    """The hint said "Pass replace=True" whatever the route was; for another document's
    route that removes it (trial G §5)."""
    router = _router()
    first, other = tmp_path / "weather.json", tmp_path / "weather-copy.json"
    first.write_text(json.dumps(_titled(weather.base_url, "wind")), encoding="utf-8")
    other.write_text(json.dumps(_titled(weather.base_url, "rain")), encoding="utf-8")
    router.add_openapi(first, provider="weather")
    with pytest.raises(DuplicateRouteError) as caught:
        router.add_openapi(other, provider="weather")
    hint = str(caught.value.hint)
    assert "another document" in hint and str(first) in hint
    # trial W1 (low): "pass provider=" read wrong to a caller who had passed provider="weather"
    assert "under provider 'weather': pass another provider= name" in hint, hint
    assert "Pass replace=True" not in hint
    titled = _titled(weather.base_url, "rain")
    titled["info"]["title"] = "Another Weather API"
    with pytest.raises(DuplicateRouteError, match="another document") as caught:
        router.add_openapi(titled, provider="weather")
    # the same document registered again: replace=True is what it needs
    with pytest.raises(DuplicateRouteError) as caught:
        router.add_openapi(first, provider="weather")
    assert str(caught.value.hint).startswith("Pass replace=True")


def _rain_removed(base_url: str) -> dict[str, Any]:
    """A new version of ``_titled(.., "rain")``: ``rain`` removed, ``snow`` added."""
    document = _titled(base_url, "snow")
    document["info"]["version"] = "2.0"
    return document


def test_replace_of_a_new_version_under_another_file_name_replaces_what_diff_predicts(
    weather: LoopbackServer, tmp_path: Path
) -> None:
    """A new version published under a versioned file name with ``replace=True`` was
    registered beside the old one as ``weather_2``; the removed operation stayed registered
    and bound, though ``diff()`` predicted a clean replace (trial N §1)."""
    router = _router()
    old, new = tmp_path / "weather.json", tmp_path / "weather_v2.json"
    old.write_text(json.dumps(_titled(weather.base_url, "rain")), encoding="utf-8")
    new.write_text(json.dumps(_rain_removed(weather.base_url)), encoding="utf-8")
    router.add_openapi(old)
    assert router.is_bound("weather/rest/rain")
    predicted = router.diff(openapi_registration(str(new)))
    change = router.add_openapi(new, replace=True)
    assert sorted(router.snapshot().providers) == ["weather"]
    assert change.added == predicted.added == ("weather/rest/snow",)
    assert change.removed == predicted.removed == ("weather/rest/rain",)
    assert "weather/rest/rain" not in router.snapshot().routes
    assert not router.is_bound("weather/rest/rain") and router.is_bound("weather/rest/snow")
    # a URL is read the same way
    with LoopbackServer(lambda request: json_response(_titled(weather.base_url, "rain"))) as docs:
        change = router.add_openapi(f"{docs.base_url}/openapi.json", replace=True)
    assert sorted(router.snapshot().providers) == ["weather"]
    assert change.added == ("weather/rest/rain",) and change.removed == ("weather/rest/snow",)


def test_replace_where_a_title_holds_several_providers_asks_for_provider(
    weather: LoopbackServer, tmp_path: Path
) -> None:
    """Without ``replace`` a second document of a title gets an id of its own; with it,
    where two providers hold the title, which to replace cannot be told: refused, naming
    both and ``provider=``."""
    router = _router()
    paths = [tmp_path / f"weather-{n}.json" for n in range(3)]
    for path, extra in zip(paths, ("wind", "rain", "snow"), strict=True):
        path.write_text(json.dumps(_titled(weather.base_url, extra)), encoding="utf-8")
    router.add_openapi(paths[0])
    router.add_openapi(paths[1])
    assert sorted(router.snapshot().providers) == ["weather", "weather_2"]
    before = router.snapshot().version
    with pytest.raises(RegistrationError) as caught:
        router.add_openapi(paths[2], replace=True)
    message = str(caught.value)
    assert "weather (" in message and "weather_2 (" in message and str(paths[1]) in message
    assert "provider=" in str(caught.value.hint)
    assert router.snapshot().version == before
    change = router.add_openapi(paths[2], provider="weather_2", replace=True)
    assert change.added == ("weather_2/rest/snow",) and change.removed == ("weather_2/rest/rain",)


# -- cooldowns say who started them ---------------------------------------------------------


def test_blocked_says_the_router_took_a_route_out_after_failed_calls(
    failing: LoopbackServer, weather: LoopbackServer
) -> None:
    """``blocked`` read "the host marked this route unhealthy" for a route the router took
    out by itself after three failed attempts (trial G §10)."""
    router = _router()
    router.add_openapi(weather_openapi(failing.base_url), provider="weather")
    with pytest.raises(InvocationError, match="HTTP 500"):
        router.call(FORECAST, {"city": "Paris"}, policy=ExecutionPolicy(backoff=0.01))
    result = router.retrieve_executable("daily weather forecast", k=5)
    (exclusion,) = [e for e in result.exclusions if e.route_id == FORECAST]
    assert exclusion.reason == "unhealthy"
    assert exclusion.detail == (
        "3 failed attempts in a row (HTTP 500); cooling down for 60 s, 60 s left"
    )
    assert "3 failed attempts in a row (HTTP 500)" in result.blocked
    assert "the host" not in result.blocked

    router.mark_healthy(FORECAST)
    router.mark_unhealthy(FORECAST, cooldown=30)
    result = router.retrieve_executable("daily weather forecast", k=5)
    assert "the host marked it unhealthy (router.mark_unhealthy); cooling down for 30 s" in (
        result.blocked
    )


def test_a_route_removed_while_a_retrieval_ran_is_said_to_be_removed(
    weather: LoopbackServer,
) -> None:
    """Trial Q (low): a route another thread removed while ``retrieve_executable`` ranked it
    was left out as "no invoker is bound to the current fingerprint", which sends the host to
    bind a route that is gone. The removal is made here at the point the other thread's would
    land: between the ranking (from the snapshot the retrieval began with) and the check of
    the route's binding."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    is_bound = router.is_bound

    def removed_meanwhile(route_id: str) -> bool:
        if route_id == FORECAST and router.snapshot().routes:
            router.remove_provider("weather")
        return is_bound(route_id)

    router.is_bound = removed_meanwhile  # type: ignore[method-assign]
    result = router.retrieve_executable("daily weather forecast", k=5)
    assert FORECAST not in result.route_ids
    (exclusion,) = [e for e in result.exclusions if e.route_id == FORECAST]
    assert exclusion.reason == "unbound"
    assert exclusion.detail == "removed from the registry while this retrieval ran"


def test_a_cooldowns_detail_says_the_time_it_has_left(weather: LoopbackServer) -> None:
    """Trial S2 §5: 1.5 s into a 2 s cooldown the exclusion still read "cooling down for
    2 s"; a loop reading the detail could not tell when to come back. It ends with the whole
    seconds left, read when the retrieval ran."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.mark_unhealthy(FORECAST, cooldown=2.0, reason="told by the test")

    def detail() -> str | None:
        result = router.retrieve_executable("daily weather forecast", k=5)
        return next(e.detail for e in result.exclusions if e.route_id == FORECAST)

    assert detail() == "told by the test; cooling down for 2 s, 2 s left"
    time.sleep(1.2)
    assert detail() == "told by the test; cooling down for 2 s, 1 s left"
    assert router.cooldown_reason(FORECAST) == "told by the test"


def test_blocked_tells_the_host_to_lift_its_own_unhealthy_marks(weather: LoopbackServer) -> None:
    """Trial P §4: a route the host marked unhealthy (``ExecutionState.unhealthy_routes``) was
    said to come back "when their cooldown ends (router.mark_healthy)": there is no cooldown,
    and mark_healthy does not lift it. The host is told to remove it from the state; the
    router's own cooldowns keep their advice, each said of its routes where there are both."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    query = "daily weather forecast"
    state = ExecutionState(unhealthy_routes=frozenset({FORECAST}))
    result = router.retrieve_state_aware(query, state=state, k=5)
    (exclusion,) = [e for e in result.exclusions if e.route_id == FORECAST]
    assert exclusion.reason == "unhealthy"
    assert "remove them from ExecutionState.unhealthy_routes" in result.blocked
    assert "cooldown" not in result.blocked and "mark_healthy" not in result.blocked
    router.mark_healthy(FORECAST)  # not the router's: nothing changes
    assert router.retrieve_state_aware(query, state=state, k=5).blocked == result.blocked
    assert FORECAST in router.retrieve_state_aware(query, state=ExecutionState(), k=5).route_ids

    other = next(r for r in result.route_ids if r != FORECAST)
    router.mark_unhealthy(other, cooldown=30)
    both = router.retrieve_state_aware(query, state=state, k=5).blocked
    assert "those the host marked: remove them from ExecutionState.unhealthy_routes" in both
    assert "the others: they come back when their cooldown ends (router.mark_healthy)" in both


def test_a_url_document_whose_title_another_provider_holds_is_fetched_once() -> None:
    """Its derived provider id clashes, so it is compiled again as ``weather_2``; the
    document was fetched again for that compile (and once more under the writers' lock
    where another writer got in between). (Another version of the document: the same
    routes again would be the same document, refused as registered.)"""
    with LoopbackServer(WeatherApp()) as api:
        served = weather_openapi(api.base_url)
        served["paths"] = {"/v2" + path: item for path, item in served["paths"].items()}
        document = json.dumps(served).encode()
        with LoopbackServer(lambda request: json_response(json.loads(document))) as docs:
            router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
            router.add_openapi(weather_openapi(api.base_url), provider="weather")
            change = router.add_openapi(f"{docs.base_url}/openapi.json")
            fetched = [r.path for r in docs.requests]
    assert {r.split("/")[0] for r in change.added} == {"weather_2"}
    assert fetched == ["/openapi.json"]


class _CallablesInterleaved(SchemaRouter):
    """Runs ``between`` right after ``add_callable`` registered, before it binds."""

    between: Any = None

    def _register(self, registration: Registration, **options: Any) -> Any:
        change = super()._register(registration, **options)
        between, self.between = self.between, None
        if between is not None:
            between()
        return change


def _lookup() -> Any:
    """A callable ``lookup`` taking an int code (the first version of a route)."""

    def lookup(code: int) -> int:
        return code

    return lookup


def _newer() -> Any:
    """``lookup`` again with another signature (a replacing registration's version)."""

    def lookup(code: str) -> str:
        return f"code {code}"

    return lookup


def test_add_callable_never_binds_the_route_another_writer_replaced() -> None:
    """add_callable wrote its binding after registering without looking again: a callable
    registered again meanwhile (another signature, ``replace=True``) was left bound to the
    stale function at the stale fingerprint, so the live route could not execute."""

    router = _CallablesInterleaved(encoder=HashingEncoder(), embedding_cache=None)
    router.between = lambda: router.add_callable(_newer(), provider="codes", replace=True)
    router.add_callable(_lookup(), provider="codes")
    (route_id,) = router.snapshot().route_ids()
    assert router.snapshot().route(route_id).endpoint.input_schema["properties"]["code"] == {
        "type": "string"
    }
    assert router.is_bound(route_id)
    assert router.call(route_id, {"code": "7"}).output == "code 7"


def _status_document(server_url: str) -> dict[str, Any]:
    answer = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Status", "version": "1"},
        "servers": [{"url": server_url}],
        "paths": {
            "/status": {
                "get": {
                    "operationId": "getStatus",
                    "summary": "Service status",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": answer}},
                        }
                    },
                }
            }
        },
    }


@pytest.mark.parametrize("server_url", ["/v5", "ftp://127.0.0.1/v5"])
def test_a_replace_that_leaves_bound_routes_unbound_says_so(server_url: str) -> None:
    """A weekly sync registered a new version of a working document whose server URL can
    no longer be used: every route became unbound on a warning about the URL alone (trial
    V #2). The change now says which routes lost their binding and how to bind them."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_status_document("http://127.0.0.1:9/v4"), provider="status")
    assert router.is_bound("status/rest/get_status")
    change = router.add_openapi(_status_document(server_url), provider="status", replace=True)
    assert not router.is_bound("status/rest/get_status")
    (lost,) = [w for w in change.warnings if "were bound are now unbound" in w]
    assert "status/rest/get_status" in lost and "base_url=" in lost
    # bound again with a usable URL: nothing lost, nothing said
    again = router.add_openapi(
        _status_document(server_url), provider="status", base_url="http://127.0.0.1:9/v5",
        replace=True,
    )  # fmt: skip
    assert router.is_bound("status/rest/get_status")
    assert not [w for w in again.warnings if "now unbound" in w]


def test_a_removed_route_is_refused_as_removed_not_as_unknown() -> None:
    """An agent held a route id (or a plan) from before its provider was registered again
    without it; the refusal read "is not registered" with look-alike routes of other
    operations to try instead (trial V #3). It now says when the route was removed and to
    retrieve again, with no look-alikes; a route id never registered keeps its suggestions."""
    two = _status_document("http://127.0.0.1:9/v4")
    two["paths"]["/health"] = {
        "get": {**two["paths"]["/status"]["get"], "operationId": "getHealth"}
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(two, provider="status")
    plan = router.plan("service health", max_calls=1)
    assert [s.route_id for s in plan.steps] == ["status/rest/get_health"]
    change = router.add_openapi(
        _status_document("http://127.0.0.1:9/v4"), provider="status", replace=True
    )
    assert change.removed == ("status/rest/get_health",)
    with pytest.raises(GateError, match=rf"removed at registry version {change.version}") as caught:
        router.call("status/rest/get_health")
    assert "Did you mean" not in str(caught.value) and "retrieve again" in str(caught.value)
    with pytest.raises(GateError, match="removed at registry version"):
        router.execute(plan)
    with pytest.raises(RegistryLookupError, match="removed at registry version"):
        router.snapshot().route("status/rest/get_health")
    with pytest.raises(GateError, match="Did you mean status/rest/get_status") as typo:
        router.call("status/rest/get_statuss")
    assert "removed" not in str(typo.value)
    router.add_openapi(two, provider="status", replace=True)  # back again: nothing removed
    assert router.snapshot().removed_at("status/rest/get_health") is None


# -- a registration's new bindings are there as soon as its routes are ------------------------


def _from_another_thread(router: SchemaRouter, route_id: str, probe: Any) -> list[Any]:
    """What ``probe()`` answers in another thread at the moment a change that replaced
    ``route_id`` is published (right after the registry swaps its snapshot in, before the
    registering call returns)."""
    seen: list[Any] = []
    registry = router.registry
    commit = registry._commit

    def look() -> None:
        try:
            seen.append(probe())
        except SchemaRouterError as exc:
            seen.append(exc)

    def published(snapshot: Any, change: Any, *, source: str) -> None:
        commit(snapshot, change, source=source)
        if route_id in change.replaced and not seen and registry._snapshot is snapshot:
            thread = threading.Thread(target=look)
            thread.start()
            thread.join(10)

    registry._commit = published  # type: ignore[method-assign]
    return seen


def _executable_and_answer(
    router: SchemaRouter, *servers: LoopbackServer
) -> tuple[bool, bool, LoopbackServer]:
    executable = FORECAST in router.retrieve_executable("daily weather forecast", k=5).route_ids
    return router.is_bound(FORECAST), executable, _answers(router, *servers)


@pytest.mark.parametrize("batched", [False, True])
def test_a_route_registered_again_is_callable_the_moment_it_is_published(
    weather: LoopbackServer, second: LoopbackServer, batched: bool
) -> None:
    """A service registering a new version of its document (trial C): while the index
    embedded the new routes, other threads already read the new snapshot but not its
    bindings, so a route both versions serve was refused ("not bound to an invoker at its
    current fingerprint. Bind it ...", 188 of 382 calls) and left out of
    ``retrieve_executable``; a batch's bindings went live only after its index update too."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.build_index()
    seen = _from_another_thread(
        router, FORECAST, lambda: _executable_and_answer(router, weather, second)
    )
    if batched:
        with router.batch():
            router.add_openapi(weather_openapi(second.base_url), provider="weather", replace=True)
    else:
        router.add_openapi(weather_openapi(second.base_url), provider="weather", replace=True)
    assert seen == [(True, True, second)]


def test_a_callable_registered_again_is_callable_the_moment_it_is_published() -> None:
    """add_callable(..., replace=True) with a new signature: between the registry's switch
    and the binding, another thread's call of the route was refused as not bound."""

    router = _router()
    router.add_callable(_lookup(), provider="codes")
    (route_id,) = router.snapshot().route_ids()
    seen = _from_another_thread(
        router, route_id, lambda: router.call(route_id, {"code": "7"}).output
    )
    router.add_callable(_newer(), provider="codes", replace=True)
    assert seen == ["code 7"]


def test_replace_under_the_documents_title_as_provider_says_which_id_the_title_holds(
    weather: LoopbackServer,
) -> None:
    """Trial C (medium): a document registered without ``provider=`` takes its title's id
    (``Weather API``: ``weather``); registered again with ``provider="Weather API"`` and
    ``replace=True`` it took the name's own slug, ``weather_api``, replaced nothing and left
    every route twice, side by side in retrieval, without a word. The change now says so."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url))
    change = router.add_openapi(
        weather_openapi(weather.base_url), provider="Weather API", replace=True
    )
    assert change.added and not change.replaced and not change.removed
    (warning,) = [w for w in change.warnings if "replaced nothing" in w]
    assert "'weather_api'" in warning and "'weather'" in warning
    assert "provider='weather'" in warning
    # a provider name of its own for another document says nothing
    other = weather_openapi(weather.base_url)
    other["info"] = {"title": "Rain API", "version": "1"}
    assert not [
        w
        for w in router.add_openapi(other, provider="rain", replace=True).warnings
        if "replaced nothing" in w
    ]


class _HeldEncoder(HashingEncoder):
    """A hashing encoder whose first ``encode`` (the first build's) waits until ``go`` is set,
    saying so on ``building``."""

    def __init__(self) -> None:
        super().__init__()
        self.building, self.go = threading.Event(), threading.Event()

    def encode(self, texts: Any) -> Any:
        if not self.building.is_set():
            self.building.set()
            self.go.wait(10)
        return super().encode(texts)


def test_a_retrieve_inside_a_batch_while_another_thread_builds_the_index_finishes() -> None:
    """Trial C (high): at a service's start, one thread registered its sources in
    ``router.batch()`` and retrieved inside it while another thread's first request built the
    index: both hung for good. The builder held the index's lock and waited for the writers'
    lock (to catch up with registrations), the batch held the writers' lock and waited for
    the index's lock."""

    def fraud_score(order_id: str) -> float:
        """Fraud risk score of an order."""
        return 0.1

    encoder = _HeldEncoder()
    router = SchemaRouter(encoder=encoder, embedding_cache=None, abstention=None, reranker=None)
    router.add_callable(fraud_score, provider="risk")
    answers: dict[str, tuple[str, ...]] = {}

    def first_request() -> None:
        answers["request"] = router.retrieve("fraud score of an order", k=1).route_ids

    def registering() -> None:
        with router.batch():
            router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
            encoder.building.wait(10)  # the first request is building the index now
            threading.Timer(0.3, encoder.go.set).start()
            answers["batch"] = router.retrieve("daily weather forecast", k=1).route_ids

    threads = [threading.Thread(target=f, daemon=True) for f in (first_request, registering)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert not any(thread.is_alive() for thread in threads), "deadlocked"
    assert answers == {"request": ("risk/python/fraud_score",), "batch": (FORECAST,)}
    assert router.retrieve("daily weather forecast", k=1).route_ids == (FORECAST,)


def test_approved_and_optimade_routes_registered_again_are_bound_when_published() -> None:
    """The window of the test above on the other HTTP registration paths: ``approve`` and
    ``add_optimade`` registered, then bound; another thread that read the new snapshot
    between the two found the route unbound."""
    from schemarouter.adapters.inspect import approve, inspect
    from schemarouter.adapters.optimade import add_optimade

    proposal = inspect(_BANDGAPS)
    answer = {"band_gap": 1.12}
    with (
        LoopbackServer(lambda request: json_response(answer)) as a,
        LoopbackServer(lambda request: json_response(answer)) as b,
    ):
        router = _router()
        approve(router, proposal, base_url=a.base_url, provider="bandgaps")
        seen = _from_another_thread(
            router, SEARCH, lambda: router.call(SEARCH, {"formula": "Si"}).ok
        )
        approve(router, proposal, base_url=b.base_url, provider="bandgaps", replace=True)
        assert seen == [True]
        assert [len(a.requests), len(b.requests)] == [0, 1]

    def payloads(url: str) -> dict[str, Any]:
        info = {
            "data": {
                "type": "info",
                "id": "/",
                "attributes": {
                    "api_version": "1.2.0",
                    "available_api_versions": [{"url": url, "version": "1.2.0"}],
                    "available_endpoints": ["info", "structures"],
                    "entry_types_by_format": {"json": ["structures"]},
                },
            },
            "meta": {"api_version": "1.2.0", "provider": {"name": "Ex", "prefix": "ex"}},
        }
        structures = {"data": {"properties": {"id": {"type": "string", "description": "Entry"}}}}
        return {"info": info, "info/structures": structures}

    router = _router()
    first = add_optimade(router, payloads("http://127.0.0.1:9/v1"), provider="ex")
    route_id = first.added[0]
    seen = _from_another_thread(router, route_id, lambda: router.is_bound(route_id))
    add_optimade(router, payloads("http://127.0.0.1:8/v1"), provider="ex", replace=True)
    assert seen == [True]


class _FailingEncoder(HashingEncoder):
    """A hashing encoder that, once ``armed``, runs ``during()`` in another thread and then
    fails: an index update that fails while the new routes are embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.armed: Any = None
        self.seen: list[Any] = []

    def encode(self, texts: Any) -> Any:
        if self.armed is None:
            return super().encode(texts)
        thread = threading.Thread(target=lambda: self.seen.append(self.armed()))
        thread.start()
        thread.join(10)
        raise RuntimeError("the encoder is down")


@pytest.mark.parametrize("batched", [False, True])
def test_a_registration_whose_index_update_fails_is_never_callable_meanwhile(
    weather: LoopbackServer, second: LoopbackServer, batched: bool
) -> None:
    """User trial X3 (high): a re-registration at another server whose index update then
    failed ('nothing was changed') was called meanwhile from other threads, 95 times on the
    new server, a route only the new document has included: the registry published the new
    snapshot before its listeners ran, and the bindings held ahead (dd708ae) made its routes
    callable at once. The snapshot is published once the index took it."""
    encoder = _FailingEncoder()
    router = SchemaRouter(encoder=encoder, embedding_cache=None, abstention=None, reranker=None)
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.build_index()
    newer = weather_openapi(second.base_url)
    newer["paths"]["/radar"] = {"get": {"operationId": "getRadar", "responses": {"200": {}}}}

    def meanwhile() -> tuple[Any, ...]:
        try:
            router.call("weather/rest/get_radar", {})
            radar: Any = "called"
        except SchemaRouterError as exc:
            radar = type(exc).__name__
        return radar, _answers(router, weather, second)

    encoder.armed = meanwhile
    with pytest.raises(RegistrationError, match="nothing was changed"):
        if batched:
            with router.batch():
                router.add_openapi(newer, provider="weather", replace=True)
        else:
            router.add_openapi(newer, provider="weather", replace=True)
    assert encoder.seen == [("GateError", weather)]
    encoder.armed = None
    assert _answers(router, weather, second) is weather


def tare_balance(balance: str) -> dict[str, float]:
    """Tare the lab balance before weighing."""
    return {"tare_g": 0.0}


def zero_balance(balance: str) -> dict[str, float]:
    """Tare the lab balance before weighing."""
    return {"tare_g": 0.0}


def weigh_sample(balance: str) -> dict[str, float]:
    """Weigh a sample on the lab balance, in grams."""
    return {"mass_g": 1.25}


def test_remove_routes_takes_out_only_the_routes_named() -> None:
    """Trial T1 (low): a function renamed and registered again with ``replace=True`` left its
    old route registered and callable, and no public call removed one route (only a whole
    provider). ``remove_routes`` removes the routes named, as one change; an id not
    registered refuses the call and removes nothing."""
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([tare_balance, weigh_sample], provider="lab")
    router.add_callable(zero_balance, provider="lab", replace=True)  # the renamed function
    old, new, other = (
        "lab/python/tare_balance",
        "lab/python/zero_balance",
        "lab/python/weigh_sample",
    )
    assert {old, new, other} <= set(router.snapshot().routes)

    with pytest.raises(RegistryLookupError, match="lab/python/nope"):
        router.remove_routes([old, "lab/python/nope"])
    assert old in router.snapshot().routes  # nothing removed
    for junk in ([], "", [3], None):
        with pytest.raises(ArgumentError, match=r"remove_routes\(route_ids=...\)"):
            router.remove_routes(junk)  # type: ignore[arg-type]

    change = router.remove_routes(old)
    assert change.removed == (old,)
    assert set(router.snapshot().routes) == {new, other}
    found = router.retrieve("tare the lab balance", k=5).route_ids
    assert old not in found and new in found
    with pytest.raises(SchemaRouterError):
        router.call(old, {"balance": "B1"})
    assert router.call(new, {"balance": "B1"}).output == {"tare_g": 0.0}
    assert router.call(other, {"balance": "B1"}).output == {"mass_g": 1.25}
