"""Stopping ``schemarouter serve`` over stdio without cutting the requests under way.

On SIGTERM (or Ctrl-C) the server goes on reading its client's messages but runs no new
request: each is answered at once with a JSON-RPC error (:data:`STOPPING`, code -32000) that
says the server is stopping; the requests under way (a ``tools/call`` whose upstream is
still answering) finish for up to :data:`~.drain.DRAIN_SECONDS`, as over HTTP, and their
answers are on stdout before the gateway closes and the process ends (128 + the signal's
number). The log says how many it waited for and whether any was cut. Before, the process
ended at the signal: a call under way reached its upstream (a write ran there) and its
client got no answer (user trial X4).

The stdio transport is the MCP SDK's (:func:`mcp.server.stdio.stdio_server`), given the
process's stdin and stdout through :class:`Drain`'s readers and writers, which see each
request come in and each answer go out; fd 0 and 1 are moved off the wire while it serves,
as the SDK does, so a child's stray output never lands in the protocol. An answer the client
reads none of for ``stdout_timeout`` seconds (a client that stopped reading stdout, its pipe
full) ends the process (:class:`Stall`), where before it waited for ever.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any

__all__ = ["STALLED_EXIT", "STDOUT_TIMEOUT", "STOPPING", "Drain", "Stall", "serve_stdio"]

logger = logging.getLogger(__name__)

#: The JSON-RPC error a request gets once the server is stopping.
STOPPING = {
    "code": -32000,
    "message": "schemarouter serve is stopping (SIGTERM): this request was not run; "
    "send it again once the server is back",
}


class Drain:
    """The requests under way over stdio (by JSON-RPC id), and whether the server stops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: by id, how many requests of that id are under way (a client may reuse one)
        self._pending: Counter[str] = Counter()
        self._stopping = False
        self._idle = threading.Event()
        self._idle.set()

    def admit(self, line: str, message: Any = None, kind: str | None = None) -> str | None:
        """``None`` where the message in ``line`` goes on to the server (a request is then
        under way until its answer is written); else the error line that answers it.
        ``message`` and ``kind``: the line already read as JSON, and the kind of message the
        SDK reads it as (:func:`~.stdio_frames.check_line` gives both), not read again."""
        if message is None:
            try:
                message = json.loads(line)
            except ValueError:
                return None  # the server says it is no JSON
        if not isinstance(message, dict) or "method" not in message:
            return None  # an answer of the client's: never refused
        if "id" in message and (kind or _kind(line)) != "JSONRPCRequest":
            return None  # the SDK answers it nothing (an id {"a": 1}, 1.0, no "jsonrpc")
        if "id" not in message:  # a notification: never refused; a cancelled request is
            if message["method"] == "notifications/cancelled":  # answered by nothing
                params = message.get("params")
                if isinstance(params, dict) and "requestId" in params:
                    self._done(params["requestId"])
            return None
        with self._lock:
            if self._stopping:
                error = {"jsonrpc": "2.0", "id": message["id"], "error": STOPPING}
                return json.dumps(error) + "\n"
            self._pending[_key(message["id"])] += 1
            self._idle.clear()
        return None

    def answered(self, line: str) -> None:
        """``line`` (an answer, or a message of the server's own) is on stdout."""
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self._done(message["id"])

    def _done(self, request_id: Any) -> None:
        with self._lock:
            key = _key(request_id)
            if self._pending[key] > 1:
                self._pending[key] -= 1
            else:
                self._pending.pop(key, None)
            if not self._pending:
                self._idle.set()

    def under_way(self) -> int:
        """How many requests are under way (admitted, not answered nor cancelled)."""
        with self._lock:
            return sum(self._pending.values())

    def stop(self) -> int:
        """Refuse every request from now on; returns how many are under way."""
        with self._lock:
            self._stopping = True
            return sum(self._pending.values())

    def wait(self, seconds: float) -> int:
        """Wait up to ``seconds`` for the requests under way; how many are still."""
        self._idle.wait(seconds)
        with self._lock:
            return sum(self._pending.values())


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def _kind(line: str) -> str | None:
    """The kind of message the SDK reads ``line`` as: it answers a request only; one whose
    id is no string or integer it reads as a notification, and one without ``"jsonrpc":
    "2.0"`` as no message, answering neither, and SIGTERM waited 25 s for it (trial Y1)."""
    from schemarouter.serve.stdio_frames import sdk_reading

    return sdk_reading(line)


class _Reader:
    """The client's lines, checked first (:mod:`~schemarouter.serve.stdio_frames`: a line
    past the limit, no JSON-RPC message), each one ``drain`` refuses answered through
    ``writer``; a line is read only while fewer than ``MAX_IN_FLIGHT`` requests are under
    way, so a client that stops reading its answers is not read either."""

    def __init__(self, file: Any, drain: Drain, writer: _Writer) -> None:
        self._file, self._drain, self._writer = file, drain, writer

    def __aiter__(self) -> _Reader:
        return self

    async def __anext__(self) -> str:
        import anyio

        from schemarouter.serve.stdio_frames import MAX_IN_FLIGHT, check_line, read_line

        while True:
            while self._drain.under_way() >= MAX_IN_FLIGHT:
                await anyio.sleep(0.005)  # the answers wait for the client to read them
            line, too_long = await read_line(self._file)
            if not line:
                raise StopAsyncIteration
            frame = check_line(line, too_long)
            refused = frame.answer
            if frame.line is not None:
                refused = self._drain.admit(frame.line, frame.message, frame.kind)
                if refused is None:
                    return frame.line
            if refused is not None:
                await self._writer.write(refused)
                await self._writer.flush()


