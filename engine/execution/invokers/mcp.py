"""MCP tools: ``call_tool(name, arguments)`` on a client session.

Any object with an async ``call_tool(name, arguments)`` can be bound to an MCP route (an
``mcp.Client`` or ``ClientSession`` the host opened, used from ``aexecute`` in the same event
loop). :class:`MCPConnection` is a live session on its own event-loop thread, so the same
session serves both ``execute`` (sync) and ``aexecute`` from any loop::

    with MCPConnection([sys.executable, "server.py"]) as conn:
        router.add_mcp_tools(conn.list_tools(), provider="materials", server="server.py")
        bind_mcp_session(router, conn, provider="materials")
        result = execute(router, plan)

A tool result's ``structuredContent`` is the raw output; without it, a single text content
is read as JSON where it parses (else kept as text). ``isError`` results are errors. An
:class:`MCPConnection` leaves the output's check against ``outputSchema`` to the router.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import shlex
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypedDict, TypeGuard

from schemarouter.contracts import AccessKind
from schemarouter.errors import InvocationError, require
from schemarouter.execution.bindings import bind_if_current
from schemarouter.execution.credentials import (
    Redactor,
    env_secrets,
    guard_logger,
    scrub_output,
)
from schemarouter.execution.invokers.mcp_listing import DEFAULT_MAX_TOOLS, every_tool
from schemarouter.execution.invokers.payload import (
    MAX_MESSAGE_CHARS,
    Payload,
    clip,
    invocation_error,
    seconds_text,
)
from schemarouter.execution.policy import DEFAULT_MAX_RESPONSE_BYTES
from schemarouter.placement import command_secrets, shown_command

__all__ = [
    "DEFAULT_OPEN_TIMEOUT",
    "MCPConnection",
    "McpCall",
    "McpConnectionOptions",
    "OpenCancelled",
    "ServerExited",
    "bind_mcp_session",
    "call_async",
    "call_sync",
    "decode",
    "is_server_url",
]

logger = logging.getLogger(__name__)

#: Seconds to open a session to a server (start it, initialize) and list its tools: the
#: default of every MCP session, of registering a live server and of the gateway's servers.
DEFAULT_OPEN_TIMEOUT = 30.0
#: Seconds between the steps of stopping a stdio server (mcp_transport.EXIT_GRACE).
_STOP_GRACE = 1.0
#: The most one message from a server may have: a tool's output travels twice in it
#: (``structuredContent`` and the same JSON as text), so twice the response cap of
#: :class:`~schemarouter.execution.policy.ExecutionPolicy`, and room for the envelope.
DEFAULT_MAX_MESSAGE_BYTES = 2 * DEFAULT_MAX_RESPONSE_BYTES + 64 * 1024


class OpenCancelled(RuntimeError):
    """The connection was closed (by its owner, from another thread) while it was still
    opening: the server had not answered ``initialize`` yet. A stdio server it started was
    stopped."""

    def __init__(self) -> None:
        super().__init__("closed while the session was still opening (nothing was sent)")


class ServerExited(ConnectionError):
    """A stdio server exited on its own before its session opened (a crash at start-up)."""

    def __init__(self, status: int) -> None:
        self.status = status
        #: "exited with status 3", or "was killed by SIGKILL" for a signal
        self.what = f"exited with status {status}"
        if status < 0:
            try:
                self.what = f"was killed by {signal.Signals(-status).name}"
            except ValueError:
                self.what = f"was killed by signal {-status}"
        super().__init__(f"the server {self.what} before the session opened")


def _cause(error: BaseException) -> BaseException:
    """The error inside the exception groups of task groups (the first one not a
    cancellation): "unhandled errors in a TaskGroup" names no cause."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        inner = [e for e in error.exceptions if not isinstance(e, asyncio.CancelledError)]
        error = (inner or list(error.exceptions))[0]
    return error


@dataclass(frozen=True)
class McpCall:
    session: Any
    tool: str
    arguments: Mapping[str, Any]
    timeout: float
    where: str


def bind_mcp_session(router: Any, session: Any, *, provider: str) -> list[str]:
    """Bind every MCP route of ``provider`` to ``session``; returns the route ids bound."""
    if not callable(getattr(session, "call_tool", None)):
        raise TypeError("an MCP session needs an async call_tool(name, arguments) method")
    routes = [
        route
        for route in router.snapshot()
        if route.provider.id == provider
        and route.access.kind is AccessKind.MCP
        and route.endpoint.operation.tool
    ]
    return bind_if_current(router, routes, lambda _: session)


