"""A stdio MCP server's stderr, relayed line by line into this process's stderr (see
:class:`Relay`): labelled, cut, escaped, redacted and held to a budget."""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.execution.credentials import Pieces, Redactor, env_secrets
from schemarouter.placement import command_secrets

__all__ = ["EXIT_GRACE", "Relay"]

#: Seconds a server may take to exit once its stdin is closed, then SIGTERM, then SIGKILL
#: (and the longest what is left of its stderr is drained once it is stopped).
EXIT_GRACE = 1.0


def _whole_characters(data: bytes) -> int:
    """How many of ``data``'s bytes end on a whole UTF-8 character: a long line cut at a
    byte count showed the character it split as two U+FFFD (trial X4)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # the last character's first byte
            need = 4 if byte >= 0xF0 else 3 if byte >= 0xE0 else 2 if byte >= 0xC0 else 1
            return len(data) - back if need > back else len(data)
    return len(data)


class Relay:
    """A stdio server's stderr, line by line, to this process's stderr after ``LABEL: ``:
    several upstream servers of one gateway wrote into its log with nothing to say whose
    line was whose (user trial P). A line is cut at 64 KiB (a server that never ends one
    holds no more; a character the cut would split goes to the next piece); bytes that are no
    UTF-8 are replaced; control, line-breaking and
    direction-changing characters but the tab are written escaped (``\\r``, ``\\x1b``,
    ``\\u2028``): written raw, a server's ``fine\\rINFO schemarouter...`` showed on a terminal
    or a log reader as a line of the gateway's own (trial X4). The values of the server's own
    ``env`` (its secrets go there) are redacted, but a number or a yes/no setting: a server
    that printed its API key at start had it in the gateway's log once per start (trial U2).
    At most :attr:`WINDOW_BYTES` are relayed per :attr:`WINDOW_S` seconds; the rest of the
    window is left out and counted in one line (a server printing its outputs to stderr wrote
    10.5 MB into the gateway's log in two calls: trial U2)."""

    LINE_BYTES = 64 * 1024
    WINDOW_BYTES = 1024 * 1024
    WINDOW_S = 60.0
    _UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

    def __init__(
        self, label: str, env: Mapping[str, str] | None = None, command: Sequence[str] = ()
    ) -> None:
        self.prefix = f"{label}: "
        self.held = b""
        # its env's values, and its command line's secret flags' (trial V1: --api-key VALUE)
        secrets = env_secrets(env) + command_secrets(command)
        self.whole, self.pieces = Redactor(secrets), Pieces(secrets)
        self.window = time.monotonic()
        self.sent = self.dropped = 0
        #: whether this window left a line out: the rest of it is left out unread
        self.full = False

    def write(self, chunk: bytes, *, last: bool = False) -> None:
        if self.full and not last and time.monotonic() - self.window < self.WINDOW_S:
            self._skip(chunk)  # the window's budget is spent: nothing to split nor redact
            return
        lines = (self.held + chunk).split(b"\n")
        self.held = b"" if last else lines.pop()
        if len(self.held) > self.LINE_BYTES:
            cut = _whole_characters(self.held)
            lines.append(self.held[:cut])
            self.held = self.held[cut:]
        cr = "\r"
        text = "".join(
            f"{self.prefix}{self._shown(self.redact(line.decode('utf-8', 'replace').rstrip(cr)))}\n"
            for line in lines
            if line or not last
        )
        text = self._within_budget(text, last=last)
        if text:
            with contextlib.suppress(Exception):  # a closed or odd stderr loses the line only
                sys.stderr.write(text)
                sys.stderr.flush()

    def _within_budget(self, text: str, *, last: bool) -> str:
        """``text`` where this window's budget holds it; else nothing, counted, with one line
        saying so when a window (or the stream) ends that left some out."""
        now, note = time.monotonic(), ""
        if now - self.window >= self.WINDOW_S:
            note = self._left_out()
            self.window, self.sent, self.full = now, 0, False
        size = len(text.encode("utf-8", "replace"))
        if self.full or self.sent + size > self.WINDOW_BYTES:
            self.dropped += size
            self.full = True
            text = ""
        else:
            self.sent += size
        return note + text + (self._left_out() if last else "")

    def _skip(self, chunk: bytes) -> None:
        """Leave out ``chunk``'s whole lines unread, counted (a server flooding its stderr
        cost this process 45% of a core splitting, redacting and escaping lines it then
        dropped: sixteenth review); the piece of a line after its last newline is held."""
        data = self.held + chunk
        cut = data.rfind(b"\n") + 1
        self.held = data[cut:]
        if len(self.held) > self.LINE_BYTES:
            cut, self.held = len(data), b""
        self.dropped += cut

    def _left_out(self) -> str:
        if not self.dropped:
            return ""
        said = (
            f"{self.prefix}[{self.dropped} bytes of stderr left out: over "
            f"{self.WINDOW_BYTES // 1024} KiB in {self.WINDOW_S:g} s]\n"
        )
        self.dropped = 0
        return said

    def redact(self, line: str) -> str:
        """``line`` without the server's env values, whole or a piece of one (a log handler
        that wraps lines writes a long key in pieces, each on a line of its own)."""
        return self.pieces(self.whole(line))

    @classmethod
    def _shown(cls, text: str) -> str:
        return cls._UNSAFE.sub(lambda m: ascii(m.group())[1:-1], text)

    async def pump(self, stream: Any) -> None:
        import anyio

        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            while True:
                self.write(await stream.receive(65536))

    async def drain(self, stream: Any) -> None:
        """What is left once the server is stopped (its whole group: the pipe ends)."""
        import anyio

        ended = (anyio.EndOfStream, anyio.ClosedResourceError, OSError)
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(EXIT_GRACE),
            contextlib.suppress(*ended),
        ):
            while True:
                self.write(await stream.receive(65536))
        self.write(b"", last=True)
