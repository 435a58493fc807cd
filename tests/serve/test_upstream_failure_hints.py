"""A call an upstream MCP server could not answer says what the agent can do (user trial
U2): its server is down, restarting or too slow (call it again later, or use another tool),
or its reply was too large (ask for less). Real servers: tests/mcp_servers/notes_server.py
over streamable HTTP, and the hostile server's ``huge`` tool over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter.errors import InvocationError
from schemarouter.index import HashingEncoder
from schemarouter.integrations.wording import agent_error
from schemarouter.serve import Gateway, GatewayConfig

from servers.processes import free_port, serving

SERVERS = Path(__file__).parents[1] / "mcp_servers"


def _gateway(server: dict[str, object]) -> Gateway:
    config = GatewayConfig(mcp_servers=[{"provider": "lab", "trusted": True, **server}])
    return Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )


def test_a_read_whose_server_is_down_says_to_call_again_later() -> None:
    """Trial U2 (medium): with its HTTP upstream stopped, a read failed with "the MCP call
    failed: ConnectError: All connection attempts failed (after 2 attempts, 0.2 s in all)"
    and nothing the agent could do, where every other refusal says it."""
    port = free_port()
    command = [sys.executable, str(SERVERS / "notes_server.py"), "http", str(port)]
    with serving(command, port):
        gateway = _gateway({"url": f"http://127.0.0.1:{port}/mcp"})
        assert gateway.call("lab__mcp__search_notes", {"query": "band gap"}).ok
    try:
        with pytest.raises(InvocationError, match="the MCP call failed") as failed:
            gateway.call("lab__mcp__search_notes", {"query": "band gap"})
        said = agent_error(failed.value, operator="the gateway's operator")
        assert "Call it again later (its server may be restarting), or use another tool" in said, (
            said
        )
    finally:
        gateway.close()


def test_a_reply_too_large_to_read_says_to_ask_for_less() -> None:
    """The same trial's 12 MiB export (a 24 MiB reply: the text and the structured output)
    failed with "the server's reply is larger than 21037056 bytes ...; it was not read" and
    nothing to do; a smaller output over the cap already said "Ask for less"."""
    command = [sys.executable, str(SERVERS / "hostile_server.py")]
    gateway = _gateway({"command": command, "max_response_bytes": 1_000_000})
    try:
        with pytest.raises(InvocationError, match="larger than 2065536 bytes") as failed:
            gateway.call("lab__mcp__huge", {"mb": 3})
        said = agent_error(failed.value, operator="the gateway's operator")
        assert "Ask for less (narrower arguments, fewer records)" in said, said
        assert "again later" not in said
    finally:
        gateway.close()
