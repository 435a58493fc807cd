"""``schemarouter serve``'s stderr where it is a pipe its reader may never read.

A client that starts ``serve`` with stderr piped and never reads it filled the pipe (64 KiB on
Linux): the next write to stderr then blocked the thread that wrote it, a log record of the
event loop's included, and the gateway answered nothing more (``--log-level info``, two
records per call: the 251st call got no answer; thirteenth review). While it serves, ``serve``
writes stderr through :class:`UnblockedStderr` where it is a pipe (:func:`unblocked_stderr`):
the log, an upstream server's relayed lines, every ``print`` to ``sys.stderr``. A line goes
out at once where the pipe takes it (as before: a reader sees each line as it is written);
else up to :data:`BACKLOG_BYTES` wait in memory, written by a thread of their own as the
reader reads, and a line past that is dropped and counted. Once the backlog is out, one line
says how many were dropped, and lines go out again. A terminal or a file is written as
before (neither fills), and so is a pipe where ``/proc`` cannot open it anew.

The pipe is opened anew through ``/proc/self/fd/2`` for this (a description of its own, made
non-blocking): fd 2 itself, which a child process inherits and which a client may have
given as stdout too (``2>&1``), stays as it was.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import select
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
    """A text stream over ``fd`` (a pipe's own non-blocking description) whose writes never
    wait for the pipe's reader (see the module's text); ``original`` is the stream it stands
    in for (its ``fileno`` is what a child process is given); ``notice`` formats the line that
    says how many lines were dropped."""

    def __init__(
        self,
        fd: int,
        original: TextIO,
        *,
        notice: logging.Formatter | None = None,
        backlog: int = BACKLOG_BYTES,
    ) -> None:
        super().__init__()
        self._fd, self._original, self._backlog = fd, original, backlog
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
        return False

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
                "msg": "%d lines of stderr dropped: its pipe was full (the client does not "
                "read the gateway's stderr); the gateway answered on",
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
                written = os.write(self._fd, self._pending[:65536])
            except BlockingIOError:
                return
            except OSError:  # its reader is gone (EPIPE): nothing more can be written
                self._broken = True
                self.dropped += self._pending.count(b"\n")
                self._pending.clear()
                return
            del self._pending[:written]

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


def _pipe_of(stream: Any) -> int | None:
    """A non-blocking description of its own of the pipe ``stream`` writes, or ``None``
    (``stream`` is no pipe, or ``/proc`` cannot open it)."""
    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (AttributeError, OSError, ValueError):
        return None


@contextlib.contextmanager
def unblocked_stderr(notice: logging.Formatter | None = None) -> Iterator[None]:
    """``sys.stderr`` an :class:`UnblockedStderr` while the block runs, where it is a pipe
    (else as it is); after, the backlog is given :data:`SETTLE_SECONDS` to go out and
    ``sys.stderr`` is put back."""
    original = sys.stderr
    fd = _pipe_of(original)
    if fd is None:
        yield
        return
    with contextlib.suppress(Exception):
        original.flush()
    stream = UnblockedStderr(fd, original, notice=notice)
    sys.stderr = stream
    try:
        yield
    finally:
        stream.settle(SETTLE_SECONDS)
        sys.stderr = original
        stream.release()
