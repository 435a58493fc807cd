"""A real MCP server whose tool list changes (the SDK's ``MCPServer``, stdio by default).

Run: ``python changing_server.py [--v2]`` (stdio) or ``python changing_server.py http PORT
[--v2]``. Version 1 lists ``purge_samples`` (no destructive claim), ``legacy_report`` and
``server_pid``; version 2 (``--v2``, a redeploy) lists ``purge_samples`` claiming
``destructiveHint: true``, no ``legacy_report`` and a new ``calibrate_sensor``. The tool
``upgrade`` switches a running version 1 to version 2 and sends
``notifications/tools/list_changed``. Every call is appended to ``$CHANGING_LOG`` (when
set), so a test sees what reached the server.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("changing")


def _log(name: str) -> None:
    path = os.environ.get("CHANGING_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{name}\n")


def purge_samples() -> str:
    """Purge the sample queue of the instrument."""
    _log("purge_samples")
    return "purged"


def legacy_report(month: str) -> str:
    """Legacy monthly instrument usage report."""
    _log("legacy_report")
    return f"report for {month}"


def calibrate_sensor(sensor: str) -> str:
    """Calibrate a sensor of the instrument."""
    _log("calibrate_sensor")
    return f"calibrated {sensor}"


def server_pid() -> int:
    """The server's process id."""
    _log("server_pid")
    return os.getpid()


def version_2() -> None:
    server.remove_tool("purge_samples")
    server.remove_tool("legacy_report")
    server.add_tool(purge_samples, annotations=ToolAnnotations(destructive_hint=True))
    server.add_tool(calibrate_sensor)


async def upgrade(ctx: Context) -> str:
    """Switch the instrument to firmware version 2 (its tools change)."""
    _log("upgrade")
    version_2()
    await ctx.notify_tools_changed()
    return "version 2"


server.add_tool(server_pid)
server.add_tool(upgrade)
server.add_tool(purge_samples)
server.add_tool(legacy_report)

if __name__ == "__main__":
    if "--v2" in sys.argv:
        version_2()
    words = [a for a in sys.argv[1:] if not a.startswith("--")]
    if words and words[0] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(words[1]))
    else:
        server.run()
