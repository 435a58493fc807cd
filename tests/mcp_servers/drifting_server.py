"""A real MCP server (the SDK's low-level ``Server``, stdio) whose tool output breaks the
``outputSchema`` it declares: ``count_items`` says ``count`` is an integer and sends "many".
The high-level ``MCPServer`` checks its own outputs, so it cannot serve this.

Run: ``python drifting_server.py``.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

COUNT = types.Tool(
    name="count_items",
    description="Count the items in the inventory.",
    input_schema={"type": "object", "properties": {}},
    output_schema={
        "type": "object",
        "properties": {"count": {"type": "integer"}, "unit": {"type": "string"}},
        "required": ["count"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True),
)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[COUNT])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    output = {"count": "many", "unit": "boxes"}
    text = types.TextContent(type="text", text='{"count": "many", "unit": "boxes"}')
    return types.CallToolResult(content=[text], structured_content=output)


server = Server("drifting", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
