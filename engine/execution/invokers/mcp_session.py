"""An MCP session a router (or a gateway) owns: opened once, kept open, reopened when lost.

:class:`ManagedMCPSession` wraps :class:`~schemarouter.execution.invokers.mcp.MCPConnection` (a live
client session on its own event-loop thread, usable from ``execute`` and ``aexecute``) and
adds what a long-lived owner needs:

- the connection opens on :meth:`~ManagedMCPSession.open` (or the first call) and stays
  open across calls, so a tool call costs one round trip, not a process start;
- when the server closed the session (the process died, an HTTP server restarted and forgot
  the session), the next call opens a new connection first. A loss known before a call is
  sent (a stdio server that exited while idle) reopens the session before sending, writes
  included: nothing was sent to the dead one. A call that was *in flight* when the session
  was lost raises an error marked retryable: the executor retries reads (through the new
  connection) and never retries writes, which may or may not have run;
- a call that runs past its timeout (the policy's, or the session's own ``call_timeout``,
  whichever is shorter) drops the connection: a server that does not answer in time may
  never answer, and the next call starts a fresh one;
- a reopened session lists the server's tools again and hands them to ``on_reconnect`` (the
  router registers them anew); a call of a tool whose definition changed is refused, once,
  instead of running under its old registration, and a call of a tool the server no longer
  lists is refused (nothing is sent);
- so is a session the server told ``notifications/tools/list_changed``, or (``listing_ttl``)
  one whose listing is older than that many seconds, before its next call: a streamable-HTTP
  server may be restarted (redeployed) between two calls without the session noticing (the
  protocol's stateless requests carry on against the new process), so
  :func:`~schemarouter.adapters.live_mcp.attach_mcp_server` lists an HTTP server's tools
  again before every call (``listing_ttl=0``);
- every message is read within ``max_message_bytes`` (:mod:`.mcp_transport`);
- :meth:`~ManagedMCPSession.close` ends the connection (and a stdio server's process);
  ``router.close()`` closes every session the router opened.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Unpack

from schemarouter.execution.invokers.mcp import MCPConnection, McpConnectionOptions, OpenCancelled
from schemarouter.execution.invokers.payload import clip, seconds_text
from schemarouter.fingerprint import fingerprint

__all__ = [
    "CallTimedOut",
    "ListingFailedError",
    "ManagedMCPSession",
    "SessionClosedError",
    "SessionLostError",
    "SessionOpenTimedOut",
    "ToolChangedError",
    "close_all",
    "closed_by_owner",
    "is_connection_lost",
]

logger = logging.getLogger(__name__)


class SessionLostError(ConnectionError):
    """The MCP session ended while a call was in flight (retryable for reads only)."""

    retryable = True


class CallTimedOut(TimeoutError):
    """A call ran past its timeout; the session was dropped (the next call reopens it)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"timed out after {seconds_text(seconds)} s; the session was dropped")
        self.seconds = seconds


class SessionOpenTimedOut(TimeoutError):
    """The session could not be opened (or opened again, after it was lost) within its
    timeout; the server was stopped and the next call tries again."""

    retryable = True

    def __init__(self, seconds: float, *, reopening: bool = False) -> None:
        what = "open again after it was lost" if reopening else "open"
        super().__init__(f"the MCP session did not {what} within {seconds_text(seconds)} s")
        self.seconds = seconds
        #: what the caller's error says (``InvocationError``'s message; a call's timeout
        #: says "timed out after N s")
        self.reason = f"the session did not {what} within {seconds_text(seconds)} s"


class SessionClosedError(RuntimeError):
    """A call on a session its owner closed (``router.close()``): refused before anything is
    sent, and no failure of the route (it does not count against the route's health)."""

    retryable = False
    counts_for_health = False


class ToolChangedError(RuntimeError):
    """The tool's definition changed upstream (or the server no longer lists it) since it
    was registered: the call was not sent under its old registration (not retryable: call
    it again, through the gate, which checks the new definition). Not a failure of the
    route (it does not count against the route's health)."""

    retryable = False
    counts_for_health = False