def _read(obj: Any, *names: str) -> Any:
    for name in names:
        if isinstance(obj, Mapping) and name in obj:
            return obj[name]
        if not isinstance(obj, Mapping) and hasattr(obj, name):
            return getattr(obj, name)
    return None


def decode(result: Any, where: str) -> Payload:
    """A ``CallToolResult`` (SDK object or dict) as a payload; ``isError`` raises."""
    texts = [
        t
        for t in (_read(item, "text") for item in _read(result, "content") or [])
        if isinstance(t, str)
    ]
    if _read(result, "is_error", "isError"):
        message = clip(" ".join(t[: MAX_MESSAGE_CHARS + 1] for t in texts)) or "no message"
        raise invocation_error(f"the tool reported an error: {message}", where=where, health=False)
    data = _read(result, "structured_content", "structuredContent")
    if data is None and len(texts) == 1:
        try:
            data = json.loads(texts[0])
        except ValueError:
            data = texts[0]
    elif data is None and texts:
        data = texts
    try:
        size = len(json.dumps(data, default=str).encode())
    except (TypeError, ValueError, RecursionError):
        raise invocation_error("the tool returned data that is not JSON", where=where) from None
    return Payload(data, size)


#: What to do about a call its server did not answer (down, restarting, too slow): a
#: model read "ConnectError: All connection attempts failed" and nothing more (trial U2).
UNANSWERED_HINT = "Call it again later (its server may be restarting), or use another tool"
#: What to do about a reply past the session's message cap (the transport's words).
_TOO_LARGE = "the server's reply is larger than"
_LESS_HINT = (
    "Ask for less, or raise max_response_bytes of this server (in a gateway config: "
    "mcp_servers[].max_response_bytes)"
)


def _failed(exc: BaseException, op: McpCall) -> Exception:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        # a managed session bounds calls tighter (``seconds``) or says it could not reopen
        seconds = getattr(exc, "seconds", op.timeout)
        reason = getattr(exc, "reason", None) or f"timed out after {seconds_text(seconds)} s"
        return invocation_error(reason, where=op.where, retryable=True, hint=UNANSWERED_HINT)
    said = clip(str(exc))
    hint: str | None = UNANSWERED_HINT
    if _TOO_LARGE in said:
        hint = _LESS_HINT
    elif type(exc).__name__ in ("MCPError", "ToolChangedError"):
        hint = None  # the server's own JSON-RPC error; a changed tool's says what to do
    return invocation_error(  # a lost session (ManagedMCPSession) says it may be retried
        f"the MCP call failed: {type(exc).__name__}: {said}",
        where=op.where,
        hint=hint,
        retryable=bool(getattr(exc, "retryable", False)),
        health=bool(getattr(exc, "counts_for_health", True)),  # not a closed session's
    )


def _capped(payload: Payload, op: McpCall) -> Payload:
    """``payload``, where it is within the session's own output cap (``max_output_bytes``:
    a server's ``max_response_bytes``); the policy's cap is checked by the executor."""
    cap = getattr(op.session, "max_output_bytes", None)
    if isinstance(cap, int) and payload.nbytes > cap:
        raise invocation_error(
            f"the output is {payload.nbytes} bytes, larger than this server's "
            f"max_response_bytes ({cap} bytes)",
            where=op.where,
            hint=_LESS_HINT,
            health=False,
        )
    return payload


def call_sync(op: McpCall) -> Payload:
    caller = getattr(op.session, "call_tool_sync", None)
    if caller is None:
        raise invocation_error(
            "this MCP session is async only",
            where=op.where,
            hint="Use aexecute in the session's event loop, or bind an MCPConnection",
            health=False,
        )
    try:
        result = caller(op.tool, dict(op.arguments), timeout=op.timeout)
    except Exception as exc:
        raise _redacted(_failed(exc, op), op) from None
    try:
        return _capped(_scrubbed(decode(result, op.where), op), op)
    except InvocationError as exc:
        raise _redacted(exc, op) from None


async def call_async(op: McpCall) -> Payload:
    try:
        if getattr(op.session, "bounds_calls", False):  # it drops itself on a timeout
            result = await op.session.call_tool(op.tool, dict(op.arguments), timeout=op.timeout)
        else:
            result = await asyncio.wait_for(
                op.session.call_tool(op.tool, dict(op.arguments)), op.timeout
            )
    except Exception as exc:
        raise _redacted(_failed(exc, op), op) from None
    try:
        return _capped(_scrubbed(decode(result, op.where), op), op)
    except InvocationError as exc:
        raise _redacted(exc, op) from None


