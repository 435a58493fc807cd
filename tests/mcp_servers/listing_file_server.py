"""A stdio MCP server, written without the SDK, whose tool listing is the JSON list in the
file its first argument names, read again at every ``tools/list`` (a test rewrites it to
change the tools). Every ``tools/call`` is appended, as a JSON line, to ``<file>.calls``,
so a test sees what reached the server; the reply echoes the call."""

import json
import sys


def _reply(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(listing: str) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:  # a notification
            continue
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "listing-file", "version": "1"},
            }
        elif method == "tools/list":
            with open(listing, encoding="utf-8") as handle:
                result = {"tools": json.load(handle)}
        elif method == "tools/call":
            with open(listing + ".calls", "a", encoding="utf-8") as handle:
                handle.write(json.dumps(message["params"]) + "\n")
            text = json.dumps(message["params"])
            result = {"content": [{"type": "text", "text": text}]}
        else:
            result = {}
        _reply({"jsonrpc": "2.0", "id": request_id, "result": result})


if __name__ == "__main__":
    main(sys.argv[1])
