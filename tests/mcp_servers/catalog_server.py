"""A stdio MCP server, written without the SDK, that lists as many tools as it is told (the
upstream of the large- and hostile-catalog tests of the gateway and its clients).

Run: ``python catalog_server.py TOOLS [--page N] [--names FILE] [--other-id] [--repeat]
[--http PORT [--sse]]``. It lists ``TOOLS`` tools, ``N`` to a page (every tool in one page where no ``--page``; pages are
chained by ``nextCursor``). Tool ``i`` is ``lookup_<i>`` with a generated description, or,
with ``--names FILE`` (a JSON-lines file of tools, as the shared data's
``tooltrain/*.tools.jsonl``), the ``i % len``-th tool's name and description with ``_<i>``
after its name. Every tool reads one ``key``. ``--other-id`` answers every ``tools/call``
under an id one past the request's (a server that mixes its replies up); ``initialize`` and
``tools/list`` are answered as asked. ``--repeat`` lists the first page's tools on every page
(its cursors still go on to ``TOOLS``). ``--http PORT`` serves streamable HTTP on
127.0.0.1 instead of stdio (each reply a JSON body, or with ``--sse`` one server-sent event),
written in pieces of 64 KiB as a large reply streams.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORDS = [
    "invoice",
    "ledger",
    "shipment",
    "parcel",
    "customer",
    "ticket",
    "account",
    "card",
    "payment",
    "order",
    "refund",
    "warehouse",
    "route",
    "sensor",
    "alert",
    "deploy",
    "pod",
    "namespace",
    "report",
    "forecast",
    "contract",
]


def _sources(path: str | None) -> list[tuple[str, str]]:
    if not path:
        return []
    out = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            tool = json.loads(line)
            out.append((str(tool.get("name", "tool")), str(tool.get("description", ""))[:300]))
    return out


def _tool(index: int, sources: list[tuple[str, str]]) -> dict[str, Any]:
    if sources:
        name, description = sources[index % len(sources)]
        name = f"{name}_{index}"
    else:
        first, second = _WORDS[index % len(_WORDS)], _WORDS[(index // len(_WORDS)) % len(_WORDS)]
        name = f"lookup_{index}"
        description = f"Look up the {first} of a {second} by its key (catalog entry {index})"
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    }


def _answerer(argv: list[str]) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    count = int(argv[0])
    page = int(argv[argv.index("--page") + 1]) if "--page" in argv else count or 1
    sources = _sources(argv[argv.index("--names") + 1] if "--names" in argv else None)
    other_id = "--other-id" in argv
    repeat = "--repeat" in argv

    def answer(message: dict[str, Any]) -> dict[str, Any] | None:
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:  # a notification
            return None
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "catalog", "version": "1"},
            }
        elif method == "tools/list":
            start = int(params.get("cursor") or 0)
            end = min(start + page, count)
            first = 0 if repeat else start
            result = {"tools": [_tool(i, sources) for i in range(first, first + end - start)]}
            if end < count:
                result["nextCursor"] = str(end)
        elif method == "tools/call":
            text = json.dumps(params.get("arguments") or {})
            result = {"content": [{"type": "text", "text": text}]}
            if other_id and isinstance(request_id, int):
                request_id += 1
        else:
            result = {}
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    return answer


def _pieces(body: bytes) -> Iterator[bytes]:
    for start in range(0, len(body), 64 * 1024):
        yield body[start : start + 64 * 1024]


def serve_http(port: int, answer: Callable[[dict[str, Any]], Any], *, sse: bool) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes = b"") -> None:
            self.send_response(status)
            self.send_header("Mcp-Session-Id", "catalog")
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for piece in _pieces(body):
                    self.wfile.write(piece)
            except OSError:
                pass  # the client stopped reading (a page it refused)

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            reply = answer(message)
            if reply is None:
                self._send(202)
                return
            body = json.dumps(reply).encode()
            self._send(200, b"event: message\ndata: " + body + b"\n\n" if sse else body)

        def do_GET(self) -> None:
            self._send(405)

        def do_DELETE(self) -> None:
            self._send(200)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()


def main(argv: list[str]) -> None:
    answer = _answerer(argv)
    if "--http" in argv:
        serve_http(int(argv[argv.index("--http") + 1]), answer, sse="--sse" in argv)
        return
    out = sys.stdout
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            out.write(json.dumps(reply) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
