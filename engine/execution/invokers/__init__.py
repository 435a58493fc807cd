"""Invokers: how a bound route is called (HTTP through httpx, MCP sessions, Python callables).

Each invoker module builds its operation from registered facts and performs it twice over,
once blocking and once awaiting; :mod:`schemarouter.execution.drivers` drives either.
"""

from schemarouter.execution.invokers.http import HttpTarget, bind_http_routes
from schemarouter.execution.invokers.mcp import MCPConnection, bind_mcp_session

__all__ = ["HttpTarget", "MCPConnection", "bind_http_routes", "bind_mcp_session"]
