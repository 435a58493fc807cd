"""What may execute on a router, and what is cooling down: the tables behind its bindings
and its health, safe to share between threads.

- :class:`BindingTable`: route id -> (fingerprint, invoker). Inside a registry batch
  (:meth:`~schemarouter.registry.registry.Registry.batch`) the changes its own thread makes
  are *staged* with the batch: that thread sees them at once, every other thread keeps the
  bindings from before the block (as it keeps the snapshot), and they go live when the batch
  commits, or go with it when it is undone.
- :class:`CooldownTable`: route id -> until when it is unhealthy, and why. Reads take a copy
  under a lock, so health may change in any thread while another filters by it, and a
  cooldown that ran out is dropped rather than kept for the life of the process.
- :func:`bind_if_current`: how every registration binds the routes it made (HTTP routes to
  their base URL, a live MCP server's tools to its session), at their own fingerprints.
- :meth:`BindingTable.ahead`: the bindings a registration is about to make, readable from
  the moment its routes are published (the registry switches its snapshot before the index
  has embedded the new routes and before the registering call binds them: another thread
  that read the new snapshot meanwhile found a route both versions serve unbound).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from schemarouter.registry.registry import Registry, RegistryBatch
from schemarouter.safety.forksafe import ForkSafeLock

if TYPE_CHECKING:
    from schemarouter.contracts import Route

__all__ = ["Binding", "BindingTable", "CooldownTable", "bind_if_current"]

#: (the route's fingerprint when it was bound, the invoker)
Binding = tuple[str, Any]


class BindingTable(MutableMapping[str, Binding]):
    """route id -> :data:`Binding`, with a registry batch's changes staged (see the module
    docstring). Iterating gives a copy of the keys: the table may change meanwhile."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        # free in a forked child, where a batch lost with its thread is undone under it
        self._lock = ForkSafeLock()
        self._live: dict[str, Binding] = {}
        #: the batch ``_staged`` belongs to, and its changes (``None``: unbound in it)
        self._batch: RegistryBatch | None = None
        self._staged: dict[str, Binding | None] = {}
        #: bindings registrations are about to make (see :meth:`ahead`)
        self._ahead: dict[str, Binding] = {}

    @contextmanager
    def ahead(self, bindings: Mapping[str, Binding]) -> Iterator[None]:
        """While the block runs (a registration of the routes ``bindings`` names, which
        binds them before it ends), :meth:`upcoming` gives each of them to every thread, so
        a route is callable from the moment the registry publishes it at that fingerprint."""
        with self._lock:
            self._ahead.update(bindings)
        try:
            yield
        finally:
            with self._lock:
                for route_id, binding in bindings.items():
                    if self._ahead.get(route_id) is binding:
                        del self._ahead[route_id]

    def upcoming(self, route_id: str, fingerprint: str) -> Binding | None:
        """The binding a registration is about to make for ``route_id`` at ``fingerprint``
        (:meth:`ahead`), or the one a batch being committed is about to make live, where the
        calling thread already reads the route at that fingerprint; else ``None``."""
        with self._lock:
            for binding in (self._ahead.get(route_id), self._staged.get(route_id)):
                if binding is not None and binding[0] == fingerprint:
                    return binding
        return None

    def _overlay(self, *, stage: bool = False) -> dict[str, Binding | None] | None:
        """The staged changes the calling thread sees: its open batch's (made on first
        write with ``stage``), else ``None`` (every other thread sees the live table)."""
        batch = self._registry.open_batch()
        if batch is None:
            return None
        with self._lock:
            if self._batch is not batch:
                if not stage:
                    return None
                self._batch, self._staged = batch, {}
                batch.on_end(self._end)
            return self._staged

    def _end(self, batch: RegistryBatch, committed: bool) -> None:
        """The batch ended: its staged bindings go live (committed) or are dropped."""
        with self._lock:
            if self._batch is not batch:
                return
            if committed:
                for route_id, binding in self._staged.items():
                    if binding is None:
                        self._live.pop(route_id, None)
                    else:
                        self._live[route_id] = binding
            self._batch, self._staged = None, {}

    def copy(self) -> dict[str, Binding]:
        """Every binding the calling thread sees, as a plain dict."""
        overlay = self._overlay()
        with self._lock:
            out = dict(self._live)
            for route_id, binding in (overlay or {}).items():
                if binding is None:
                    out.pop(route_id, None)
                else:
                    out[route_id] = binding
        return out

    def invokers(self) -> list[Any]:
        """Every invoker bound, live or staged in an open batch (whichever thread asks)."""
        with self._lock:
            staged = [b[1] for b in self._staged.values() if b is not None]
            return [b[1] for b in self._live.values()] + staged

    def __getitem__(self, route_id: str) -> Binding:
        overlay = self._overlay()
        if overlay is not None and route_id in overlay:
            binding = overlay[route_id]
            if binding is None:
                raise KeyError(route_id)
            return binding
        return self._live[route_id]

    def __setitem__(self, route_id: str, binding: Binding) -> None:
        overlay = self._overlay(stage=True)
        with self._lock:
            if overlay is None:
                self._live[route_id] = binding
            else:
                overlay[route_id] = binding

    def __delitem__(self, route_id: str) -> None:
        if route_id not in self:
            raise KeyError(route_id)
        overlay = self._overlay(stage=True)
        with self._lock:
            if overlay is None:
                self._live.pop(route_id, None)
            else:
                overlay[route_id] = None

    def discard(self, route_id: str, binding: Binding) -> None:
        """Unbind ``route_id`` if it is still bound to ``binding`` (not to one made since)."""
        if self.get(route_id) is not binding:
            return
        overlay = self._overlay(stage=True)
        with self._lock:
            if overlay is not None:
                overlay[route_id] = None
            elif self._live.get(route_id) is binding:
                del self._live[route_id]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.copy()))

    def __len__(self) -> int:
        return len(self.copy())


