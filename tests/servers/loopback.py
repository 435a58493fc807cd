"""A real HTTP server on 127.0.0.1 (port 0) in a thread, recording every request it sees.

``LoopbackServer(app)`` serves ``app(request) -> Response``; use it as a context manager.
The server speaks HTTP/1.0 (one request per connection) so a response needs no length.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Request:
    method: str
    #: The request target exactly as received (still percent-encoded).
    raw_path: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    #: Every header line as sent (``headers`` keeps one value per name).
    header_lines: tuple[tuple[str, str], ...] = ()

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default


@dataclass
class Response:
    status: int = 200
    body: bytes | Iterable[bytes] = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds to wait before answering (interrupted when the server stops).
    delay: float = 0.0
    #: Bytes written as they are, status line and headers included (for servers that
    #: break HTTP itself); ``status``, ``headers`` and ``body`` are then ignored.
    raw: Iterable[bytes] | None = None
    #: Seconds between the chunks of ``raw`` (a drip).
    pause: float = 0.0


def json_response(data: Any, status: int = 200, **headers: str) -> Response:
    body = json.dumps(data).encode()
    return Response(
        status,
        body,
        {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers},
    )


App = Callable[[Request], Response]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that stop reading (size caps, timeouts) are expected here


class LoopbackServer:
    """Serve ``app`` on loopback; ``requests`` lists every request received."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                request = Request(
                    method=self.command,
                    raw_path=self.path,
                    path=parts.path,
                    query=parse_qs(parts.query, keep_blank_values=True),
                    headers={k: v for k, v in self.headers.items()},
                    body=body,
                    header_lines=tuple(self.headers.items()),
                )
                with server._lock:
                    server.requests.append(request)
                response = server.app(request)
                if response.delay and server.stopping.wait(response.delay):
                    return
                if response.raw is not None:
                    self.close_connection = True
                    try:
                        for piece in response.raw:
                            if server.stopping.wait(response.pause):
                                return
                            self.wfile.write(piece)
                            self.wfile.flush()
                    except OSError:
                        pass  # the client went away (its deadline passed)
                    return
                try:
                    self.send_response(response.status)
                    for key, value in response.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    chunks = [response.body] if isinstance(response.body, bytes) else response.body
                    for chunk in chunks:
                        if server.stopping.is_set():
                            return
                        self.wfile.write(chunk)
                except OSError:
                    pass  # the client went away

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _handle

        self._server = _Server(("127.0.0.1", 0), Handler)
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        self.port = port
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()

    def paths(self) -> list[str]:
        return [r.raw_path for r in self.requests]


#: The ``responses`` of an operation that answers a JSON object (what :func:`ok` sends).
OK_RESPONSES = {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
}


def ok(request: Request) -> Response:
    """An app that answers every request ``{"ok": true}``: the request is what a test reads."""
    return json_response({"ok": True})
