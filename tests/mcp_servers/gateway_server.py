"""``schemarouter serve`` as the tests start it: the gateway from a config file, served over
stdio or streamable HTTP, with the model-free hashing encoder (no model load per start).

Run: ``python gateway_server.py CONFIG [stdio | http PORT]``. Everything else is the
shipped code path: ``load_config``, ``Gateway.from_config`` (catalogs, OpenAPI documents,
upstream MCP servers) and ``run_server`` (the MCP SDK's server and transports).
"""

from __future__ import annotations

import sys

from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, load_config, run_server

if __name__ == "__main__":
    config = load_config(sys.argv[1])
    transport = sys.argv[2] if len(sys.argv) > 2 else "stdio"
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 8000
    gateway = Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    run_server(gateway, transport=transport, port=port)