def bind_if_current(
    router: Any,
    routes: Iterable[Route],
    invoker_of: Callable[[Route], Any],
    *,
    keep_bound: bool = False,
) -> list[str]:
    """Bind each of ``routes`` (what one registration made) to ``invoker_of(route)`` (none
    where that is ``None``) at *that route's* fingerprint, only while the route is still
    registered with it: a route another writer replaced or removed since is left as that
    writer left it (bound to its own invoker, or gone), never bound to this registration's.
    With ``keep_bound`` a route already bound at that fingerprint keeps its invoker. The
    look and the binding are made under the writers' lock, so no registration comes between
    them. Returns the route ids bound."""
    bound = []
    with router.registry.lock:
        current = router.snapshot().routes
        for route in routes:
            now = current.get(route.route_id)
            if now is None or now.fingerprint != route.fingerprint:
                continue
            # bound already (not only about to be: see BindingTable.ahead)
            held = router._bindings.get(route.route_id)
            if keep_bound and held is not None and held[0] == route.fingerprint:
                continue
            invoker = invoker_of(route)
            if invoker is not None:
                router.bind(route.route_id, invoker)  # at the current fingerprint: route's
                bound.append(route.route_id)
    return bound


class CooldownTable:
    """route id -> (monotonic time its cooldown ends, why it is cooling down). A reason read
    back ends with the time left then ("...; cooling down for 60 s, 12 s left"): a loop that
    reads an exclusion's detail a while after the mark is not told the whole length again."""

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
        """Why ``route_id`` is cooling down and for how long yet (``None``: it is not)."""
        entry = self._until.get(route_id)
        now = time.monotonic()
        return None if entry is None or entry[0] <= now else _with_left(entry, now)

    def unhealthy(self) -> frozenset[str]:
        """The routes cooling down now; those whose cooldown ran out are dropped."""
        return frozenset(self.cooling())

    def cooling(self) -> dict[str, str]:
        """The routes cooling down now and why, read at one instant (a reason asked for
        later may find its cooldown over); those whose cooldown ran out are dropped."""
        now = time.monotonic()
        with self._lock:
            over = [r for r, (until, _) in self._until.items() if until <= now]
            for route_id in over:
                del self._until[route_id]
            return {route_id: _with_left(entry, now) for route_id, entry in self._until.items()}


def _with_left(entry: tuple[float, str], now: float) -> str:
    """A cooldown's reason and the whole seconds it has left at ``now`` (at least 1)."""
    return f"{entry[1]}, {max(1, math.ceil(entry[0] - now))} s left"
