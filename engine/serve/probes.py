"""Health probes of ``schemarouter serve --transport http``: ``GET /healthz`` and ``/readyz``.

What a load balancer or an orchestrator's liveness and readiness checks ask: is the process
answering (``/healthz``: 200 ``{"status": "ok"}``), and is the gateway ready for clients
(``/readyz``: 200 once its index is open and no upstream server is still connecting for the
first time; 503 before, while the index loads or where it did not open, and after the gateway
closed). Both are answered before the bearer-token and Host checks, since probes seldom carry
either, so they say counts only, never a tool's, route's or upstream's name, nor why one
failed (that goes to the log and to ``search_tools``)::

    {"ready": true, "routes": 412, "upstreams": {"ready": 2, "connecting": 0, "failed": 1},
     "index": {"state": "open", "generation": "gen-2894b14938ea",
               "registry_fingerprint": "sha256:eeb3...", "loaded_at": "2026-12-05T00:10:03Z",
               "left_out": 0}}

The index's state, generation, registry fingerprint, load time and the count of sources its
build left out (``--skip-invalid``) are
:mod:`schemarouter.serve.generation`'s (an index that failed says its error's code only). An
upstream that failed does not make the gateway unready: it serves every other tool, and tries
the failed one again in the background. Before these, an operator had no way to ask the
gateway how it was but an MCP session with the token (user trial P).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["PROBE_PATHS", "Probes", "check_path", "readiness"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: The probes' paths (not under the MCP path: they answer whatever ``--path`` is).
PROBE_PATHS = ("/healthz", "/readyz")


def check_path(path: str) -> None:
    """An :class:`~schemarouter.errors.ArgumentError` where the MCP endpoint's ``path`` is a
    probe's: the probes answer it first, so every MCP request got ``405 /healthz answers GET
    and HEAD only`` from a gateway that had said it served MCP there (trial X4)."""
    from schemarouter.errors import ArgumentError

    if path.rstrip("/") in PROBE_PATHS:
        raise ArgumentError(
            f"the MCP path {path!r} is a health probe's ({' and '.join(PROBE_PATHS)} answer "
            "before the MCP endpoint, so no MCP request would reach it)",
            where="--path",
            hint="Serve MCP at another path, such as --path /mcp",
        )


def readiness(gateway: Any) -> tuple[bool, dict[str, Any]]:
    """Whether ``gateway`` is ready for clients, and what ``/readyz`` says of it."""
    upstreams = gateway.upstreams
    connecting = len(upstreams.connecting())
    failed = len(upstreams.failed())
    total = len(gateway.config.mcp_servers)
    closed = bool(getattr(gateway, "closed", False))
    index = gateway.index_state
    body: dict[str, Any] = {
        "ready": connecting == 0 and not closed and index.ready,
        "routes": len(gateway.router.snapshot().routes),
        "upstreams": {
            "ready": max(0, total - connecting - failed),
            "connecting": connecting,
            "failed": failed,
        },
        "index": index.probe(),
    }
    if closed:
        body["closed"] = True
    return bool(body["ready"]), body


class Probes:
    """ASGI middleware: answers ``GET``/``HEAD`` on :data:`PROBE_PATHS` for ``gateway`` and
    passes every other request to ``app``."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], gateway: Any):
        self.app = app
        self.gateway = gateway

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path") if scope.get("type") == "http" else None
        if path not in PROBE_PATHS:
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            status, body = 405, {"error": f"{path} answers GET and HEAD only"}
        elif path == "/healthz":
            status, body = 200, {"status": "ok"}
        else:
            ready, body = readiness(self.gateway)
            status = 200 if ready else 503
        data = json.dumps(body).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"cache-control", b"no-store"),
        ]
        if status == 405:
            headers.append((b"allow", b"GET, HEAD"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else data})