class _Writer:
    """stdout: the lines of each flush written under one lock, then told to ``drain``.
    Written to the wire's descriptor a :data:`_CHUNK` at a time in a thread, each taken
    noted, so that :class:`Stall` can tell a client that takes nothing."""

    def __init__(self, fd: int, drain: Drain) -> None:
        import anyio

        self._fd, self._drain = fd, drain
        self._lock = anyio.Lock()
        self._held: list[str] = []
        #: when the write under way last got a chunk taken (``None``: no write under way)
        self.waiting_since: float | None = None

    async def write(self, text: str) -> None:
        async with self._lock:
            self._held.append(text)

    async def flush(self) -> None:
        from anyio import to_thread

        async with self._lock:
            written, self._held = self._held, []
            await to_thread.run_sync(self._send, "".join(written).encode("utf-8"))
        for text in written:
            self._drain.answered(text)

    def _send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                self.waiting_since = time.monotonic()
                view = view[os.write(self._fd, view[:_CHUNK]) :]
        finally:
            self.waiting_since = None


#: How much of an answer one write hands the client's pipe: a client taking less than this
#: in :data:`STDOUT_TIMEOUT` seconds is taken for one that does not read.
_CHUNK = 4096
#: How long an answer waits for a client that does not read stdout (seconds), by default.
STDOUT_TIMEOUT = 60.0
#: The exit status of a gateway that gave up on its client (``EX_IOERR``).
STALLED_EXIT = 74


class Stall:
    """Watches ``writer``: an answer that got no :data:`_CHUNK` of it taken by the client in
    ``seconds`` calls ``give_up`` (with ``seconds``), once, from a thread of its own.

    Before, an answer waited for ever on a client that read none (its pipe full): no request
    read either (at most :data:`~.stdio_frames.MAX_IN_FLIGHT` under way), the process alive
    and silent until a SIGTERM, which then waited 25 s more for answers that could not go
    out (thirteenth review)."""

    def __init__(self, writer: _Writer, seconds: float, give_up: Any) -> None:
        self._writer, self._seconds, self._give_up = writer, seconds, give_up
        self._stop = threading.Event()

    def __enter__(self) -> Stall:
        threading.Thread(target=self._watch, name="stdout-stall", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, self._seconds / 4)):
            since = self._writer.waiting_since
            if since is not None and time.monotonic() - since > self._seconds:
                self._give_up(self._seconds)
                return


@contextmanager
def _wire() -> Any:
    """The process's stdin (a text file) and stdout (a descriptor) as private ones, fd 0
    reading the null device and fd 1 writing to stderr while it serves (both put back)."""
    stdin, stdout = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        wire_in = os.fdopen(stdin, "rb", closefd=False)
        yield TextIOWrapper(wire_in, encoding="utf-8", errors="replace"), stdout
    finally:
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        for fd in (null, stdin, stdout):
            os.close(fd)


def serve_stdio(
    server: Any,
    drain: Drain,
    *,
    stdout_timeout: float | None = STDOUT_TIMEOUT,
    give_up: Any = None,
) -> None:
    """Run ``server`` (an ``MCPServer``) over stdio until its client closes stdin, the
    requests seen by ``drain``. An answer the client takes nothing of for ``stdout_timeout``
    seconds (``None``: no limit) calls ``give_up(seconds)`` (:class:`Stall`), which ends the
    process; without one, the gateway logs why and exits :data:`STALLED_EXIT`."""
    import anyio
    from mcp.server.stdio import stdio_server

    # what MCPServer.run_stdio_async runs, given our streams: the SDK has no public way to
    # pass them, so an SDK without this attribute serves as before, stopping at the signal
    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None or not hasattr(lowlevel, "create_initialization_options"):
        logger.warning(
            "this MCP SDK (%s) has no MCPServer._lowlevel_server: serving stdio without the "
            "drain, so SIGTERM cuts the requests under way",
            _sdk_version(),
        )
        server.run("stdio")
        return

    async def run(reader: Any, out: _Writer) -> None:
        lines = _Reader(anyio.wrap_file(reader), drain, out)
        async with stdio_server(stdin=lines, stdout=out) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    with _wire() as (reader, fd):
        out = _Writer(fd, drain)
        if stdout_timeout is None:
            anyio.run(run, reader, out)
            return
        with Stall(out, stdout_timeout, give_up or _exit_stalled):
            anyio.run(run, reader, out)


def _exit_stalled(seconds: float) -> None:
    logger.error(
        "schemarouter serve: the client has read none of an answer for %g s (its stdout "
        "pipe full): giving up on it, exiting %d",
        seconds,
        STALLED_EXIT,
    )
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(STALLED_EXIT)


def _sdk_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"mcp {version('mcp')}"
    except PackageNotFoundError:  # pragma: no cover - the SDK is what serves
        return "mcp"
