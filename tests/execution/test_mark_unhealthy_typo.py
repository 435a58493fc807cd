"""Trial T6: ``router.mark_unhealthy`` took a misspelt route id of a registered provider
without a word. The host believed it had taken the route out, and ``retrieve_executable``
went on offering it (and ``call`` running it)."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import RegistryLookupError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer
from servers.user_api import FORECAST, weather_openapi


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def test_marking_a_misspelt_route_of_a_registered_provider_is_refused(
    weather: LoopbackServer,
) -> None:
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    query = "daily weather forecast"
    assert FORECAST in router.retrieve_executable(query, k=3).route_ids

    typo = FORECAST[:-1]  # weather/rest/get_forecas
    with pytest.raises(RegistryLookupError) as caught:
        router.mark_unhealthy(typo, cooldown=60)
    message = str(caught.value)
    # what, where, what to do: the id, that its provider has no such route, the one meant
    assert repr(typo) in message and "weather" in message, message
    assert "nothing was marked" in message, message
    assert repr(FORECAST) in message, message
    # nothing was marked: the route is still offered and healthy
    assert router.is_healthy(FORECAST)
    assert FORECAST in router.retrieve_executable(query, k=3).route_ids

    # the id meant takes it out, as before
    router.mark_unhealthy(FORECAST, cooldown=60)
    result = router.retrieve_executable(query, k=3)
    assert FORECAST not in result.route_ids
    assert "the host marked it unhealthy" in result.blocked


def test_routes_of_other_providers_and_removed_routes_are_still_marked(
    weather: LoopbackServer,
) -> None:
    """Execution marks a route that a replace removed while its call was in flight, and a
    host may mark a route of a provider still to be registered: neither is refused."""
    router = _router()
    document = weather_openapi(weather.base_url)
    router.add_openapi(document, provider="weather")
    router.mark_unhealthy("elsewhere/rest/get_thing", cooldown=60)
    assert not router.is_healthy("elsewhere/rest/get_thing")

    without = dict(
        document,
        paths={
            path: item for path, item in document["paths"].items() if "getForecast" not in str(item)
        },
    )
    router.add_openapi(without, provider="weather", replace=True)
    assert FORECAST not in router.snapshot().routes
    router.mark_unhealthy(FORECAST, cooldown=60)  # removed: no typo, not refused


def test_ending_or_asking_about_a_misspelt_routes_cooldown_is_refused(
    weather: LoopbackServer,
) -> None:
    """Trial T6 (low): ``mark_healthy`` and ``cooldown_reason`` answered a misspelt id of a
    registered provider silently (no cooldown ended; "healthy"), while the route meant stayed
    out."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.mark_unhealthy(FORECAST, cooldown=60, reason="the upstream answered 500")
    typo = FORECAST[:-1]
    with pytest.raises(RegistryLookupError, match="no cooldown was ended") as caught:
        router.mark_healthy(typo)
    assert repr(FORECAST) in str(caught.value) and "mark_healthy(route_id=...)" in str(caught.value)
    with pytest.raises(RegistryLookupError, match="it has no cooldown to tell of"):
        router.cooldown_reason(typo)
    assert not router.is_healthy(FORECAST)  # nothing ended
    assert router.cooldown_reason(FORECAST) == "the upstream answered 500"
    router.mark_healthy(FORECAST)
    assert router.is_healthy(FORECAST) and router.cooldown_reason(FORECAST) is None
    router.mark_healthy("elsewhere/rest/get_thing")  # another provider's: as before


def test_asking_whether_a_misspelt_route_is_healthy_is_refused(weather: LoopbackServer) -> None:
    """Last stop's low: ``is_healthy`` and ``cooldown_left`` of a misspelt id answered
    "healthy" and 0.0 s while the route meant was cooling; a host that checked before calling
    read the wrong route's health."""
    router = _router()
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.mark_unhealthy(FORECAST, cooldown=60)
    typo = FORECAST[:-1]
    for ask in (router.is_healthy, router.cooldown_left):
        with pytest.raises(RegistryLookupError, match="it has no health to tell of") as caught:
            ask(typo)
        assert repr(FORECAST) in str(caught.value), str(caught.value)
        assert f"{ask.__name__}(route_id=...)" in str(caught.value)
    assert not router.is_healthy(FORECAST) and router.cooldown_left(FORECAST) > 50
    assert router.is_healthy("elsewhere/rest/get_thing")  # another provider's: as before
    assert router.cooldown_left("elsewhere/rest/get_thing") == 0.0
