"""Stopping ``schemarouter serve --transport http`` without cutting the requests under way.

On SIGTERM (or Ctrl-C) the server stops accepting connections, lets the requests under way
finish (a ``call_tool`` whose upstream is still answering included) for up to
:data:`DRAIN_SECONDS`, then ends the clients' open notification streams and closes the
gateway; the log says how many requests it waited for and whether any was cut. Before, the
SSE library under the MCP SDK ended every stream at the signal: a call under way reached its
upstream (a write ran there) and its client got an empty answer (user trial W4).

The process then ends by the signal, as uvicorn does (exit status 143 in a shell, ``-15``
to ``subprocess``; 130 for Ctrl-C), which service managers read as a clean stop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["DRAIN_SECONDS", "InFlight", "draining_server"]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: Seconds the requests under way get to finish once the server is told to stop (below the
#: 30 s an orchestrator such as Kubernetes waits before it kills the process).
DRAIN_SECONDS = 25.0


class InFlight:
    """ASGI middleware: counts the requests under way. A ``GET`` is not counted: it is a
    probe, or a client's notification stream, which stays open until the client leaves."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app
        self.count = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        self.count += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.count -= 1


async def _release_streams(app: InFlight, seconds: float) -> None:
    """Once the requests under way have finished (or ``seconds`` passed), end the open
    notification streams, so that the server's wait for its connections ends."""
    from sse_starlette.sse import AppStatus

    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    if app.count:
        logger.warning(
            "schemarouter serve: stopping: %d request%s under way, waiting up to %g s",
            app.count,
            "s" if app.count > 1 else "",
            seconds,
        )
    while app.count and loop.time() < deadline:
        await asyncio.sleep(0.05)
    if app.count:
        logger.error(
            "schemarouter serve: stopping: %d request%s still under way after %g s: cut",
            app.count,
            "s" if app.count > 1 else "",
            seconds,
        )
    AppStatus.should_exit = True


def draining_server(
    app: Any, *, host: str, port: int, seconds: float = DRAIN_SECONDS
) -> tuple[Any, Callable[[], None]]:
    """A ``uvicorn.Server`` for ``app`` that drains as the module says, and what to call
    once it has run (the SSE library's process-wide stop flag is put back)."""
    import uvicorn
    from sse_starlette.sse import AppStatus

    counted = InFlight(app)

    class _Server(uvicorn.Server):
        async def shutdown(self, sockets: Any = None) -> None:
            release = asyncio.create_task(_release_streams(counted, seconds))
            try:
                await super().shutdown(sockets)
            finally:
                release.cancel()

    AppStatus.enable_automatic_graceful_drain = False  # streams end once requests finished
    config = uvicorn.Config(
        counted,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=int(seconds) + 5,  # a stream that does not end: cancelled
    )

    def restore() -> None:
        AppStatus.should_exit = False
        AppStatus.enable_automatic_graceful_drain = True

    return _Server(config), restore
