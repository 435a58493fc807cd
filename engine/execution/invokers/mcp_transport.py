"""MCP client transports that bound what an upstream server can make the client hold.

The SDK's stdio transport joins a line's chunks by concatenation (quadratic in the line's
length: a 50 MB reply kept a core busy for minutes and every later reply queued behind it),
and its streamable-HTTP transport reads a JSON reply whole (a 200 MB reply took the gateway
from 107 MB to 2.5 GB). These transports read every message within ``max_message_bytes``:

- **stdio** (:func:`capped_stdio`): lines are split as the bytes arrive (linear time) and a
  line past the cap is *skipped* as it streams, never held. Where the first 64 KiB of the
  skipped line name its JSON-RPC ``id`` at the top level, that request is answered at once
  with an error ("the reply is larger than ..."), and the session goes on; otherwise the
  session ends (every call in flight fails as a lost session; the owner reconnects). So
  does a skipped line that goes on past :func:`skip_limit` (a line that never ends kept a
  core reading it, and every later call waited for its timeout, for as long as the session
  lived). The
  server runs in a process group of its own, which is killed when the transport closes,
  when opening is cancelled (an ``initialize`` that never answers), and when this process
  exits (:func:`kill_orphans`). A :class:`ServerWatch` tells its owner, from any thread,
  that the server is gone before anything more is sent to it.
- **streamable HTTP** (:func:`capped_http`): a JSON reply is counted as it is read and its
  reading stops past the cap (the SDK answers that request with a parse error); a
  server-sent event may not exceed the cap either; compressed replies are not asked for. A
  reply to ``tools/list`` is held until its message is whole (the SDK reads no part of one
  anyway) and counted as it arrives: past ``max_tools`` tools its reading stops, and the
  request is answered with the error a stdio transport gives (:class:`~.mcp_listing.PageCount`).

Messages carry a tool's output twice (``structuredContent`` and the same JSON as text), so
an owner passes twice the payload cap it enforces (see
:class:`~schemarouter.execution.invokers.mcp_session.ManagedMCPSession`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

from schemarouter.execution.invokers.mcp_listing import DEFAULT_MAX_TOOLS, PageCount
from schemarouter.execution.invokers.mcp_replies import MixedReply, Requests
from schemarouter.execution.invokers.mcp_stderr import EXIT_GRACE, Relay
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = ["ServerWatch", "capped_http", "capped_stdio", "kill_orphans", "top_level_id"]

logger = logging.getLogger(__name__)

#: Bytes of an oversized message searched for its JSON-RPC id.
HEAD_BYTES = 64 * 1024
#: The least a line past the cap is skipped for before the session ends (see skip_limit).
SKIP_BYTES = 256 * 1024 * 1024
#: Environment variables a stdio server inherits (as the SDK's transport does).
_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
#: A JSON string, matched without backtracking (possessive: a 64 KiB string that never
#: closes costs no stack)
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SPACE = re.compile(r"\s*")

#: Process groups of live stdio servers (pid -> None), killed at exit if still there.
_LIVE: dict[int, None] = {}
_LIVE_LOCK = ForkSafeLock()


class ServerWatch:
    """What a stdio transport knows of its server while it runs, read from any thread: an
    owner asks :attr:`gone` before sending, so a call made after the server died is never
    taken for one that was in flight when it died."""

    def __init__(self) -> None:
        self.process: Any = None
        #: the server's stdout ended or its stdin broke (it exited, or stopped talking for good)
        self.pipes_ended = False
        #: the status it exited with on its own, known once the transport closed (``None``:
        #: it was still running and the transport stopped it)
        self.exit_status: int | None = None
        #: why the transport ended the session itself (a reply to no request in flight)
        self.ended_why: str | None = None

    @property
    def gone(self) -> bool:
        """Whether the server is known to be gone: its pipes ended or its process exited
        (asked of the system too, where the event loop has not reaped it yet)."""
        process = self.process
        if self.pipes_ended:
            return True
        return process is not None and (process.returncode is not None or _exited(process.pid))


def _exited(pid: int) -> bool:
    """Whether the child ``pid`` has exited, without reaping it (the event loop does)."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - Windows
        return False
    try:
        return waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already
        return True
    except OSError:  # pragma: no cover - not ours to ask about
        return False


class ReplyTooLarge(Exception):
    """A message from the server is larger than the transport's cap."""


