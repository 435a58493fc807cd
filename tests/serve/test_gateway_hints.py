"""What the gateway tells an agent when a call fails says what the agent can do: never a
Python call it cannot make (``Pass partial=True``, ``router.mark_healthy(...)``; user trial S
#6). The upstream is a real MCP server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from schemarouter.errors import OutputValidationError, PolicyError, SchemaRouterError
from schemarouter.index import HashingEncoder
from schemarouter.integrations.names import tool_name
from schemarouter.serve import Gateway, GatewayConfig
from schemarouter.serve.gateway import error_text

from servers.user_api import ALERT, FORECAST, weather_openapi

SERVERS = Path(__file__).parents[1] / "mcp_servers"


def _gateway(script: str) -> Gateway:
    config = GatewayConfig(
        mcp_servers=[
            {"provider": "lab", "command": [sys.executable, str(SERVERS / script)], "trusted": True}
        ]
    )
    return Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )


def test_an_output_that_breaks_its_schema_is_explained_without_partial() -> None:
    gateway = _gateway("drifting_server.py")
    try:
        with pytest.raises(OutputValidationError) as refused:
            gateway.call("lab__mcp__count_items")
    finally:
        gateway.close()
    assert "partial=True" in str(refused.value)  # the library's own word, for Python callers
    text = error_text(refused.value)
    assert "partial" not in text and "$.count" in text
    assert "breaks the outputSchema it declares: use another tool" in text


def test_a_cooling_down_tool_is_explained_without_mark_healthy() -> None:
    gateway = _gateway("notes_server.py")
    try:
        gateway.router.mark_unhealthy("lab/mcp/search_notes", cooldown=60)
        with pytest.raises(PolicyError) as refused:
            gateway.call("lab__mcp__search_notes", {"query": "gan"})
    finally:
        gateway.close()
    text = error_text(refused.value)
    assert "mark_healthy" not in text and "router." not in text
    assert "Call again after the cooldown" in text


def test_a_refused_call_names_the_tool_not_the_route_id(weather: Any, tmp_path: Path) -> None:
    """Behind the gateway, a call's refusal named its route (``at call
    (weather/rest/get_forecast) arguments $.days``, ``at weather/rest/create_alert``) where
    the in-process tools name the tool the agent was given, as the docs say both do (a
    user trial through the OpenAI Agents SDK). The user's API runs on loopback."""
    document = tmp_path / "weather.json"
    document.write_text(json.dumps(weather_openapi(weather.base_url)))
    config = GatewayConfig(openapi=[{"source": str(document), "provider": "weather"}])
    gateway = Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    try:
        with pytest.raises(SchemaRouterError) as bad:
            gateway.call(tool_name(FORECAST), {"city": "Paris", "days": 99})
        with pytest.raises(PolicyError) as write:
            gateway.call(tool_name(ALERT), {"body": {"city": "Nice", "message": "storm"}})
        texts = [error_text(bad.value), error_text(write.value)]
    finally:
        gateway.close()
    assert f"at tool {tool_name(FORECAST)} arguments $.days" in texts[0]
    assert f"at tool {tool_name(ALERT)}" in texts[1]
    # trial D: a gateway started with flags has no config to edit; the hint names both
    assert "under allow.write in the gateway config, or start serve with --allow-write" in texts[1]
    assert not any(route in text for text in texts for route in (FORECAST, ALERT))
