"""What an agent reads when its arguments break an upstream tool's schema (user trial U2).
The upstream is a real MCP server (the SDK's ``MCPServer``, over stdio) whose optional
parameters are ``Literal[...] | None``, as a typed Python tool declares them: their schema
is an ``anyOf`` of the enum and ``null``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig

DESK = '''
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("desk")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_agents(team: Literal["network", "hardware", "accounts"] | None = None) -> list[str]:
    """List the support agents, optionally of one team."""
    return ["sam"] if team == "network" else []


server.run("stdio")
'''


def test_a_value_outside_an_optional_enum_is_told_the_values_it_may_take(
    tmp_path: Path,
) -> None:
    """Trial U2 (medium): ``{"team": "Network"}`` was refused with "'Network' is not valid
    under any of the given schemas": the agent learned neither the values nor that case
    matters, while a required enum's refusal lists them. The refusal now says what each
    alternative wanted."""
    (tmp_path / "desk.py").write_text(DESK)
    config = GatewayConfig(
        mcp_servers=[{"provider": "desk", "command": [sys.executable, str(tmp_path / "desk.py")]}],
        allow={"write": ["desk/mcp/*"]},
    )
    gateway = Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    try:
        with pytest.raises(ParameterValidationError) as refused:
            gateway.call("desk__mcp__list_agents", {"team": "Network"})
        said = str(refused.value)
        assert "'Network' is not one of ['network', 'hardware', 'accounts']" in said, said
        assert "'Network' is not of type 'null'" in said, said
        assert "$.team" in said
        assert gateway.call("desk__mcp__list_agents", {"team": "network"}).output == {
            "result": ["sam"]
        }
    finally:
        gateway.close()