def top_level_id(head: str) -> int | str | None:
    """The ``id`` member of the JSON object ``head`` begins (at its top level, not one nested
    in its result), where ``head`` holds it whole; ``None`` otherwise."""
    decoder = json.JSONDecoder()
    depth, i, expect_key = 0, 0, False
    while i < len(head):
        char = head[i]
        if char == '"':
            match = _STRING.match(head, i)
            if match is None:
                return None  # the string runs past the head
            end = match.end()
            if depth == 1 and expect_key:
                colon = _SPACE.match(head, end).end()  # type: ignore[union-attr]
                if colon >= len(head) or head[colon] != ":":
                    return None
                start = _SPACE.match(head, colon + 1).end()  # type: ignore[union-attr]
                if match.group(0) == '"id"':
                    try:
                        value, _ = decoder.raw_decode(head, start)
                    except ValueError:
                        return None
                    ok = isinstance(value, int | str) and not isinstance(value, bool)
                    return value if ok else None
                expect_key, end = False, start
            i = end
            continue
        if char in "{[":
            depth += 1
            expect_key = char == "{" and depth == 1
        elif char in "}]":
            depth -= 1
            if depth <= 0:
                return None
        elif char == "," and depth == 1:
            expect_key = True
        i += 1
    return None


def _message_cap(cap: int) -> str:
    """The cap of one message, said with where it comes from: an owner passes twice its
    response cap and 64 KiB (a tool's output travels twice in a message)."""
    return (
        f"{cap} bytes, the most one message may have (twice the response cap, "
        "max_response_bytes, and 64 KiB)"
    )


def _too_large(request_id: int | str, cap: int) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError

    error = ErrorData(
        code=-32603,
        message=f"the server's reply is larger than {_message_cap(cap)}; it was not read",
    )
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _parse(line: bytes) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        logger.warning(
            "an MCP server sent a line that is no JSON-RPC message (%d bytes)", len(line)
        )
        return exc


def skip_limit(cap: int) -> int:
    """How many bytes of a line past ``cap`` are skipped before the line is taken for one
    that never ends: :data:`SKIP_BYTES`, or 8 times the cap where that is more."""
    return max(SKIP_BYTES, 8 * cap)


