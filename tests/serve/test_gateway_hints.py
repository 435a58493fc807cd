"""What the gateway tells an agent when a call fails says what the agent can do: never a
Python call it cannot make (``Pass partial=True``, ``router.mark_healthy(...)``; user trial S
#6). The upstream is a real MCP server over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter.errors import OutputValidationError, PolicyError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig
from schemarouter.serve.gateway import error_text

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
