"""A stdio MCP server's stderr reaches this process's stderr line by line after
``upstream PROVIDER: `` (user trial P, low: a gateway's upstream servers wrote into its log
with nothing to say whose line was whose). Real servers (the MCP SDK's) over stdio; the
lines are read from this process's file descriptor 2 (``capfd``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import RegistrationError
from schemarouter.index import HashingEncoder

SERVER = '''
import sys
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

print("starting up", file=sys.stderr, flush=True)
sys.stderr.write("no newline at first ")
sys.stderr.write("then one\\n")
sys.stderr.flush()
sys.stderr.buffer.write(b"\\xff is no UTF-8\\n")
sys.stderr.flush()
server = MCPServer("noisy")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Repeat the text loudly."""
    print(f"shouting {text}", file=sys.stderr, flush=True)
    return text.upper()


server.run("stdio")
'''

CRASHING = """
import sys
sys.stderr.write("Traceback (most recent call last):\\nValueError: no config at /etc/noisy")
sys.exit(3)
"""


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_a_servers_stderr_lines_say_whose_they_are(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "noisy.py").write_text(SERVER)
    router = _router()
    try:
        router.add_mcp_server(
            [sys.executable, str(tmp_path / "noisy.py")], provider="noisy", trusted=True
        )
        assert router.call("noisy/mcp/shout", {"text": "hi"}).output == {"result": "HI"}
    finally:
        router.close()
    lines = capfd.readouterr().err.splitlines()
    ours = [line for line in lines if "upstream noisy" in line]
    assert ours[:2] == [
        "upstream noisy: starting up",
        "upstream noisy: no newline at first then one",
    ]
    assert "upstream noisy: \ufffd is no UTF-8" in ours
    assert "upstream noisy: shouting hi" in ours
    assert not [line for line in lines if line.startswith(("starting up", "shouting"))]


def test_what_a_server_wrote_as_it_crashed_still_comes_out(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The last lines (a traceback without its final newline) before the server exited,
    relayed as the transport closed."""
    (tmp_path / "crashing.py").write_text(CRASHING)
    router = _router()
    with pytest.raises(RegistrationError):
        router.add_mcp_server([sys.executable, str(tmp_path / "crashing.py")], provider="crashy")
    router.close()
    err = capfd.readouterr().err
    assert "upstream crashy: Traceback (most recent call last):" in err
    assert "upstream crashy: ValueError: no config at /etc/noisy\n" in err