class _Lines:
    """Splits bytes into lines as they arrive, holding at most ``cap`` bytes of one line;
    a longer line is skipped and reported by its first :data:`HEAD_BYTES`; one skipped past
    :func:`skip_limit` sets :attr:`endless`."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buffer = bytearray()
        self.skipping = False
        #: bytes of the line being skipped, and whether it went on past the skip limit
        self.skipped = 0
        self.endless = False

    def feed(self, chunk: bytes) -> list[tuple[bytes, bool]]:
        """``(line, complete)`` pairs: a complete line, or the head of one past the cap."""
        out: list[tuple[bytes, bool]] = []
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            if self.skipping:
                self.skipped += end - start
                if newline >= 0:
                    self.skipping = False
                elif self.skipped > skip_limit(self.cap):
                    self.endless = True
                start = end + 1
                continue
            if len(self.buffer) + (end - start) > self.cap:
                self.skipped = len(self.buffer) + end - start
                self.buffer += chunk[start : start + max(0, HEAD_BYTES - len(self.buffer))]
                out.append((bytes(self.buffer[:HEAD_BYTES]), False))
                self.buffer.clear()
                self.skipping = newline < 0
                start = end + 1
                continue
            self.buffer += chunk[start:end]
            if newline < 0:
                break
            if self.buffer.strip():
                out.append((bytes(self.buffer), True))
            self.buffer.clear()
            start = end + 1
        return out


def _environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k in _INHERITED if (v := os.environ.get(k)) and not v.startswith("()")}
    return env | dict(extra or {})


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(pid, sig)
        else:  # pragma: no cover - Windows
            os.kill(pid, sig)


def kill_orphans() -> None:
    """Kill every stdio server this process started and has not stopped (run at exit)."""
    with _LIVE_LOCK:
        pids = list(_LIVE)
        _LIVE.clear()
    for pid in pids:
        _kill_group(pid, getattr(signal, "SIGKILL", signal.SIGTERM))


atexit.register(kill_orphans)


async def _pump(
    stdout: Any, read_writer: Any, cap: int, requests: Requests, watch: ServerWatch
) -> None:
    """Read the server's messages into the session's stream, each within ``cap`` bytes and
    each reply to a request in flight (:class:`~.mcp_replies.Requests`)."""
    lines = _Lines(cap)
    async for chunk in stdout:
        for line, complete in lines.feed(chunk):
            if complete:
                message = requests.refused_page(line) or _parse(line)
            else:
                request_id = top_level_id(line.decode("utf-8", "replace"))
                logger.warning(
                    "an MCP server sent a message larger than %d bytes (id %s); "
                    "skipped without reading it",
                    cap,
                    "unknown: ending the session" if request_id is None else request_id,
                )
                if request_id is None:
                    return  # the session ends: every call in flight fails at once
                message = _too_large(request_id, cap)
            try:
                message = requests.received(message)
            except MixedReply as exc:
                logger.warning("an MCP server %s; ending its session", exc.what)
                watch.ended_why = exc.why
                return  # the session ends: every call in flight fails at once
            await read_writer.send(message)
        if lines.endless:
            logger.warning(
                "an MCP server sent a line past %d bytes that does not end (%d bytes "
                "skipped); ending its session (the next call starts the server again)",
                cap,
                lines.skipped,
            )
            return  # the session ends: every call in flight fails at once


async def _stop(process: Any, watch: ServerWatch, relay: Relay | None = None) -> None:
    """Close stdin, give the server :data:`EXIT_GRACE` seconds, then kill its group; a server
    that had exited on its own leaves its status on ``watch``; ``relay`` drains its stderr
    before the pipes close."""
    import anyio

    with anyio.CancelScope(shield=True):
        if watch.pipes_ended:  # it closed its output: most likely exiting on its own
            with anyio.move_on_after(EXIT_GRACE):
                while process.returncode is None:
                    await anyio.sleep(0.02)
        watch.exit_status = process.returncode
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
        with anyio.move_on_after(EXIT_GRACE):
            while process.returncode is None:
                await anyio.sleep(0.02)
        if process.returncode is None:
            _kill_group(process.pid, signal.SIGTERM)
            with anyio.move_on_after(EXIT_GRACE):
                while process.returncode is None:
                    await anyio.sleep(0.02)
        # whatever the leader did, its group (children it started) goes too
        _kill_group(process.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        with anyio.move_on_after(EXIT_GRACE):
            await process.wait()
        if relay is not None:  # what it wrote as it ended (a traceback) still goes out
            await relay.drain(process.stderr)
        with contextlib.suppress(Exception):
            await process.aclose()
    with _LIVE_LOCK:
        _LIVE.pop(process.pid, None)


@contextlib.asynccontextmanager
async def capped_stdio(
    command: list[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    max_message_bytes: int,
    watch: ServerWatch | None = None,
    stderr_label: str | None = None,
    max_tools: int = DEFAULT_MAX_TOOLS,
) -> AsyncIterator[tuple[Any, Any]]:
    """A stdio transport for ``mcp.Client`` (see the module docstring); ``watch`` is told
    when the server is gone; ``stderr_label``: the server's stderr lines go to this
    process's stderr after ``LABEL: `` (:class:`~.mcp_stderr.Relay`), else straight through;
    a page of tools past ``max_tools`` is refused unread (:mod:`.mcp_listing`)."""
    import subprocess

    import anyio

    process = await anyio.open_process(
        command,
        env=_environment(env),
        cwd=cwd,
        stderr=subprocess.PIPE if stderr_label else sys.stderr,
        start_new_session=True,
    )
    with _LIVE_LOCK:
        _LIVE[process.pid] = None
    watch = watch if watch is not None else ServerWatch()
    watch.process = process
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None  # spawned with pipes
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    requests = Requests(max_tools=max_tools)

    async def reader() -> None:
        async with read_writer:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await _pump(stdout, read_writer, max_message_bytes, requests, watch)
            # the server is gone (not marked when the transport is cancelled): marked before
            # the session reads the end of its stream
            watch.pipes_ended = True

    async def writer() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    requests.sent(message)
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send(data.encode("utf-8") + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                watch.pipes_ended = True
                await read_writer.aclose()

    relay = None
    if stderr_label and process.stderr is not None:
        relay = Relay(stderr_label, env, command)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            if relay is not None:
                group.start_soon(relay.pump, process.stderr)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()
    finally:
        await _stop(process, watch, relay)
        for stream in (read_stream, write_stream, read_writer, write_reader):
            with contextlib.suppress(Exception):
                await stream.aclose()


# -- streamable HTTP ---------------------------------------------------------------------------


def _listing_id(request: Any) -> int | str | None:
    """The JSON-RPC id of ``request`` (an ``httpx`` request) where it asks ``tools/list``."""
    try:
        content = request.content  # raises for a streamed body, which the SDK never sends
        if request.method != "POST" or len(content) > HEAD_BYTES or b"tools/list" not in content:
            return None
        message = json.loads(content)
    except Exception:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/list":
        return None
    request_id = message.get("id")
    ok = isinstance(request_id, int | str) and not isinstance(request_id, bool)
    return request_id if ok else None


def _event_data(event: bytes) -> str:
    """The ``data`` of the server-sent event ``event`` (as far as it goes)."""
    lines = (line.rstrip(b"\r") for line in event.split(b"\n"))
    data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
    return b"\n".join(data).decode("utf-8", "replace")


def _body_text(body: bytes) -> str:
    return body.decode("utf-8", "replace")


def _refusal(request_id: int | str, error: dict[str, Any], *, events: bool) -> bytes:
    """The reply that answers ``request_id`` with ``error``, as a JSON body or an event."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8")
    return b"event: message\ndata: " + body + b"\n\n" if events else body


