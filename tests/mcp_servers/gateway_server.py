"""``schemarouter serve`` as the tests start it: the gateway from a config file, served over
stdio or streamable HTTP, with the model-free hashing encoder (no model load per start).

Run: ``python gateway_server.py CONFIG [stdio | http PORT] [--host H] [--allowed-host N]
[--token-env VAR] [--insecure] [--background]``. Everything else is the shipped code path:
``load_config``, ``Gateway.from_config`` (catalogs, OpenAPI documents, upstream MCP servers;
``--background``: connected as ``schemarouter serve`` does, all at once while the server
answers) and ``run_server`` (the MCP SDK's server and transports, the bearer-token and Host
checks).
"""

from __future__ import annotations

import sys

from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, load_config, run_server
from schemarouter.serve.security import read_token


def _options(argv: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    words: list[str] = []
    options: dict[str, list[str]] = {}
    rest = iter(argv)
    for word in rest:
        if word in ("--insecure", "--background"):
            options.setdefault(word, []).append("")
        elif word.startswith("--"):
            options.setdefault(word, []).append(next(rest))
        else:
            words.append(word)
    return words, options


if __name__ == "__main__":
    words, options = _options(sys.argv[1:])
    background = "--background" in options
    config = load_config(words[0])
    transport = words[1] if len(words) > 1 else "stdio"
    port = int(words[2]) if len(words) > 2 else 8000
    token_env = options.get("--token-env", [None])[0]
    token = read_token(env=token_env) if token_env else None
    gateway = Gateway.from_config(
        config,
        background=background,
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
    )
    run_server(
        gateway,
        transport=transport,
        port=port,
        host=options.get("--host", ["127.0.0.1"])[0],
        token=token,
        allowed_hosts=options.get("--allowed-host", []),
        insecure="--insecure" in options,
    )
