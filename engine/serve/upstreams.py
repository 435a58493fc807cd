"""Upstream MCP servers connected in the background, all at once.

``schemarouter serve`` answers its client (``initialize``, ``list_tools``: its three tools
never change) as soon as its own sources are registered; each upstream server of the config
connects in a thread of its own, and its tools join the registry (and the index) when it has
listed them. Until then a search says which upstreams are still connecting, and after a
failure which one failed and why; nothing waits for the slowest server.

A server that fails to connect is tried again, after :data:`RETRY_DELAYS` seconds (then
every last delay), until it joins or the gateway closes: a server that was down when the
gateway started joins once it is up (before, it stayed unavailable until a restart). Its
failure is said meanwhile, with when the next attempt is; a search never waits for it.

Closing the gateway never waits for a server: :meth:`Upstreams.halt` stops the retries
and says which servers were still connecting or waiting to be tried again; the gateway
then closes its router, which cancels the connections still opening (a stdio server it
started is stopped), and :meth:`Upstreams.join` waits for the threads to end.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from schemarouter.execution.credentials import Redactor
from schemarouter.execution.invokers.payload import clip
from schemarouter.serve.config import McpServerSpec

__all__ = ["RETRY_DELAYS", "Upstreams"]

logger = logging.getLogger(__name__)

#: Seconds before each new attempt to connect a server that failed (the last one repeats).
RETRY_DELAYS = (2.0, 5.0, 15.0, 30.0, 60.0)

#: Imported before the connection threads start: two threads importing one package at once
#: can each see the other's modules half initialized (the server's and the clients' SDK
#: modules import each other), which reads as "mcp is not installed".
_PRELOAD = (
    "mcp",
    "mcp.client.client",
    "mcp.client.session",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.server.mcpserver",
    "schemarouter.adapters.mcp",
    "schemarouter.execution.invokers.mcp_session",
)


def _preload() -> None:
    for name in _PRELOAD:
        with contextlib.suppress(ImportError):  # a missing SDK is said where it is needed
            importlib.import_module(name)


class Upstreams:
    """The background connections of one gateway (see the module docstring)."""

    def __init__(self, *, retry_delays: Sequence[float] = RETRY_DELAYS) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.retry_delays = tuple(retry_delays)
        #: provider -> "connecting", "ready", or the error text
        self._state: dict[str, str] = {}
        #: providers with an attempt to connect under way
        self._attempting: set[str] = set()

    def start(
        self,
        servers: Sequence[McpServerSpec],
        connect: Callable[[McpServerSpec], Any],
    ) -> None:
        """Connect every server in ``servers`` with ``connect`` (which registers and binds
        its tools), each in a thread of its own, and return at once."""
        if servers:
            _preload()
        for spec in servers:
            with self._lock:
                self._state[spec.provider] = "connecting"
            thread = threading.Thread(
                target=self._connect,
                args=(spec, connect),
                name=f"schemarouter-upstream-{spec.provider}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()

    def _connect(self, spec: McpServerSpec, connect: Callable[[McpServerSpec], Any]) -> None:
        started = time.monotonic()
        for attempt in itertools.count():
            with self._lock:
                if self._stop.is_set():
                    return
                self._attempting.add(spec.provider)
            try:
                connect(spec)
            except Exception as exc:  # said in every search answer until it joins
                # an HTTP upstream's credential travels in its URL: never in an answer or a log
                # (redacted before it is cut: a cut would leave part of a key)
                why = clip(Redactor(spec.secrets())(f"{type(exc).__name__}: {exc}"))
                if self._stop.is_set():  # cancelled by the gateway closing (halt says so)
                    logger.debug("upstream %s: connecting ended at close: %s", spec.provider, why)
                    self._set(spec.provider, "closed while connecting")
                    return
                if not self.retry_delays:
                    self._set(spec.provider, why)
                    return
                delay = self.retry_delays[min(attempt, len(self.retry_delays) - 1)]
                (logger.warning if attempt == 0 else logger.debug)(
                    "upstream %s did not connect: %s (trying again in %g s)",
                    spec.provider,
                    why,
                    delay,
                )
                self._set(spec.provider, f"{why} (trying again every {delay:g} s at most)")
                if self._stop.wait(delay):
                    return
                continue
            if self._stop.is_set():  # joined as the gateway closed: its session is closed
                logger.debug("upstream %s: connected as the gateway closed", spec.provider)
                return
            logger.info("upstream %s ready in %.2f s", spec.provider, time.monotonic() - started)
            self._set(spec.provider, "ready")
            return

    def _set(self, provider: str, state: str) -> None:
        with self._changed:
            self._state[provider] = state
            self._attempting.discard(provider)
            self._changed.notify_all()

    def connecting(self) -> list[str]:
        """The providers whose servers are still connecting."""
        with self._lock:
            return [p for p, state in self._state.items() if state == "connecting"]

    def failed(self) -> dict[str, str]:
        """provider -> why its server did not connect."""
        with self._lock:
            return {p: s for p, s in self._state.items() if s not in ("connecting", "ready")}

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no server is connecting for the first time (each joined, or failed
        and waits to be tried again), ``timeout`` seconds at most; whether none is."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while any(state == "connecting" for state in self._state.values()):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def halt(self) -> dict[str, str]:
        """Try no server again, and start no new attempt; returns, per provider not
        connected, what is stopped: ``"connecting"`` (an attempt under way: the owner
        cancels it by closing the router) or ``"waiting"`` (to be tried again)."""
        with self._lock:
            self._stop.set()
            return {
                provider: "connecting"
                if provider in self._attempting or state == "connecting"
                else "waiting"
                for provider, state in self._state.items()
                if state != "ready"
            }

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the connection threads to end (``timeout`` seconds in all); whether
        they did."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in list(self._threads):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            thread.join(left)
        return not any(thread.is_alive() for thread in self._threads)

    def note(self) -> dict[str, Any]:
        """What a search answer says of the upstreams: those still connecting, those that
        failed (empty where every upstream is ready)."""
        out: dict[str, Any] = {}
        pending = self.connecting()
        if pending:
            out["connecting"] = (
                f"{len(pending)} upstream server{'s are' if len(pending) > 1 else ' is'} still "
                f"connecting ({', '.join(pending)}): their tools join the search when ready"
            )
        failed = self.failed()
        if failed:
            out["unavailable"] = failed
        return out