_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def _http_parts(cap: int, max_tools: int) -> Any:
    import httpx2

    class TooLarge(httpx2.StreamError):
        """Raised while a reply is read (the SDK answers the request with an error)."""

    class Capped(httpx2.AsyncByteStream):
        def __init__(
            self, inner: Any, *, events: bool, compressed: bool, listing: int | str | None
        ) -> None:
            self.inner, self.events, self.compressed = inner, events, compressed
            self.listing = listing

        async def __aiter__(self) -> AsyncIterator[bytes]:
            if self.compressed:
                raise TooLarge("the server sent a compressed reply, which was not asked for")
            if self.listing is not None:
                async for chunk in self._counted(self.listing):
                    yield chunk
                return
            size, tail = 0, b""
            async for chunk in self.inner:
                if self.events:  # bytes since the last event boundary
                    window = tail + chunk
                    cut = max(window.rfind(b"\n\n"), window.rfind(b"\r\n\r\n"))
                    size = len(window) - cut if cut >= 0 else size + len(chunk)
                    tail = window[-3:]
                else:
                    size += len(chunk)
                if size > cap:
                    raise TooLarge(f"the server's reply is larger than {_message_cap(cap)}")
                yield chunk

        async def _counted(self, request_id: int | str) -> AsyncIterator[bytes]:
            """A ``tools/list`` reply, each message whole once read (a JSON body, or an
            event), or its refusal once it lists more than ``max_tools`` tools."""
            text = _event_data if self.events else _body_text
            held, count = bytearray(), PageCount(max_tools, text)
            async for chunk in self.inner:
                searched = max(0, len(held) - 3)  # an event's end may span two chunks
                held += chunk
                while self.events and (end := _EVENT_END.search(held, searched)) is not None:
                    event, searched = bytes(held[: end.end()]), 0
                    del held[: end.end()]
                    refused = count.feed(event, whole=True)
                    if refused is not None:
                        yield _refusal(request_id, refused, events=True)
                        return
                    count = PageCount(max_tools, text)
                    yield event
                if len(held) > cap:
                    raise TooLarge(f"the server's reply is larger than {_message_cap(cap)}")
                refused = count.feed(held, whole=False)
                if refused is not None:
                    yield _refusal(request_id, refused, events=self.events)
                    return
            refused = count.feed(held, whole=True) if held else None
            yield _refusal(request_id, refused, events=self.events) if refused else bytes(held)

        async def aclose(self) -> None:
            close = getattr(self.inner, "aclose", None)
            if close is not None:
                await close()

    class Transport(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx2.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            response = await self.inner.handle_async_request(request)
            kind = response.headers.get("content-type", "").lower()
            encoding = response.headers.get("content-encoding", "").strip().lower()
            response.stream = Capped(
                response.stream,
                events=kind.startswith("text/event-stream"),
                compressed=encoding not in ("", "identity"),
                listing=_listing_id(request),
            )
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    return httpx2, Transport


@contextlib.asynccontextmanager
async def capped_http(
    url: str, *, max_message_bytes: int, max_tools: int = DEFAULT_MAX_TOOLS
) -> AsyncIterator[tuple[Any, Any]]:
    """A streamable-HTTP transport for ``mcp.Client`` (see the module docstring)."""
    from mcp.client.streamable_http import streamable_http_client

    httpx2, transport = _http_parts(max_message_bytes, max_tools)
    client = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=300.0),
        headers={"Accept-Encoding": "identity"},
        transport=transport(),
    )
    async with (
        client,
        streamable_http_client(
            url, http_client=client, max_sse_event_size=max_message_bytes
        ) as streams,
    ):
        yield streams
