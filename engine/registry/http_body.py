"""Reading one HTTP response within bounds: a byte limit at every ``Content-Encoding``
layer, and one deadline for the whole exchange.

Shared by execution (:mod:`schemarouter.execution.invokers.http`) and by document fetching
(:mod:`schemarouter.registry.parsing`); callers turn the three refusals into their own
typed errors:

- :class:`BodyTooLarge`: the body, on the wire or after any layer of decoding, passed the
  limit. :class:`BoundedDecoder` undoes ``gzip`` / ``deflate`` (stacked up to
  :data:`MAX_ENCODINGS` deep) while the body streams in, at most :data:`DECODE_STEP` bytes
  per step, so a 1 kB ``gzip, gzip`` body of 512 MB of zeros stops at the limit instead
  of filling memory (httpx's decoders expand a whole chunk at once);
- :class:`BodyDecodeError`: corrupt compressed data, or an encoding without a bounded
  decoder (``br``, ``zstd``: :data:`ACCEPT_ENCODING` never asks for them);
- :class:`DeadlinePassed`: the deadline passed before the body was read. httpx's timeouts
  bound each read, not their sum, so a server that sends its status line a byte at a time,
  or ``100 Continue`` forever, would hold a caller for as long as it likes. :func:`read_sync`
  runs the exchange in a worker thread and stops waiting at the deadline (shutting the
  connection's socket, which ends the worker); :func:`read_async` cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import httpx

__all__ = [
    "ACCEPT_ENCODING",
    "FRESH_CONNECTIONS",
    "BodyDecodeError",
    "BodyTooLarge",
    "BoundedDecoder",
    "BoundedResponse",
    "DeadlinePassed",
    "read_async",
    "read_sync",
]

#: What the executor and the document loader accept (``Accept-Encoding``); ``br`` and
#: ``zstd`` are refused, so no decoder without an output bound is ever used.
ACCEPT_ENCODING = "gzip, deflate"
#: Bytes one decompression step may produce.
DECODE_STEP = 64 * 1024
#: Encodings one body may stack (``Content-Encoding: gzip, gzip``).
MAX_ENCODINGS = 4


class BodyTooLarge(Exception):
    """The body (or one layer of its decoding) passed the limit."""


class BodyDecodeError(Exception):
    """The body does not decode as its ``Content-Encoding`` says."""


class _Layer:
    """One ``gzip`` or ``deflate`` layer, decompressed at most :data:`DECODE_STEP` bytes
    at a time (``zlib``'s ``max_length``), so a 1 kB bomb cannot expand in one call."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.wbits = zlib.MAX_WBITS | 16 if kind == "gzip" else zlib.MAX_WBITS
        self.obj = zlib.decompressobj(self.wbits)
        self.started = False
        self.produced = 0

    def decode(self, data: bytes) -> Iterator[bytes]:
        buf = data
        while buf and not self.obj.eof:
            try:
                out = self.obj.decompress(buf, DECODE_STEP)
            except zlib.error as exc:
                if self.kind == "deflate" and not self.started:  # raw deflate, no zlib header
                    self.wbits = -zlib.MAX_WBITS
                    self.obj = zlib.decompressobj(self.wbits)
                    self.started = True
                    continue
                raise BodyDecodeError(f"the {self.kind} body is corrupt: {exc}") from None
            self.started = True
            buf = self.obj.unconsumed_tail
            if out:
                yield out
            while len(out) == DECODE_STEP and not buf and not self.obj.eof:
                out = self.obj.decompress(b"", DECODE_STEP)  # drain what zlib holds back
                if out:
                    yield out


class BoundedDecoder:
    """Decodes a body stacked in ``Content-Encoding`` layer by layer while it streams in,
    counting what every layer produces: past ``limit`` bytes at any layer it raises
    :class:`BodyTooLarge`, having held at most ``limit`` bytes plus one step."""

    def __init__(self, content_encoding: str | None, *, limit: int) -> None:
        names = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
        names = [e for e in names if e != "identity"]
        unknown = sorted({e for e in names if e not in ("gzip", "x-gzip", "deflate")})
        if unknown:
            raise BodyDecodeError(f"unsupported Content-Encoding {', '.join(unknown)}")
        if len(names) > MAX_ENCODINGS:
            raise BodyDecodeError(f"more than {MAX_ENCODINGS} stacked content encodings")
        # the last encoding listed was applied last, so it is undone first
        self.layers = [_Layer("gzip" if e == "x-gzip" else e) for e in reversed(names)]
        self.limit = limit
        self.raw = 0
        self.body = bytearray()

    def feed(self, chunk: bytes) -> None:
        """Take the next raw chunk (as it came off the wire)."""
        self.raw += len(chunk)
        if self.raw > self.limit:
            raise BodyTooLarge(f"more than {self.limit} bytes on the wire")
        for piece in self._through(0, chunk):
            self.body += piece
            if len(self.body) > self.limit:
                raise BodyTooLarge(f"decodes to more than {self.limit} bytes")

    def _through(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self.layers):
            yield data
            return
        layer = self.layers[i]
        for piece in layer.decode(data):
            layer.produced += len(piece)
            if layer.produced > self.limit:
                raise BodyTooLarge(f"a {layer.kind} layer decodes to more than {self.limit} bytes")
            yield from self._through(i + 1, piece)

    def finish(self) -> bytes:
        """The decoded body."""
        return bytes(self.body)


#: Limits for the blocking clients SchemaRouter makes itself: no idle connection is kept,
#: so every request opens its own and :func:`read_sync` always holds the socket it may
#: have to shut at the deadline. (A client the caller passes in may hand out a pooled
#: connection; if that one stalls, the call still returns at the deadline, and the
#: connection is freed when the server gives up or the client is closed.)
FRESH_CONNECTIONS = httpx.Limits(max_keepalive_connections=0)


class DeadlinePassed(Exception):
    """The exchange did not finish before its deadline."""


class BoundedResponse(NamedTuple):
    status_code: int
    headers: httpx.Headers
    content: bytes
    url: httpx.URL
    #: The request httpx would send for a redirect (``None`` for anything else).
    next_request: httpx.Request | None


def _declared_too_big(response: httpx.Response, limit: int) -> bool:
    declared = response.headers.get("content-length", "")
    return (
        declared.isdigit()
        and int(declared) > limit
        and not response.headers.get("content-encoding")
    )


def _start(response: httpx.Response, limit: int) -> BoundedDecoder:
    if _declared_too_big(response, limit):
        raise BodyTooLarge(f"declares {response.headers['content-length']} bytes")
    return BoundedDecoder(response.headers.get("content-encoding"), limit=limit)


def _in_memory(response: httpx.Response, limit: int) -> bool:
    """Whether the transport handed over a body already read (``httpx.MockTransport``,
    an in-process app): then it is only measured."""
    if not response.is_stream_consumed:
        return False
    if len(response.content) > limit:
        raise BodyTooLarge(f"has more than {limit} bytes")
    return True


def _done(response: httpx.Response, decoder: BoundedDecoder | None) -> BoundedResponse:
    if decoder is None:
        content = response.content if response.is_stream_consumed else b""
    else:
        content = decoder.finish()
    return BoundedResponse(
        response.status_code,
        response.headers,
        content,
        response.url,
        response.next_request,
    )


class _SyncExchange:
    """One blocking exchange in a worker thread (see the module docstring)."""

    def __init__(
        self, client: httpx.Client, request: httpx.Request, limit: int, skip_redirect_body: bool
    ) -> None:
        self.client = client
        self.request = request
        self.limit = limit
        self.skip_redirect_body = skip_redirect_body
        self.done = threading.Event()
        self.result: BoundedResponse | None = None
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._aborted = False
        self._sockets: list[Any] = []
        self._response: httpx.Response | None = None

    def _trace(self, event: str, info: Mapping[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            with self._lock:
                if sock is not None:
                    self._sockets.append(sock)
                aborted = self._aborted
            if aborted:
                self.abort()

    def run(self) -> None:
        try:
            request = self.request
            request.extensions = {**request.extensions, "trace": self._trace}
            response = self.client.send(request, stream=True, follow_redirects=False)
            with self._lock:
                self._response = response
            try:
                decoder = None
                skip = self.skip_redirect_body and response.next_request is not None
                if not skip and not _in_memory(response, self.limit):
                    decoder = _start(response, self.limit)
                    for chunk in response.iter_raw():
                        decoder.feed(chunk)
                self.result = _done(response, decoder)
            finally:
                response.close()
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            sockets, response = list(self._sockets), self._response
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        if response is not None:
            with contextlib.suppress(Exception):
                response.close()


def read_sync(
    client: httpx.Client,
    request: httpx.Request,
    *,
    limit: int,
    deadline: float,
    skip_redirect_body: bool = False,
) -> BoundedResponse:
    """Send ``request`` and read its body within ``limit`` bytes by ``deadline``
    (``time.monotonic()``). Raises :class:`BodyTooLarge`, :class:`BodyDecodeError`,
    :class:`DeadlinePassed` or the ``httpx.HTTPError`` of the exchange."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed()
    call = _SyncExchange(client, request, limit, skip_redirect_body)
    worker = threading.Thread(target=call.run, name="schemarouter-http", daemon=True)
    worker.start()
    if not call.done.wait(left):
        call.abort()
        raise DeadlinePassed()
    if call.error is not None:
        raise call.error
    assert call.result is not None
    return call.result


async def _read_async(
    client: httpx.AsyncClient, request: httpx.Request, limit: int, skip_redirect_body: bool
) -> BoundedResponse:
    response = await client.send(request, stream=True, follow_redirects=False)
    try:
        decoder = None
        skip = skip_redirect_body and response.next_request is not None
        if not skip and not _in_memory(response, limit):
            decoder = _start(response, limit)
            async for chunk in response.aiter_raw():
                decoder.feed(chunk)
        return _done(response, decoder)
    finally:
        await response.aclose()


async def read_async(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    limit: int,
    deadline: float,
    skip_redirect_body: bool = False,
) -> BoundedResponse:
    """:func:`read_sync`, awaited (the exchange is cancelled at the deadline)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed()
    try:
        async with asyncio.timeout(left):
            return await _read_async(client, request, limit, skip_redirect_body)
    except TimeoutError:
        raise DeadlinePassed() from None
