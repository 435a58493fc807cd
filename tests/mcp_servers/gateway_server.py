"""``schemarouter serve`` as the tests start it: the gateway from a config file, served over
stdio or streamable HTTP, with the model-free hashing encoder (no model load per start).

Run: ``python gateway_server.py CONFIG [stdio | http PORT] [--background]``. Everything else
is the shipped code path: ``load_config``, ``Gateway.from_config`` (catalogs, OpenAPI
documents, upstream MCP servers; ``--background``: connected as ``schemarouter serve`` does,
all at once while the server answers) and ``run_server`` (the MCP SDK's server and
transports).
"""

from __future__ import annotations

import sys

from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, load_config, run_server

if __name__ == "__main__":
    background = "--background" in sys.argv
    argv = [a for a in sys.argv if a != "--background"]
    config = load_config(argv[1])
    transport = argv[2] if len(argv) > 2 else "stdio"
    port = int(argv[3]) if len(argv) > 3 else 8000
    gateway = Gateway.from_config(
        config,
        background=background,
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
    )
    run_server(gateway, transport=transport, port=port)
