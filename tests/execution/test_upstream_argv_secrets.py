"""A stdio MCP server's key passed on its command line (``--api-key VALUE``) is hidden where
its env's values are: in its tools' outputs and errors, in the lines it writes to stderr
(relayed into the log) and in the connection's name there, as its routes' ``server``
label hides it (trial V1: the label hid it since trial W1, while an error that echoed it
gave it to the agent, and the log had it as written). A real server (the MCP SDK's) over
stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder

SERVER = """
import sys
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

KEY = sys.argv[sys.argv.index("--api-key") + 1]
print(f"starting with key {KEY}", file=sys.stderr, flush=True)
server = MCPServer("echoing")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def balance() -> dict:
    \"\"\"The account balance.\"\"\"
    raise ToolError(f"the backend refused key {KEY}")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def whoami() -> dict:
    \"\"\"Who the backend says we are.\"\"\"
    return {"user": "svc", "key": KEY}


server.run("stdio")
"""

KEY = "sk-argv-" + "Qw3Er4Ty5Ui6" * 2


def test_a_key_on_the_command_line_is_in_no_tool_error_or_log_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "echoing.py").write_text(SERVER)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "echoing.py"), "--api-key", KEY],
            provider="echoing",
            trusted=True,
        )
        with pytest.raises(SchemaRouterError) as raised:
            router.call("echoing/mcp/balance").raise_for_error()
        said = str(raised.value)
        output = router.call("echoing/mcp/whoami").output
    finally:
        router.close()
    assert "the backend refused key [redacted]" in said, said
    assert KEY not in said
    assert output == {"user": "svc", "key": "[redacted]"}, output
    logged = capfd.readouterr().err  # the server's stderr, relayed line by line
    assert "upstream echoing: starting with key [redacted]" in logged, logged[-2000:]
    assert KEY not in logged


def test_a_connection_is_named_without_its_command_lines_key() -> None:
    from schemarouter.execution.invokers.mcp import MCPConnection

    named = repr(MCPConnection(["node", "server.js", "--api-key", KEY, f"--token={KEY}x"]))
    assert "node server.js --api-key '[redacted]' '--token=[redacted]'" in named, named
    assert KEY not in named
