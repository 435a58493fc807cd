"""An MCP server that attacks its client, written without the SDK so every byte is its own
(the upstream of :mod:`.gateway_limits` and of the gateway's hardening tests).

Run: ``python -m schemarouter.training.bench.hostile_mcp [stdio]`` or ``... http PORT``
(streamable HTTP on 127.0.0.1, JSON responses). Options: ``--mute`` never answers anything
(not even ``initialize``); ``--schema-file FILE`` makes the ``lookup`` tool's input schema
say whatever the file says when the server starts (a reconnect picks up a change);
``--pid-file FILE`` writes the process id there first (to check nothing outlives its client).

Tools:

- ``echo(text)``: ``{"text": text}``, the well-behaved control;
- ``huge(mb, id_last=False)``: a reply of ``mb`` MB of text, written in 1 MiB slices (its
  ``id`` first, or last where ``id_last``);
- ``long_error(chars)``: a JSON-RPC error whose message is ``chars`` characters of one word;
- ``slow(seconds)``: answers after ``seconds``;
- ``pid()``: the process id; ``crash()``: the process exits mid-call;
- ``endless()``: a reply whose line never ends (its ``id`` first, then text for ever);
- ``lookup(...)``: the tool whose schema comes from ``--schema-file``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SLICE = 1024 * 1024
PROTOCOL = "2025-06-18"


def _schema(path: str | None) -> dict[str, Any]:
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            loaded: dict[str, Any] = json.load(handle)
            return loaded
    return {"type": "object", "properties": {"key": {"type": "string"}}}


def _tools(schema_file: str | None) -> list[dict[str, Any]]:
    def tool(name: str, properties: dict[str, Any], description: str) -> dict[str, Any]:
        return {
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
            "annotations": {"readOnlyHint": True},
        }

    return [
        tool("echo", {"text": {"type": "string"}}, "Echo a text back"),
        tool(
            "huge",
            {"mb": {"type": "integer"}, "id_last": {"type": "boolean"}},
            "A reply of many megabytes",
        ),
        tool("long_error", {"chars": {"type": "integer"}}, "An error with a long message"),
        tool("slow", {"seconds": {"type": "number"}}, "Answer after a while"),
        tool("pid", {}, "The server's process id"),
        tool("crash", {}, "End the server process mid-call"),
        tool("malformed", {}, "A result whose content is not a list"),
        tool("endless", {}, "A reply that never ends"),
        {
            "name": "lookup",
            "description": "Look a key up",
            "inputSchema": _schema(schema_file),
            "annotations": {"readOnlyHint": True},
        },
    ]


def _result(request_id: Any, data: Any) -> bytes:
    result = {
        "content": [{"type": "text", "text": json.dumps(data)}],
        "structuredContent": data,
    }
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


def _huge(request_id: Any, mb: int, id_last: bool) -> Iterator[bytes]:
    head = b'{"jsonrpc":"2.0",'
    ident = b'"id":' + json.dumps(request_id).encode()
    yield head + (b"" if id_last else ident + b",")
    yield b'"result":{"content":[{"type":"text","text":"'
    for _ in range(mb):
        yield b"a" * SLICE
    yield b'"}]}' + (b"," + ident if id_last else b"") + b"}"


def _endless(request_id: Any) -> Iterator[bytes]:
    yield b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b","
    yield b'"result":{"content":[{"type":"text","text":"'
    while True:
        yield b"a" * SLICE


class Hostile:
    def __init__(self, schema_file: str | None, mute: bool) -> None:
        self.schema_file = schema_file
        self.mute = mute

    def answer(self, message: dict[str, Any]) -> Iterator[bytes] | None:
        """The reply to ``message`` as byte slices (``None``: a notification, or muted)."""
        if self.mute or "id" not in message:
            return None
        request_id, method = message["id"], message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": PROTOCOL,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"},
            }
            body = {"jsonrpc": "2.0", "id": request_id, "result": result}
            return iter([json.dumps(body).encode()])
        if method == "tools/list":
            body = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"tools": _tools(self.schema_file)},
            }
            return iter([json.dumps(body).encode()])
        if method == "ping":
            return iter([json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}}).encode()])
        if method != "tools/call":
            error = {"code": -32601, "message": f"no method {method}"}
            return iter([json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()])
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "huge":
            return _huge(request_id, int(arguments.get("mb", 1)), bool(arguments.get("id_last")))
        if name == "long_error":
            error = {"code": -32000, "message": "x" * int(arguments.get("chars", 100))}
            return iter([json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()])
        if name == "slow":
            time.sleep(float(arguments.get("seconds", 1)))
            return iter([_result(request_id, {"slept": arguments.get("seconds", 1)})])
        if name == "pid":
            return iter([_result(request_id, {"pid": os.getpid()})])
        if name == "crash":
            os._exit(3)
        if name == "endless":
            return _endless(request_id)
        if name == "malformed":
            body = {"jsonrpc": "2.0", "id": request_id, "result": {"content": "not a list"}}
            return iter([json.dumps(body).encode()])
        if name == "lookup":
            return iter([_result(request_id, {"found": arguments})])
        return iter([_result(request_id, {"text": arguments.get("text", "")})])


def serve_stdio(server: Hostile) -> None:
    out = sys.stdout.buffer
    lock = threading.Lock()

    def reply(message: dict[str, Any]) -> None:
        slices = server.answer(message)
        if slices is None:
            return
        with lock:
            for part in slices:
                out.write(part)
            out.write(b"\n")
            out.flush()

    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        # every request on its own thread: a slow one does not hold the others
        threading.Thread(target=reply, args=(message,), daemon=True).start()


def serve_http(server: Hostile, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, slices: Iterator[bytes] | None, extra: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in extra.items():
                self.send_header(key, value)
            if slices is None:
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for part in slices:
                    self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except OSError:  # the client stopped reading
                self.close_connection = True

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            message = json.loads(self.rfile.read(length))
            slices = server.answer(message)
            if slices is None and not server.mute:
                self._send(202, None, {})
                return
            if server.mute:
                time.sleep(3600)
            extra = {"Mcp-Session-Id": "hostile-session"}
            self._send(200, slices, extra)

        def do_GET(self) -> None:
            self._send(405, None, {"Allow": "POST"})

        def do_DELETE(self) -> None:
            self._send(200, None, {})

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def main(argv: list[str]) -> None:
    schema_file = _option(argv, "--schema-file")
    pid_file = _option(argv, "--pid-file")
    if pid_file:
        with open(pid_file, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    server = Hostile(schema_file, mute="--mute" in argv)
    words = [a for a in argv if not a.startswith("--") and a not in (schema_file, pid_file)]
    if words and words[0] == "http":
        serve_http(server, int(words[1]))
    else:
        serve_stdio(server)


if __name__ == "__main__":
    main(sys.argv[1:])
