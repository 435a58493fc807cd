"""An upstream's secrets (the values of its own ``env``, read from the gateway's environment
with ``${NAME}``) never reach the agent through the server's error messages (user trial U2).
The upstream is a real MCP server (the SDK's ``MCPServer``, over stdio)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter.errors import InvocationError
from schemarouter.index import HashingEncoder
from schemarouter.integrations.wording import agent_error
from schemarouter.serve import Gateway, load_config

SHARE = '''
import os
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("share")
READ = ToolAnnotations(readOnlyHint=True)


@server.tool(annotations=READ)
def check_backend() -> str:
    """Check the connection to the storage backend."""
    raise ToolError(f"backend refused credentials (token={os.environ['SHARE_TOKEN']})")


@server.tool(annotations=READ)
def backend_port() -> str:
    """The storage backend's port."""
    raise ToolError(f"nothing listens on port {os.environ['SHARE_PORT']}")


server.run("stdio")
'''


def test_an_upstream_error_that_echoes_its_token_reaches_the_agent_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial U2 (medium): the file share's error "backend refused credentials
    (token=sharetok-...)" reached the agent whole through call_tool, although the token was
    the gateway's own secret (``SHARE_TOKEN: "${SHARE_TOKEN}"`` in the config)."""
    (tmp_path / "share.py").write_text(SHARE)
    (tmp_path / "gateway.yaml").write_text(
        "mcp_servers:\n"
        f"  - provider: share\n    command: [{sys.executable}, share.py]\n    trusted: true\n"
        '    env: {SHARE_TOKEN: "${SHARE_TOKEN}", SHARE_PORT: "8443"}\n'
    )
    monkeypatch.setenv("SHARE_TOKEN", "sharetok-5f3a9c1e77d2")
    monkeypatch.chdir(tmp_path)
    gateway = Gateway.from_config(
        load_config(tmp_path / "gateway.yaml"),
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
    )
    try:
        with pytest.raises(InvocationError, match="backend refused credentials") as refused:
            gateway.call("share__mcp__check_backend")
        said = agent_error(refused.value, operator="the gateway's operator")
        assert "sharetok-5f3a9c1e77d2" not in said, said
        assert "(token=[redacted])" in said, said
        with pytest.raises(InvocationError, match="nothing listens on port 8443"):
            gateway.call("share__mcp__backend_port")  # a number stays
    finally:
        gateway.close()
