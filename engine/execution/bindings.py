"""What may execute on a router, and what is cooling down: the tables behind its bindings
and its health, safe to share between threads.

- :class:`CooldownTable`: route id -> until when it is unhealthy, and why. Reads take a copy
  under a lock, so health may change in any thread while another filters by it, and a
  cooldown that ran out is dropped rather than kept for the life of the process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

__all__ = ["CooldownTable"]


class CooldownTable:
    """route id -> (monotonic time its cooldown ends, why it is cooling down)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until: dict[str, tuple[float, str]] = {}

    def mark(self, route_id: str, seconds: float, reason: str) -> None:
        with self._lock:
            self._until[route_id] = (time.monotonic() + seconds, reason)

    def clear(self, route_ids: Iterable[str]) -> None:
        with self._lock:
            for route_id in route_ids:
                self._until.pop(route_id, None)

    def left(self, route_id: str) -> float:
        """Seconds until ``route_id`` is healthy again (0.0 when it is)."""
        entry = self._until.get(route_id)
        return 0.0 if entry is None else max(0.0, entry[0] - time.monotonic())

    def reason(self, route_id: str) -> str | None:
        """Why ``route_id`` is cooling down (``None``: it is not)."""
        entry = self._until.get(route_id)
        return entry[1] if entry is not None and entry[0] > time.monotonic() else None

    def unhealthy(self) -> frozenset[str]:
        """The routes cooling down now; those whose cooldown ran out are dropped."""
        now = time.monotonic()
        with self._lock:
            over = [r for r, (until, _) in self._until.items() if until <= now]
            for route_id in over:
                del self._until[route_id]
            return frozenset(self._until)