def _env(op: McpCall) -> Any:
    """``op``'s stdio server's own ``env`` (``None`` for another server)."""
    settings = getattr(op.session, "settings", op.session)  # a managed session's connection
    return getattr(settings, "env", None)


def _argv_secrets(op: McpCall) -> list[str]:
    """The secret flags' values of ``op``'s stdio server's command line
    (:func:`~schemarouter.placement.command_secrets`)."""
    settings = getattr(op.session, "settings", op.session)
    server = getattr(settings, "server", None)
    if isinstance(server, str | Sequence) and not is_server_url(server):
        return command_secrets(server)
    return []


def _redacted(error: Exception, op: McpCall) -> Exception:
    """``error`` without the values of its stdio server's own ``env`` and secret flags: an
    upstream that echoed its API key in an error message gave it to the agent (trial U2;
    trial V1: a key passed as ``--api-key VALUE``, which its label hides, was not)."""
    secrets = env_secrets(_env(op)) + _argv_secrets(op)
    if not secrets or not isinstance(error, InvocationError):
        return error
    what = Redactor(secrets)(str(error.what))
    return error if what == error.what else error._copy(what=what)


def _scrubbed(payload: Payload, op: McpCall) -> Payload:
    """``payload`` without the values of its stdio server's own ``env`` (and its command
    line's secret flags) in its texts: a tool that answered with its API key (a "whoami", a
    config dump) gave it to the agent as an output, where its errors had it redacted (trial
    X1); a setting that is no secret
    (:func:`~schemarouter.execution.credentials.output_secrets`) stays in the data."""
    data = scrub_output(payload.data, _env(op), _argv_secrets(op))
    return payload if data is payload.data else payload._replace(data=data)


def is_server_url(server: object) -> TypeGuard[str]:
    """Whether an MCP server target is a streamable-HTTP URL (else a stdio command, or an
    in-process server)."""
    return isinstance(server, str) and bool(re.match(r"^https?://", server, re.IGNORECASE))


def _unchecked_outputs(client: Any) -> None:
    """Turn off the SDK client's check of a tool's output against its ``outputSchema``: the
    router checks it itself (:class:`~schemarouter.errors.OutputValidationError` with its
    JSON path, kept on the step with ``partial=True``), where the SDK's check raised a
    ``RuntimeError`` that hid the output and could only be reported as a failed call."""

    async def unchecked(name: str, result: Any) -> None:
        return None

    session = getattr(client, "session", None)
    if session is not None and hasattr(session, "validate_tool_result"):
        session.validate_tool_result = unchecked


class McpConnectionOptions(TypedDict, total=False):
    """The keywords of :class:`MCPConnection` after its server, each optional: ``env`` (what
    a stdio server gets besides the MCP SDK's default environment), ``cwd`` (the folder it
    starts in), ``timeout`` (seconds to open the session and to list its tools;
    :data:`DEFAULT_OPEN_TIMEOUT`), ``max_message_bytes`` (the most one message from the
    server may have; :data:`DEFAULT_MAX_MESSAGE_BYTES`), ``stderr_label`` (a stdio
    server's stderr lines are written to this process's stderr after ``LABEL: ``; ``None``:
    as the server writes them) and ``max_tools`` (the most tools it lists: .mcp_listing)."""

    env: Mapping[str, str] | None
    cwd: str | None
    timeout: float
    max_message_bytes: int
    stderr_label: str | None
    max_tools: int