class ListingFailedError(RuntimeError):
    """The server's tools were due to be listed before a call (it said they changed, or the
    listing is older than ``listing_ttl``) and the listing failed: the call was not sent,
    since the tool may have changed (retryable: the next attempt lists them again)."""

    retryable = True


def _tool_key(tool: Any) -> tuple[str, str] | None:
    """``(name, fingerprint of its definition)`` for a listed tool."""
    data = tool.model_dump(mode="json", by_alias=True) if hasattr(tool, "model_dump") else tool
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        return None
    wanted = ("name", "description", "inputSchema", "outputSchema", "annotations")
    return data["name"], fingerprint({k: data.get(k) for k in wanted})


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
    in-process server object), safe to share between threads and event loops. Its keywords
    besides ``call_timeout`` and ``on_reconnect`` are
    :class:`~schemarouter.execution.invokers.mcp.McpConnectionOptions`, given to every
    connection it opens."""

    def __init__(
        self,
        server: Sequence[str] | str | Any,
        *,
        call_timeout: float | None = None,
        on_reconnect: Callable[[list[Any]], None] | None = None,
        listing_ttl: float | None = None,
        **connection: Unpack[McpConnectionOptions],
    ) -> None:
        self.server = server
        #: the server and settings of every connection it opens (this one is never opened)
        self.settings = MCPConnection(server, **connection)
        #: the longest a call may take (the policy's timeout is kept where it is shorter)
        self.call_timeout = call_timeout
        #: called with the tools a reopened session lists (the owner registers them anew)
        self.on_reconnect = on_reconnect
        #: seconds a listing is trusted before a call lists the tools again (``None``: only
        #: after a reconnect or a ``tools/list_changed``; ``0``: before every call)
        self.listing_ttl = listing_ttl
        #: the most bytes a tool's output may have through this session (``None``: the
        #: execution policy's cap only); the owner sets it (``max_response_bytes``)
        self.max_output_bytes: int | None = None
        #: how many times a lost session was opened again
        self.reconnects = 0
        self._lock = threading.Lock()
        #: guards ``_closed`` and ``_opening`` (``_lock`` is held while a connection opens)
        self._gate = threading.Lock()
        self._opening: MCPConnection | None = None  # a connection still opening
        self._conn: MCPConnection | None = None
        self._lost = False
        self._closed = False
        self._listing: dict[str, str] = {}  # tool name -> fingerprint of its definition
        self._changed: set[str] = set()  # tools whose definition changed on a reopen
        self._removed: set[str] = set()  # tools the server no longer lists
        #: changed tools whose new definition could not be registered -> why: refused until
        #: a listing registers (their old registration must not gate a call)
        self._unregistered: dict[str, str] = {}
        self._listed_at = time.monotonic()  # when the server's tools were last listed
        self._stale = False  # the server said tools/list_changed since
        self._relisting = threading.Lock()
        self._relisting_now = False  # a listing is in progress: calls wait for it
        #: calls on it now, and whether it closes once they end (:meth:`retire`)
        self._in_flight = 0
        self._retired = False

    def __repr__(self) -> str:
        state = "open" if self._conn is not None else "closed"
        label = self.settings._label()
        return f"ManagedMCPSession({label!r}, {state}, reconnects={self.reconnects})"

    @property
    def closed(self) -> bool:
        """Whether its owner closed it (:meth:`close`; :meth:`open` opens it again)."""
        return self._closed

    @property
    def timeout(self) -> float:
        """Seconds for opening the session and listing its tools."""
        return self.settings.timeout

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        """End the session; one still opening (a server slow to start, or one that never
        answers ``initialize``) is cancelled at once, its stdio server stopped, and the
        call or :meth:`open` waiting for it raises :class:`SessionClosedError`."""
        with self._gate:
            self._closed, opening = True, self._opening
        if opening is not None:
            opening.close()
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def __enter__(self) -> ManagedMCPSession:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def retire(self) -> None:
        """Close once the calls in flight on it have ended (at once where there are none):
        its owner replaced or removed its routes (``add_mcp_server(..., replace=True)``,
        ``remove_provider``), so no new call is routed to it, but a call the gate let through
        before keeps its session. Closing at once failed those calls as a lost session (a
        read was tried again on the closed session, "closed by its owner (router.close())"),
        and three of them took a route the new session serves offline for 60 s (trial Q)."""
        with self._gate:
            self._retired = True
            idle = self._in_flight == 0
        if idle:
            self.close()

    @contextmanager
    def _in_use(self) -> Iterator[None]:
        """Around one call: counted in flight, so :meth:`retire` waits for it to end."""
        with self._gate:
            if self._closed and self._retired:
                raise self._closed_error()
            self._in_flight += 1
        try:
            yield
        finally:
            with self._gate:
                self._in_flight -= 1
                last = self._retired and not self._closed and self._in_flight == 0
                if last:  # no call starts on it from now; its answer is not held up by closing
                    self._closed = True
            if last:
                threading.Thread(target=self.close, name="mcp-retire", daemon=True).start()

    def open(self) -> ManagedMCPSession:
        """Open the connection (again, after :meth:`close`)."""
        with self._gate:
            self._closed = self._retired = False
        self._connection()
        return self

    def _live(self) -> MCPConnection | None:
        """The open connection, dropped first where it is known to be gone (nothing is sent
        on it, so the next connection may carry any call, writes included)."""
        conn = self._conn
        if conn is not None and conn.lost:
            self._drop(conn, "was lost while idle (its server is gone)")
            return self._conn
        return conn

    def _connection(self) -> MCPConnection:
        self._live()
        with self._lock:
            if self._conn is not None:
                return self._conn
            conn = self.settings.copy()
            conn.on_tools_changed = self._tools_changed
            with self._gate:  # close() from now on cancels this opening (_opening)
                if self._closed:
                    raise self._closed_error()
                ready = conn._start()
                self._opening = conn
            reopening = self._lost
            if reopening:
                self.reconnects += 1
                logger.info("reopening the MCP session %r (it was lost)", self)
            try:
                conn._wait_open(ready)
            except OpenCancelled:
                raise self._closed_error(" while it was opening") from None
            except TimeoutError:  # not a call's timeout: say what ran out, and its seconds
                raise SessionOpenTimedOut(self.timeout, reopening=reopening) from None
            finally:
                with self._gate:
                    self._opening, closed = None, self._closed
            if closed:  # closed just as it opened
                conn.close()
                raise self._closed_error(" while it was opening")
            self._conn, self._lost = conn, False
            if reopening and self.on_reconnect is not None:
                self._relist(conn)
            return conn

    def _closed_error(self, when: str = "") -> SessionClosedError:
        if self._retired:
            return SessionClosedError(
                f"{self!r} was closed{when}: its server was added again (replace=True) or "
                "removed after this call was routed to it; call it again (the route's new "
                "session takes it, where it is still registered)"
            )
        return SessionClosedError(
            f"{self!r} was closed by its owner{when} (router.close()); "
            "router.add_mcp_server(..., replace=True) connects its server again"
        )

    def _tools_changed(self) -> None:
        """The server sent ``notifications/tools/list_changed``: its tools are listed again
        at once, in a thread of their own (and by the next call, where that is sooner)."""
        self._stale = True
        if self.on_reconnect is not None:
            threading.Thread(target=self._relist_now, name="mcp-list-changed", daemon=True).start()

    def _relist_now(self) -> None:
        conn = self._conn
        if conn is None or self._closed:
            return
        try:
            self._check_listing(conn, time.monotonic())
        except Exception as exc:  # the next call reconnects (and lists) or says why
            if not self._closed:
                logger.warning("the MCP session %r cannot list its tools: %s", self, clip(str(exc)))

    def _relist(self, conn: MCPConnection, when: str = "while the session was lost") -> None:
        """List the tools of a reopened session; a tool whose definition changed is marked
        (its next call is refused) and the listing goes to ``on_reconnect``."""
        try:
            tools = conn.list_tools()
        except Exception as exc:
            self._stale = True  # the next call lists them (or is refused, unsent)
            logger.warning("the MCP session %r cannot list its tools: %s", self, _why(exc))
            return
        self._registered(tools, when)

    def _registered(self, tools: list[Any], when: str) -> None:
        self._listed_at = time.monotonic()
        listing = self._record(tools)
        # tools registered before whose definition changed or went away; a new tool has no
        # old registration a call could be gated under
        changed = {n for n, fp in self._listing.items() if n in listing and listing[n] != fp}
        removed = set(self._listing) - set(listing)
        added = set(listing) - set(self._listing)
        self._listing = listing
        if not (changed or added or removed or self._unregistered):
            return
        logger.warning(
            "the MCP server %r changed %d tools %s (%s); registering them anew",
            self,
            len(changed | added | removed),
            when,
            clip(", ".join(sorted(changed | added | removed)), 200),
        )
        self._changed = (self._changed | changed) - set(added)
        self._removed = (self._removed | removed) - set(listing)
        assert self.on_reconnect is not None
        try:
            self.on_reconnect(tools)
        except Exception as exc:  # the old registrations stay; the changed tools are refused
            why = clip(str(exc))
            held = changed | set(self._unregistered)
            self._unregistered = {name: why for name in held if name in listing}
            logger.warning("the changed tools of %r cannot be registered: %s", self, why)
        else:
            self._unregistered = {}

    def _record(self, tools: list[Any]) -> dict[str, str]:
        return dict(key for key in map(_tool_key, tools) if key is not None)

    def _drop(self, conn: MCPConnection, why: str = "was lost") -> bool:
        """Drop ``conn`` where it is still the session's connection; whether this call did
        (another call that saw the same loss, or a call since, may have dropped it first)."""
        with self._lock:
            if self._conn is not conn:
                return False
            self._conn, self._lost = None, not self._closed
        logger.warning("the MCP session %r %s; the next call reconnects", self, why)
        threading.Thread(target=conn.close, daemon=True).start()
        return True

    # -- calls -------------------------------------------------------------------------------

    def list_tools(self) -> list[Any]:
        """Every tool the server lists; retried once through a new session if it was lost."""
        for attempt in (1, 2):
            conn = self._connection()
            try:
                tools = conn.list_tools()
            except Exception as exc:
                if not is_connection_lost(exc) or attempt == 2:
                    raise
                self._drop(conn)
                continue
            self._listing = self._record(tools)
            self._listed_at, self._stale = time.monotonic(), False
            return tools
        raise AssertionError("unreachable")  # pragma: no cover

    def _limit(self, timeout: float | None) -> float:
        limits = [t for t in (timeout, self.call_timeout) if t is not None]
        return min(limits) if limits else self.timeout

    def _check_listing(self, conn: MCPConnection, asked: float) -> None:
        """Before a call asked at ``asked``: list the tools again where the server said
        they changed or the listing is older than :attr:`listing_ttl` (once for the calls
        that wait meanwhile), and register what changed (:meth:`_registered`). A session
        lost while listing raises :class:`SessionLostError`, and a listing that fails
        :class:`ListingFailedError` (nothing was sent either way: the tool may have changed,
        and the listing stays due)."""
        if self.on_reconnect is None or not self._listing_due(asked):
            return
        with self._relisting:
            if not self._listing_due(asked):
                return  # another call listed the tools since this one was asked
            self._stale = False  # a notification while listing marks the listing again
            self._relisting_now = True
            try:
                tools = conn.list_tools()
            except Exception as exc:
                lost = self._lost_during(conn, exc)
                if lost is not None:
                    raise lost from exc
                self._stale = True
                why = _why(exc)
                logger.warning("the MCP session %r cannot list its tools: %s", self, why)
                raise ListingFailedError(
                    f"the server did not list its tools ({why}) before the call; the call was "
                    "not sent, since its tools may have changed (call it again: they are "
                    "listed again first)"
                ) from exc
            finally:
                self._relisting_now = False
            self._registered(tools, "since it last listed them")

    def _listing_due(self, asked: float) -> bool:
        if self._stale or self._relisting_now:  # a call waits for a listing in progress
            return True
        ttl = self.listing_ttl
        return ttl is not None and self._listed_at < asked - ttl

    def _refuse_changed(self, name: str) -> None:
        if name in self._removed:
            raise ToolChangedError(
                f"the server no longer lists tool {clip(name, 80)!r}; the call was not sent"
            )
        why = self._unregistered.get(name)
        if why is not None:
            raise ToolChangedError(
                f"the server changed tool {clip(name, 80)!r} and its new definition could not "
                f"be registered ({why}); the call was not sent under its old definition "
                "(the tools are listed again when the server says they changed; or add the "
                "server again with replace=True)"
            )
        if name in self._changed:
            self._changed.discard(name)
            raise ToolChangedError(
                f"the server changed tool {clip(name, 80)!r} since it was registered; the "
                "call was not sent under its old definition (call it again: it is checked "
                "against the new one)"
            )

    def call_tool_sync(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> Any:
        limit, asked = self._limit(timeout), time.monotonic()
        with self._in_use():
            conn = self._connection()
            self._check_listing(conn, asked)
            self._refuse_changed(name)
            with self._calling(conn, limit):
                return conn.call_tool_sync(name, arguments, timeout=limit)

    #: :func:`~schemarouter.execution.invokers.mcp.call_async` passes its timeout here
    bounds_calls = True

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> Any:
        limit, asked = self._limit(timeout), time.monotonic()
        with self._in_use():
            conn = self._live()
            if conn is None:
                conn = await asyncio.to_thread(self._connection)
            if self.on_reconnect is not None and self._listing_due(asked):
                await asyncio.to_thread(self._check_listing, conn, asked)
            self._refuse_changed(name)
            with self._calling(conn, limit):
                return await asyncio.wait_for(conn.call_tool(name, arguments), limit)

    @contextmanager
    def _calling(self, conn: MCPConnection, limit: float) -> Iterator[None]:
        """What a call that timed out or lost the session raises (sync and async alike): a
        timeout drops the session; a lost session is a retryable :class:`SessionLostError`."""
        try:
            yield
        except TimeoutError:
            self._drop(conn, f"did not answer a call in {limit:g} s")
            raise CallTimedOut(limit) from None
        except Exception as exc:
            if self._closed:  # router.close() during the call: no loss to reconnect after
                raise SessionClosedError(
                    f"{self!r} was closed by its owner during the call (router.close()): its "
                    "answer is lost, and the server may have performed it (check before "
                    "calling a write again); router.add_mcp_server(..., replace=True) "
                    "connects its server again"
                ) from exc
            lost = self._lost_during(conn, exc)
            if lost is None:
                raise
            raise lost from exc

    def _lost_during(self, conn: MCPConnection, error: Exception) -> SessionLostError | None:
        """Where ``error`` says the session is gone: a retryable :class:`SessionLostError`,
        the session dropped so the next call reconnects (``None``: a plain failure)."""
        if not is_connection_lost(error):
            return None
        first = self._drop(conn)
        why = conn.ended_why or f"{type(error).__name__}: {clip(str(error))}"
        lost = SessionLostError(
            f"the MCP session ended during the call ({why}); the next call reconnects"
        )
        if not first:
            # one lost session is one failure of its routes, however many calls were in
            # flight on it: a server killed under 12 calls took them all offline for 60 s
            # (their retries refused: "marked unhealthy meanwhile"), though the next call
            # reconnected at once (trial Q)
            lost.counts_for_health = False  # type: ignore[attr-defined]
        return lost


def _why(error: BaseException) -> str:
    """What a failed listing says (a timeout's message is empty)."""
    return f"{type(error).__name__}: {clip(str(error))}" if str(error) else type(error).__name__


def close_all(sessions: Sequence[Any]) -> None:
    """Close ``sessions`` all at once (each in a thread of its own) and return when every
    one is closed: stopping a stdio server takes about a second (its grace periods), so
    closing ten one after the other took ten."""
    threads = [
        threading.Thread(target=session.close, name="mcp-close", daemon=True)
        for session in sessions
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def closed_by_owner(invoker: Any) -> bool:
    """Whether ``invoker`` is a session its owner closed (``router.close()``). Its routes stay
    bound to it, but none can run: the router's ``is_bound`` says so (and with it
    ``retrieve_executable`` and the gateway), and the gate refuses their calls before
    anything is sent, until ``add_mcp_server(..., replace=True)`` binds them to an open one.
    The one check all of them read."""
    return isinstance(invoker, ManagedMCPSession) and invoker.closed
