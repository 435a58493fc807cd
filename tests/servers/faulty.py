"""A loopback server that misbehaves in every way the executor must survive.

Each path is one fault; all of them answer in the Materials Project summary shape
(``{"data": [{"material_id", "band_gap"}]}``) when they answer at all.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from servers.loopback import Request, Response, json_response

GOOD = {"data": [{"material_id": "mp-149", "band_gap": 0.61}]}


class FaultyApp:
    """``other_base`` is where ``/redirect-away`` points (another origin)."""

    def __init__(self, other_base: str = "http://localhost:9") -> None:
        self.other_base = other_base
        self.flaky_failures = 2
        self._counts: dict[str, itertools.count[int]] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()
        self.flaky_failures = 2

    def count(self, key: str) -> int:
        with self._lock:
            return next(self._counts.setdefault(key, itertools.count(1)))

    def __call__(self, request: Request) -> Response:
        path = request.path
        if path == "/slow":
            return Response(
                200, json.dumps(GOOD).encode(), {"Content-Type": "application/json"}, delay=60.0
            )
        if path == "/error500":
            return json_response({"detail": "internal error"}, 500)
        if path == "/not-found":
            return json_response({"detail": "no such material"}, 404)
        if path == "/flaky":
            if self.count("flaky") <= self.flaky_failures:
                return json_response({"detail": "try again"}, 503)
            return json_response(GOOD)
        if path == "/malformed":
            return Response(
                200,
                b'{"data": [{"material_id": "mp-149", "band_gap": 0.6',
                {"Content-Type": "application/json"},
            )
        if path == "/html":
            return Response(
                200, b"<html><body>maintenance</body></html>", {"Content-Type": "text/html"}
            )
        if path == "/schema-break":
            return json_response(
                {
                    "data": [
                        {"material_id": "mp-149", "band_gap": 0.61},
                        {"material_id": "mp-2", "band_gap": "wide"},
                    ]
                }
            )
        if path == "/missing-field":
            return json_response(
                {"data": [{"material_id": "mp-149"}, {"material_id": "mp-2", "band_gap": 1.5}]}
            )
        if path == "/empty-rows":  # a search that found nothing
            return json_response({"data": []})
        if path == "/oversized":
            blob = json.dumps(
                {"data": [{"material_id": "x" * 1000, "band_gap": 1.0}] * 2000}
            ).encode()
            return Response(
                200, blob, {"Content-Type": "application/json", "Content-Length": str(len(blob))}
            )
        if path == "/oversized-stream":
            chunk = b" " * 65536
            return Response(
                200,
                itertools.chain([b'{"data": ['], itertools.repeat(chunk, 200), [b"]}"]),
                {"Content-Type": "application/json"},
            )
        if path == "/redirect-away":
            return Response(302, b"", {"Location": f"{self.other_base}/materials/summary/"})
        if path == "/redirect-home":
            return Response(302, b"", {"Location": "/good?from=redirect"})
        if path in ("/redirect-host", "/redirect-scheme", "/redirect-userinfo"):
            port = request.headers.get("Host", "").rsplit(":", 1)[-1]
            target = {
                "/redirect-host": f"http://localhost:{port}/good",
                "/redirect-scheme": f"https://127.0.0.1:{port}/good",
                "/redirect-userinfo": f"http://127.0.0.1:{port}@localhost:{port}/good",
            }[path]
            return Response(302, b"", {"Location": target})
        if path == "/redirect-loop":
            return Response(302, b"", {"Location": "/redirect-loop"})
        if path == "/good":
            return json_response(GOOD)
        if path.startswith("/echo/"):
            return json_response({"data": [{"material_id": request.raw_path, "band_gap": 1.0}]})
        return json_response({"detail": "unknown fault"}, 404)


def record(seen: list[Any]) -> Any:
    """An httpx event hook that records every request URL (sync)."""

    def hook(request: Any) -> None:
        seen.append(request.url)

    return hook
