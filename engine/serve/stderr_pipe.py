"""``schemarouter serve``'s stderr where it is a pipe, a socket or a terminal its reader may
never read.

A client that starts ``serve`` with stderr piped and never reads it filled the pipe (64 KiB on
Linux): the next write to stderr then blocked the thread that wrote it, a log record of the
event loop's included, and the gateway answered nothing more (``--log-level info``, two
records per call: the 251st call got no answer; thirteenth review). While it serves, ``serve``
writes stderr through :class:`UnblockedStderr` where it is a pipe, a socket or a
terminal (:func:`unblocked_stderr`):
the log, an upstream server's relayed lines, every ``print`` to ``sys.stderr``. A line goes
out at once where the pipe takes it (as before: a reader sees each line as it is written);
else up to :data:`BACKLOG_BYTES` wait in memory, written by a thread of their own as the
reader reads, and a line past that is dropped and counted. Once the backlog is out, one line
says how many were dropped, and lines go out again. A file is written as before (it never
fills), and so is a pipe or a terminal where ``/proc`` cannot open it anew.

A pipe or a terminal is opened anew through ``/proc/self/fd/2`` for this (a description of
its own, made non-blocking); a socket, which ``/proc`` cannot open, is written with
``MSG_DONTWAIT`` through a descriptor of its own (a datagram socket a line a datagram: a
full one blocked as the stream socket did; helper ``gateway``). Either way fd 2 itself,
which a child process inherits and which a client may have given as stdout too (``2>&1``),
stays as it was.
Before, a stderr that was a socket (systemd's journal stream, a supervisor's log socket) or a
terminal paused with Ctrl-S blocked the thread that wrote a line until its reader took it,
and the gateway answered nothing more (sixteenth review).
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import os
import select
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["BACKLOG_BYTES", "UnblockedStderr", "unblocked_stderr"]

#: What waits in memory for a reader that is behind, in bytes (as much again as the pipe).
BACKLOG_BYTES = 64 * 1024
#: The longest piece of a line held for its end (a progress bar's ``\r`` never ends one).
_LINE_CHARS = 64 * 1024
#: How long the end of ``serve`` waits for the backlog to go out, in seconds.
SETTLE_SECONDS = 1.0
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class UnblockedStderr(io.TextIOBase):
    """A text stream over ``fd`` (a pipe's or a terminal's own non-blocking description, or
    ``sock``'s descriptor) whose writes never wait for its reader (see the module's text);
    ``original`` is the stream it stands in for (its ``fileno`` is what a child process is
    given); ``notice`` formats the line that says how many lines were dropped; ``sock``: a
    stream or datagram socket of its own, written with ``MSG_DONTWAIT`` (its description,
    shared with fd 2, stays blocking)."""

    def __init__(
        self,
        fd: int,
        original: TextIO,
        *,
        notice: logging.Formatter | None = None,
        backlog: int = BACKLOG_BYTES,
        sock: socket.socket | None = None,
    ) -> None:
        super().__init__()
        self._fd, self._original, self._backlog = fd, original, backlog
        self._socket = sock
        self._notice = notice or logging.Formatter(_FORMAT)
        self._lock = threading.Lock()
        self._line = ""
        self._pending = bytearray()
        #: lines dropped since the last notice
        self.dropped = 0
        self._broken = self._detached = False
        self._waiting = threading.Event()
        self._drainer = threading.Thread(target=self._drain, name="stderr-backlog", daemon=True)
        self._drainer.start()

    # -- the text stream's face ----------------------------------------------------------------

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "backslashreplace"

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._original.fileno()

    def isatty(self) -> bool:
        return self._original.isatty()

    def write(self, text: str) -> int:
        if self._detached:  # serve has ended: its stderr as it was
            return self._original.write(text)
        with self._lock:
            self._line += text
            if "\n" in self._line:
                whole, _, self._line = self._line.rpartition("\n")
                self._queue(whole + "\n")
            elif len(self._line) > _LINE_CHARS:
                whole, self._line = self._line, ""
                self._queue(whole)
        return len(text)

    def flush(self) -> None:
        if self._detached:
            self._original.flush()
            return
        with self._lock:
            if self._line:  # a piece of a line flushed (a progress bar): out as it is
                whole, self._line = self._line, ""
                self._queue(whole)
            self._send()

    def settle(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the backlog to go out (the end of ``serve``)."""
        self.flush()
        self._waiting.set()
        with contextlib.suppress(OSError, ValueError):
            poll = select.poll()
            poll.register(self._fd, select.POLLOUT)
            deadline = time.monotonic() + seconds
            while self._pending_bytes() and time.monotonic() < deadline:
                poll.poll(50)
                with self._lock:
                    self._send()

    def release(self) -> None:
        """Write to ``original`` from now on (what is still in the backlog is lost) and
        close the pipe's own description once its thread has ended."""
        with self._lock:
            self._detached = True
            self._waiting.set()
        self._drainer.join(2)
        if not self._drainer.is_alive():
            if self._socket is not None:
                self._socket.close()
            else:
                os.close(self._fd)

    # -- the backlog ---------------------------------------------------------------------------

    def _queue(self, text: str) -> None:
        """``text`` (whole lines, but a piece flushed) out, in the backlog, or dropped
        (counted); the caller holds the lock."""
        data = text.encode("utf-8", "backslashreplace")
        self._send()
        if self.dropped and not self._pending:  # every line before the drop is out
            self._say_dropped()
        if self._broken or self.dropped or len(self._pending) + len(data) > self._backlog:
            self.dropped += max(1, data.count(b"\n"))
        else:
            self._pending += data
            self._send()
        if self._pending or self.dropped:
            self._waiting.set()

    def _say_dropped(self) -> None:
        record = logging.makeLogRecord(
            {
                "name": __name__,
                "levelno": logging.WARNING,
                "levelname": "WARNING",
                "msg": "%d lines of stderr dropped: its reader took none of them (the "
                "client does not read the gateway's stderr: a full pipe or socket, a paused "
                "terminal); the gateway answered on",
                "args": (self.dropped,),
            }
        )
        self._pending += (self._notice.format(record) + "\n").encode("utf-8", "backslashreplace")
        self.dropped = 0
        self._send()

    def _send(self) -> None:
        """As much of the backlog as the pipe takes now; the caller holds the lock."""
        while self._pending and not self._broken:
            try:
                written = self._write(self._pending[:65536])
            except BlockingIOError:
                return
            except OSError:  # its reader is gone (EPIPE): nothing more can be written
                self._broken = True
                self.dropped += self._pending.count(b"\n")
                self._pending.clear()
                return
            del self._pending[:written]

    def _write(self, data: bytes | bytearray) -> int:
        """``data`` written as far as its reader takes it now (``BlockingIOError``: none).
        A datagram socket is sent a line a datagram (each is a record to its reader), whole
        or not at all; a line too long for one is left out, counted."""
        sock = self._socket
        if sock is None:
            return os.write(self._fd, data)
        if sock.type == socket.SOCK_STREAM:
            return sock.send(data, socket.MSG_DONTWAIT)
        line = data[: data.find(b"\n") + 1 or len(data)]
        try:
            return sock.send(line, socket.MSG_DONTWAIT)
        except OSError as exc:
            if exc.errno != errno.EMSGSIZE:
                raise
            self.dropped += 1
            return len(line)

    def _pending_bytes(self) -> int:
        with self._lock:
            return len(self._pending)

    def _drain(self) -> None:
        """The backlog out as the reader reads (a thread of its own: it alone waits)."""
        poll = select.poll()
        poll.register(self._fd, select.POLLOUT)
        while True:
            self._waiting.wait()
            poll.poll(1000)
            with self._lock:
                if self._detached:
                    return
                self._send()
                if self.dropped and not self._pending and not self._broken:
                    self._say_dropped()
                if (not self._pending and not self.dropped) or self._broken:
                    self._waiting.clear()