class MCPConnection:
    """A live MCP client session (stdio command, streamable-HTTP URL, or an in-process
    server object) on its own event-loop thread. Open with ``with`` / :meth:`open`; the
    keywords are :class:`McpConnectionOptions`."""

    def __init__(
        self,
        server: Sequence[str] | str | Any,
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout: float = DEFAULT_OPEN_TIMEOUT,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        stderr_label: str | None = None,
        max_tools: int = DEFAULT_MAX_TOOLS,
    ) -> None:
        self.server = server
        self.max_tools = max_tools
        self.env = dict(env) if env else None
        self.cwd = cwd
        self.timeout = timeout
        self.stderr_label = stderr_label
        #: the most one message from the server may have (see :mod:`.mcp_transport`)
        self.max_message_bytes = max_message_bytes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._watch: Any = None  # a stdio server's ServerWatch (mcp_transport)
        self._cancelled = False  # closed while still opening (_stop_soon)
        #: a URL's secrets (a ``?token=``), redacted from the HTTP client's request log (it
        #: logs each URL at INFO, the SDK's transport at DEBUG) while this connection lives
        self._redactor: Redactor | None = None
        if is_server_url(server) and command_secrets(server):  # its query, a key in its path
            self._redactor = Redactor(command_secrets(server))
            guard_logger("httpx2")
            guard_logger("mcp.client.streamable_http")
        #: called (on the connection's thread) when the server says its tools changed
        #: (``notifications/tools/list_changed``); a managed session lists them again
        self.on_tools_changed: Callable[[], None] | None = None

    def __repr__(self) -> str:
        state = "open" if self._client is not None else "closed"
        return f"MCPConnection({self._label()!r}, {state})"

    def copy(self) -> MCPConnection:
        """A new, unopened connection to the same server with the same settings."""
        return MCPConnection(
            self.server,
            env=self.env,
            cwd=self.cwd,
            timeout=self.timeout,
            max_message_bytes=self.max_message_bytes,
            stderr_label=self.stderr_label,
            max_tools=self.max_tools,
        )

    def _label(self) -> str:
        """The server, for messages and logs, as its routes name it
        (:func:`~schemarouter.placement.shown_command`: a URL without its userinfo, query
        and fragment, a command line without its secret flags' values)."""
        if isinstance(self.server, str | Sequence):
            return shown_command(self.server)
        return type(self.server).__name__

    def _target(self) -> Any:
        """What ``mcp.Client`` connects through: a transport that reads every message
        within :attr:`max_message_bytes` (:mod:`.mcp_transport`), or an in-process server."""
        require("mcp", extra="mcp", purpose="MCP execution")
        from schemarouter.execution.invokers.mcp_transport import (
            ServerWatch,
            capped_http,
            capped_stdio,
        )

        server, cap = self.server, self.max_message_bytes
        if is_server_url(server):
            return capped_http(server, max_message_bytes=cap, max_tools=self.max_tools)
        if isinstance(server, str | Sequence):
            command = shlex.split(server) if isinstance(server, str) else [str(s) for s in server]
            self._watch = ServerWatch()
            return capped_stdio(
                command,
                env=self.env,
                cwd=self.cwd,
                max_message_bytes=cap,
                watch=self._watch,
                stderr_label=self.stderr_label,
                max_tools=self.max_tools,
            )
        return server  # an in-process server object the SDK's Client accepts

    async def _main(self, ready: Future[None]) -> None:
        import mcp

        self._closing = asyncio.Event()
        try:
            async with mcp.Client(self._target(), message_handler=self._message) as client:
                _unchecked_outputs(client)
                self._client = client
                ready.set_result(None)
                listening = asyncio.ensure_future(self._listen(client))
                try:
                    await self._closing.wait()
                finally:
                    listening.cancel()
                    with contextlib.suppress(BaseException):
                        await listening
        except BaseException as exc:
            if ready.done():
                raise
            # cancelled while opening (:meth:`close`): said as such, not as a bare cancel
            cancelled = self._cancelled or isinstance(_cause(exc), asyncio.CancelledError)
            ready.set_exception(OpenCancelled() if cancelled else exc)
        finally:
            self._client = None

    async def _listen(self, client: Any) -> None:
        """Where the protocol has ``subscriptions/listen`` (2026-07-28: a server sends
        ``tools/list_changed`` only to a client listening), listen for it while the session
        is open; an older session gets the notification without asking (:meth:`_message`).
        A server that refuses the stream or drops it is left as it is (no error). Not over
        streamable HTTP: a stream that never ends holds the server's shutdown (uvicorn waits
        for it), so a redeploy would hang; a managed session lists an HTTP server's tools
        before every call instead."""
        if (
            self.on_tools_changed is None
            or not hasattr(client, "listen")
            or is_server_url(self.server)
        ):
            return
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _event in events:
                    callback = self.on_tools_changed
                    if callback is not None:
                        callback()
        except Exception as exc:  # not supported (an older protocol), refused, or dropped
            logger.debug("no tools/list_changed stream from %s: %s", self._label(), exc)

    async def _message(self, message: Any) -> None:
        """A server's notification (or a transport's error, left to the session): a
        ``notifications/tools/list_changed`` tells :attr:`on_tools_changed`."""
        note = getattr(message, "root", message)  # the 1.x SDK wraps notifications
        if getattr(note, "method", None) == "notifications/tools/list_changed":
            callback = self.on_tools_changed
            if callback is not None:
                callback()

    def _run(self, ready: Future[None]) -> None:
        loop = self._loop
        assert loop is not None
        try:
            self._task = loop.create_task(self._main(ready))
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:  # closed while opening (a server that never answers)
            if not ready.done():
                ready.set_exception(OpenCancelled())
        except Exception as exc:  # while opening, ``ready`` carries it to open()
            if ready.done():
                logger.warning("MCP connection %s ended: %s", self._label(), type(exc).__name__)
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    @property
    def lost(self) -> bool:
        """Whether the open session is known to be gone before anything is sent on it: its
        stdio server exited or closed its pipes, or the client itself ended."""
        if self._thread is None or self._loop is None:
            return False  # not open, or closed by its owner: nothing was lost
        return self._client is None or (self._watch is not None and self._watch.gone)

    def open(self) -> MCPConnection:
        if self._thread is not None:
            return self
        return self._wait_open(self._start())

    def _start(self) -> Future[None]:
        """Start opening (the connection's thread and loop); what :meth:`_wait_open` waits
        on. From here on :meth:`close`, from any thread, cancels the opening."""
        ready: Future[None] = Future()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        return ready

    def _wait_open(self, ready: Future[None]) -> MCPConnection:
        try:
            ready.result(timeout=self.timeout)
        except Exception as exc:
            self.close()  # a stdio server's exit status is known once it has closed
            status = self._watch.exit_status if self._watch is not None else None
            if status is not None:
                raise ServerExited(status) from _cause(exc)
            cause = _cause(exc)
            if cause is exc or not isinstance(cause, Exception):
                raise
            raise cause from None
        return self

    def close(self) -> None:
        """End the session; a stdio server's process group is gone when this returns (or is
        killed at exit, where it would not stop in time)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop has already stopped
            loop.call_soon_threadsafe(self._stop_soon)
        # stopping a stdio server takes up to three grace periods (stdin closed, SIGTERM,
        # SIGKILL; see mcp_transport._stop)
        thread.join(timeout=max(self.timeout, 3 * _STOP_GRACE + 1))
        if thread.is_alive():
            logger.warning("MCP connection %s did not close in time", self._label()[:200])
        self._thread = None
        self._loop = None

    def _stop_soon(self) -> None:
        """On the connection's loop (so never between its steps): end the open session, or
        cancel its opening, from any thread. A connection still opening (``initialize`` not
        answered: a server slow to start, or a URL that accepts and never answers) is
        cancelled, and :meth:`open`, waiting on another thread, raises
        :class:`OpenCancelled`; the transport stops a stdio server on the way out."""
        if self._client is not None and self._closing is not None:
            self._closing.set()
        elif self._task is not None and not self._task.done():
            self._cancelled = True
            self._task.cancel()

    def __enter__(self) -> MCPConnection:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MCPConnection:
        await asyncio.to_thread(self.open)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)

    def _submit(self, make: Callable[[Any], Any]) -> Future[Any]:
        client, loop = self._client, self._loop
        if client is None or loop is None:
            raise RuntimeError("the MCP connection is not open")
        return asyncio.run_coroutine_threadsafe(make(client), loop)

    def list_tools(self) -> list[Any]:
        """Every tool the server lists (all pages, at most :attr:`max_tools`)."""
        label, limit = self._label(), self.max_tools
        listed = self._submit(lambda client: every_tool(client, max_tools=limit, label=label))
        return list(listed.result(timeout=self.timeout))

    @property
    def ended_why(self) -> str | None:
        """Why its stdio transport ended the session itself (``None``: it did not)."""
        return self._watch.ended_why if self._watch is not None else None

    def call_tool_sync(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> Any:
        future = self._submit(lambda client: client.call_tool(name, dict(arguments)))
        try:
            return future.result(timeout=timeout or self.timeout)
        except TimeoutError:
            future.cancel()
            raise

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if self._client is not None and asyncio.get_running_loop() is self._loop:
            return await self._client.call_tool(name, dict(arguments))
        future = self._submit(lambda client: client.call_tool(name, dict(arguments)))
        return await asyncio.wrap_future(future)
