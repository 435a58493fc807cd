"""A real MCP server whose tools answer as late as asked (the SDK's ``MCPServer``).

Run: ``python slow_server.py`` (stdio) or ``python slow_server.py http PORT``. ``wait``
claims to be read-only, ``wait_and_write`` carries no annotation (a write); each sleeps
``seconds`` before answering. Every call is appended to ``$SLOW_LOG`` (when set) as it
arrives, so a test sees how many times a call reached the server.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("slow")


def _log(name: str) -> None:
    path = os.environ.get("SLOW_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{name}\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def wait(seconds: float) -> str:
    """Read a slow instrument: answers after ``seconds``."""
    _log("wait")
    await anyio.sleep(seconds)
    return "read"


@server.tool()
async def wait_and_write(seconds: float) -> str:
    """Write to a slow instrument: answers after ``seconds``."""
    _log("wait_and_write")
    await anyio.sleep(seconds)
    return "written"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