def _unblocked_of(stream: Any) -> tuple[int, socket.socket | None] | None:
    """A non-blocking way to write the pipe, terminal or socket ``stream`` writes:
    its own description and ``None``, or a socket of its own and its descriptor; ``None``
    where ``stream`` is none of them (a file), or ``/proc`` cannot open it."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
        if stat.S_ISSOCK(mode):
            own = os.dup(fd)
            try:
                sock = socket.socket(fileno=own)
            except OSError:
                os.close(own)
                return None
            if sock.type not in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                sock.close()
                return None
            return sock.fileno(), sock
        if not (stat.S_ISFIFO(mode) or os.isatty(fd)):
            return None
        flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
        return os.open(f"/proc/self/fd/{fd}", flags), None
    except (AttributeError, OSError, ValueError):
        return None


@contextlib.contextmanager
def unblocked_stderr(notice: logging.Formatter | None = None) -> Iterator[None]:
    """``sys.stderr`` an :class:`UnblockedStderr` while the block runs, where it is a pipe,
    a terminal or a stream or datagram socket (else as it is); after, the backlog is given
    :data:`SETTLE_SECONDS` to go out and ``sys.stderr`` is put back."""
    original = sys.stderr
    unblocked = _unblocked_of(original)
    if unblocked is None:
        yield
        return
    with contextlib.suppress(Exception):
        original.flush()
    fd, sock = unblocked
    stream = UnblockedStderr(fd, original, notice=notice, sock=sock)
    sys.stderr = stream
    try:
        yield
    finally:
        stream.settle(SETTLE_SECONDS)
        sys.stderr = original
        stream.release()
