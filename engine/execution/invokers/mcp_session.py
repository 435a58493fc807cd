"""An MCP session a router (or a gateway) owns: opened once, kept open, reopened when lost.

:class:`ManagedMCPSession` wraps :class:`~schemarouter.execution.invokers.mcp.MCPConnection` (a live
client session on its own event-loop thread, usable from ``execute`` and ``aexecute``) and
adds what a long-lived owner needs:

- the connection opens on :meth:`~ManagedMCPSession.open` (or the first call) and stays
  open across calls, so a tool call costs one round trip, not a process start;
- when the server closed the session (the process died, an HTTP server restarted and forgot
  the session), the next call opens a new connection first. A call that was *in flight*
  when the session was lost raises an error marked retryable: the executor retries reads
  (through the new connection) and never retries writes, which may or may not have run;
- :meth:`~ManagedMCPSession.close` ends the connection; ``router.close()`` closes every
  session the router opened.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.execution.invokers.mcp import MCPConnection

__all__ = ["ManagedMCPSession", "SessionLostError", "is_connection_lost"]

logger = logging.getLogger(__name__)


class SessionLostError(ConnectionError):
    """The MCP session ended while a call was in flight (retryable for reads only)."""

    retryable = True


def is_connection_lost(error: BaseException) -> bool:
    """Whether ``error`` says the session itself is gone (not that a tool failed)."""
    if isinstance(error, ConnectionError | EOFError | BrokenPipeError):
        return True
    if "connection closed" in str(error).lower():  # the SDK's MCPError(CONNECTION_CLOSED)
        return True
    name = type(error).__name__
    if name in {"ClosedResourceError", "BrokenResourceError", "EndOfStream"}:
        return True
    try:
        import httpx
    except ImportError:  # pragma: no cover - httpx is a dependency
        return False
    if isinstance(error, httpx.TransportError):
        return True
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code in (404, 410)  # the server forgot the session
    return isinstance(error, RuntimeError) and "not open" in str(error)


class ManagedMCPSession:
    """A reconnecting MCP client session (stdio command, streamable-HTTP URL, or an
    in-process server object), safe to share between threads and event loops."""

    def __init__(
        self,
        server: Sequence[str] | str | Any,
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.server = server
        self.env = dict(env) if env else None
        self.cwd = cwd
        self.timeout = timeout
        #: how many times a lost session was opened again
        self.reconnects = 0
        self._lock = threading.Lock()
        self._conn: MCPConnection | None = None
        self._lost = False
        self._closed = False

    def __repr__(self) -> str:
        state = "open" if self._conn is not None else "closed"
        label = MCPConnection(self.server)._label()
        return f"ManagedMCPSession({label!r}, {state}, reconnects={self.reconnects})"

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            conn, self._conn, self._closed = self._conn, None, True
        if conn is not None:
            conn.close()

    def __enter__(self) -> ManagedMCPSession:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> ManagedMCPSession:
        """Open the connection (again, after :meth:`close`)."""
        with self._lock:
            self._closed = False
        self._connection()
        return self

    def _connection(self) -> MCPConnection:
        with self._lock:
            if self._conn is not None:
                return self._conn
            if self._closed:
                raise RuntimeError(f"{self!r} is closed; open it again first")
            if self._lost:
                self.reconnects += 1
                logger.info("reopening the MCP session %r (it was lost)", self)
            conn = MCPConnection(self.server, env=self.env, cwd=self.cwd, timeout=self.timeout)
            conn.open()
            self._conn, self._lost = conn, False
            return conn

    def _drop(self, conn: MCPConnection) -> None:
        with self._lock:
            if self._conn is not conn:
                return
            self._conn, self._lost = None, not self._closed
        logger.warning("the MCP session %r was lost; the next call reconnects", self)
        threading.Thread(target=conn.close, daemon=True).start()

    # -- calls -------------------------------------------------------------------------------

    def list_tools(self) -> list[Any]:
        """Every tool the server lists; retried once through a new session if it was lost."""
        for attempt in (1, 2):
            conn = self._connection()
            try:
                return conn.list_tools()
            except Exception as exc:
                if not is_connection_lost(exc) or attempt == 2:
                    raise
                self._drop(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    def call_tool_sync(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> Any:
        conn = self._connection()
        try:
            return conn.call_tool_sync(name, arguments, timeout=timeout)
        except Exception as exc:
            lost = self._lost_during(conn, exc)
            if lost is None:
                raise
            raise lost from exc

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        conn = self._conn if self._conn is not None else await asyncio.to_thread(self._connection)
        try:
            return await conn.call_tool(name, arguments)
        except Exception as exc:
            lost = self._lost_during(conn, exc)
            if lost is None:
                raise
            raise lost from exc

    def _lost_during(self, conn: MCPConnection, error: Exception) -> SessionLostError | None:
        """Where ``error`` says the session is gone: a retryable :class:`SessionLostError`,
        the session dropped so the next call reconnects (``None``: a plain failure)."""
        if not is_connection_lost(error):
            return None
        self._drop(conn)
        return SessionLostError(
            f"the MCP session ended during the call ({type(error).__name__}: {error}); "
            "the next call reconnects"
        )
