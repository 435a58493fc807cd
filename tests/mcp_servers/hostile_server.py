"""The hostile MCP server of the gateway tests: :mod:`schemarouter.training.bench.hostile_mcp`
(the gateway benchmark starts the same one). Run: ``python hostile_server.py [stdio | http PORT]``
and the options that module lists."""

import sys

from schemarouter.training.bench.hostile_mcp import main

if __name__ == "__main__":
    main(sys.argv[1:])
