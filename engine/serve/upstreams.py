"""Upstream MCP servers connected in the background, all at once.

``schemarouter serve`` answers its client (``initialize``, ``list_tools``: its three tools
never change) as soon as its own sources are registered; each upstream server of the config
connects in a thread of its own, and its tools join the registry (and the index) when it has
listed them. Until then a search says which upstreams are still connecting, and after a
failure which one failed and why; nothing waits for the slowest server.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from schemarouter.execution.credentials import Redactor
from schemarouter.serve.config import McpServerSpec

__all__ = ["Upstreams"]

logger = logging.getLogger(__name__)

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

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        #: provider -> "connecting", "ready", or the error text
        self._state: dict[str, str] = {}

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
        try:
            connect(spec)
        except Exception as exc:  # reported in every search answer until the gateway ends
            # an HTTP upstream's credential travels in its URL: never in an answer or a log
            state = Redactor(spec.secrets())(f"{type(exc).__name__}: {str(exc)[:300]}")
            logger.warning("upstream %s did not connect: %s", spec.provider, state)
        else:
            state = "ready"
            logger.info("upstream %s ready in %.2f s", spec.provider, time.monotonic() - started)
        with self._lock:
            self._state[spec.provider] = state

    def connecting(self) -> list[str]:
        """The providers whose servers are still connecting."""
        with self._lock:
            return [p for p, state in self._state.items() if state == "connecting"]

    def failed(self) -> dict[str, str]:
        """provider -> why its server did not connect."""
        with self._lock:
            return {p: s for p, s in self._state.items() if s not in ("connecting", "ready")}

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for every connection to end (``timeout`` seconds in all); whether they did."""
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
