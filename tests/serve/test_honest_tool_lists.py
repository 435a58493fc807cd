"""Honest tool lists (issue #25): a filtered search says which better matches it left out and
why, and the gateway never offers a tool it knows cannot run here (an effect its config does
not allow, a credential its environment lacks, no invoker) unless asked to list them all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig

from servers.loopback import LoopbackServer
from servers.user_api import weather_openapi

TIME_TOOLS = [  # as mcp-server-time lists them; a recorded listing is untrusted: writes
    {
        "name": "get_current_time",
        "description": "Get the current time in a specific timezone.",
        "inputSchema": {
            "type": "object",
            "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
            "required": ["timezone"],
        },
    },
    {
        "name": "convert_time",
        "description": "Convert a time between timezones.",
        "inputSchema": {
            "type": "object",
            "properties": {"time": {"type": "string"}, "source_timezone": {"type": "string"}},
        },
    },
]

KEYED = {  # a read that needs a key, as the bundled catalog's Materials Project routes do
    "openapi": "3.0.3",
    "info": {"title": "Clock API", "version": "1"},
    "servers": [{"url": "https://clock.example.org"}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}
    },
    "security": [{"key": []}],
    "paths": {
        "/time/{zone}": {
            "get": {
                "operationId": "getTimeInZone",
                "summary": "Current time in a timezone",
                "parameters": [
                    {"name": "zone", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.fixture
def router(weather: LoopbackServer) -> Iterator[SchemaRouter]:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    router.add_mcp_tools(TIME_TOOLS, provider="time")
    router.add_openapi(KEYED)
    yield router
    router.close()


def _names(answer: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in answer["tools"]]


def test_retrieve_executable_says_why_the_best_matches_are_left_out(
    router: SchemaRouter,
) -> None:
    found = router.retrieve_executable("create a weather alert for Nice", k=2)
    assert "weather/rest/create_alert" not in found.route_ids
    assert found.blocked.startswith("1 matching route is not allowed: weather/rest/create_alert")
    assert "effect write is not allowed, only read" in found.blocked
    assert "allowed_effects" in found.blocked  # what to do
    assert {e.route_id for e in found.exclusions} >= {"weather/rest/create_alert"}
    quiet = router.retrieve_executable("weather forecast for Lyon", k=1)
    assert quiet.route_ids == ("weather/rest/get_forecast",) and quiet.blocked == ""


def test_a_search_without_allow_says_the_matching_tools_are_not_allowed(
    router: SchemaRouter,
) -> None:
    answer = Gateway(router, GatewayConfig()).search("what time is it in Tokyo", k=3)
    names = _names(answer)
    assert not {"time__mcp__get_current_time", "clock__rest__get_time_in_zone"} & set(names)
    blocked = answer["blocked"]
    assert "matching tools are not allowed: time__mcp__get_current_time" in blocked
    assert (
        "allow them in the gateway config (allow.write or allow.destructive) or with serve "
        "--allow-write / --allow-destructive" in blocked
    )
    assert "1 matching tool needs a credential that is missing: clock__rest__get_time_in_zone" in (
        blocked
    )
    assert "CLOCK_API_KEY" in blocked


def test_a_tool_whose_credential_is_set_is_offered(
    router: SchemaRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOCK_API_KEY", "k")
    config = GatewayConfig(allow={"write": ["time/mcp/*"]})
    answer = Gateway(router, config).search("what time is it in Tokyo", k=3)
    assert "clock__rest__get_time_in_zone" in _names(answer)
    # allowed now, but a recorded listing has no session to run it: left out, and said
    assert "time__mcp__get_current_time" not in _names(answer)
    assert "cannot run here: time__mcp__get_current_time" in answer["blocked"]


def test_a_left_out_effect_is_worded_per_route_as_the_config_allows_them(
    router: SchemaRouter,
) -> None:
    """With write allowed for named tools only, a destructive match was said to be "not
    allowed, only read, write", as if any write could run: it is the route that is not named."""
    alarm = {
        "name": "delete_alarm",
        "description": "Delete an alarm clock alarm",
        "inputSchema": {"type": "object", "properties": {"alarm": {"type": "string"}}},
        "annotations": {"destructiveHint": True},
    }
    router.add_mcp_tools([alarm], provider="alarms")
    config = GatewayConfig(allow={"write": ["time/mcp/*"]})
    answer = Gateway(router, config).search("delete my alarm clock alarm", k=3)
    assert "alarms__mcp__delete_alarm" not in _names(answer)
    blocked = answer["blocked"]
    assert "not allowed: alarms__mcp__delete_alarm" in blocked
    assert "effect destructive, not named under allow.destructive" in blocked
    assert "only read" not in blocked


def test_a_long_request_and_a_large_k_are_answered_within_bounds(router: SchemaRouter) -> None:
    gateway = Gateway(router, GatewayConfig())
    answer = gateway.search("weather forecast for Lyon " * 4000, k=1000)
    assert len(answer["query"]) < 300 and "characters)" in answer["query"]
    assert answer["capped"] == "k=1000 is above search.max_k=20: 20 tools at most"
    assert "capped" not in gateway.search("weather forecast for Lyon", k=3)


def test_asked_to_list_every_route_the_gateway_does(router: SchemaRouter) -> None:
    config = GatewayConfig(search={"executable_only": False})
    answer = Gateway(router, config).search("what time is it in Tokyo", k=3)
    assert "time__mcp__get_current_time" in _names(answer) and "blocked" not in answer


def test_a_server_that_joins_during_a_search_never_turns_the_answer_into_an_error(
    router: SchemaRouter, weather: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upstream registering its tools between the gateway's look at the registry and the
    router's retrieval (what ``serve`` does while upstreams join in the background): the
    search answers from the registry the retrieval read, the new tools included."""
    gateway = Gateway(router, GatewayConfig())
    retrieve_executable = router.retrieve_executable
    joined: list[str] = []

    def joining(*args: Any, **kwargs: Any) -> Any:
        if not joined:
            joined.append("late")
            router.add_openapi(weather_openapi(weather.base_url), provider="late")
        return retrieve_executable(*args, **kwargs)

    monkeypatch.setattr(router, "retrieve_executable", joining)
    answer = gateway.search("weather forecast for Lyon", k=5)
    assert joined and {"weather__rest__get_forecast", "late__rest__get_forecast"} <= set(
        _names(answer)
    )
