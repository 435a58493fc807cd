"""The MCP tool-search server and gateway (``schemarouter serve``; extra ``serve``).

:class:`~schemarouter.serve.gateway.Gateway` answers ``search_tools``, ``describe_tool`` and
``call_tool`` through the router's public API; :func:`~schemarouter.serve.server.build_server`
puts it behind the MCP SDK's server (stdio or streamable HTTP); a
:class:`~schemarouter.serve.config.GatewayConfig` (YAML or JSON) says what to register:
catalogs, OpenAPI documents, recorded tool listings and upstream MCP servers, and which
routes may have effects. Importing this package does not import the MCP SDK.
"""

from schemarouter.serve.config import GatewayConfig, load_config, parse_source
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.server import build_server, run_server
from schemarouter.serve.sources import build_router, register_sources

__all__ = [
    "Gateway",
    "GatewayConfig",
    "build_router",
    "build_server",
    "load_config",
    "parse_source",
    "register_sources",
    "run_server",
]
