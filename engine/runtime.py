"""Bindings, the sessions a router owns and route health: the state of
:class:`~schemarouter.SchemaRouter` that says what may execute now. A binding ties an
invoker to a route's *current* fingerprint; a changed fingerprint unbinds."""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from schemarouter.adapters.python import keep_call_shape
from schemarouter.checks import check_name, check_seconds
from schemarouter.contracts import AccessKind
from schemarouter.errors import RegistryLookupError
from schemarouter.execution.bindings import BindingTable, CooldownTable
from schemarouter.execution.invokers.mcp_session import close_all, closed_by_owner
from schemarouter.execution.policy import HealthMonitor
from schemarouter.registry.registry import Registry, RegistrySnapshot

if TYPE_CHECKING:
    from schemarouter.contracts import Route

__all__ = ["RuntimeMixin"]

logger = logging.getLogger(__name__)

#: What follows the reason of a cooldown in what ``retrieve_executable`` says of it.
_COOLING = "; cooling down for "


class RuntimeMixin:
    """Bindings, owned sessions and health (state shared with the facade)."""

    registry: Registry
    #: route id -> (fingerprint, invoker); a batch's changes are staged with it
    _bindings: BindingTable
    #: route id -> until when it is unhealthy, and why
    _cooldowns: CooldownTable
    health_monitor: HealthMonitor

    def snapshot(self) -> RegistrySnapshot:
        return self.registry.snapshot()

    # -- bindings ----------------------------------------------------------------------

    def bind(self, route_id: str, invoker: Any) -> None:
        """Bind an invoker to a route's *current* fingerprint."""
        route = self.snapshot().route(check_name(route_id, method="bind", name="route_id"))
        if route.access.kind is AccessKind.PYTHON and callable(invoker):
            keep_call_shape(invoker)  # its arguments become its annotated types, as add_callable's
        self._bindings[route_id] = (route.fingerprint, invoker)

    def unbind(self, route_id: str) -> None:
        """Forget the invoker of ``route_id`` (it stays registered, but cannot execute)."""
        self._bindings.pop(route_id, None)

    def binding(self, route_id: str) -> Any | None:
        """The invoker bound to ``route_id`` at its current fingerprint, else ``None``."""
        binding = self._bindings.get(route_id)
        route = self.snapshot().routes.get(route_id)
        if route is None:
            return None
        if binding is None or route.fingerprint != binding[0]:
            # published by a registration (or a batch) that has not bound it yet
            binding = self._bindings.upcoming(route_id, route.fingerprint)
            if binding is None:
                return None
        return binding[1]

    def bindings(self) -> dict[str, tuple[str, Any]]:
        """route id -> (fingerprint, invoker) for every binding (stale ones included)."""
        return self._bindings.copy()

    def is_bound(self, route_id: str) -> bool:
        """Whether ``route_id`` is bound at its current fingerprint to an invoker that can
        take a call now: not to a session :meth:`close` closed (:meth:`binding` still gives
        that one). What ``retrieve_executable`` and the gateway read."""
        invoker = self.binding(route_id)
        return invoker is not None and not closed_by_owner(invoker)

    # -- sessions the router owns (add_mcp_server) ---------------------------------------

    def _owned(self) -> list[Any]:
        owned: list[Any] = self.__dict__.setdefault("_owned_sessions", [])
        return owned

    def own_session(self, session: Any) -> None:
        """Make the router responsible for closing ``session`` (it closes with
        :meth:`close`, or once no route is bound to it any more)."""
        if all(s is not session for s in self._owned()):
            self._owned().append(session)
        self._release_sessions()

    @contextmanager
    def opening_session(self, session: Any) -> Iterator[None]:
        """While :meth:`add_mcp_server` opens ``session`` and registers its tools (from
        another thread, maybe): :meth:`close` closes it too, cancelling a connection still
        opening (its stdio server stopped), so closing never waits for a slow server."""
        opening: list[Any] = self.__dict__.setdefault("_opening_sessions", [])
        opening.append(session)
        try:
            yield
        finally:
            opening.remove(session)

    def _release_sessions(self) -> None:
        """Close owned sessions no route is bound to (replaced or removed servers), each once
        the calls in flight on it have ended (``ManagedMCPSession.retire``)."""
        # live bindings and those staged in an open batch (other threads still call the
        # sessions a batch replaces until it commits)
        used = {id(invoker) for invoker in self._bindings.invokers()}
        for session in [s for s in self._owned() if id(s) not in used]:
            self._owned().remove(session)
            getattr(session, "retire", session.close)()

    def _left_out(self, reason: str, route_id: str) -> str | None:
        """Why the router itself leaves ``route_id`` out of an executable retrieval (the
        ``detail`` of its exclusion), where it knows more than the state says."""
        if reason == "unhealthy":
            return self._cooldowns.reason(route_id)
        if reason == "unbound" and route_id not in self.registry.snapshot().routes:
            # ranked from the snapshot the retrieval began with; another thread removed it
            # since (trial Q: "no invoker is bound" sent the host to bind a route now gone)
            return "removed from the registry while this retrieval ran"
        if reason == "unbound" and closed_by_owner(self.binding(route_id)):
            return (
                "its MCP session was closed (router.close()); router.add_mcp_server(..., "
                "replace=True) connects its server again"
            )
        route = self.registry.snapshot().routes.get(route_id)
        if reason == "unbound" and route is not None and route.access.kind is AccessKind.PYTHON:
            # a restored index's functions (trial X3: the hint named base URLs and servers)
            return (
                "a Python function, which no index or catalog saves: router.add_callable(fn, "
                f"provider={route.provider.id!r}, replace=True) binds it in this process"
            )
        return None

    def close(self) -> None:
        """Close every session this router opened (:meth:`add_mcp_server`). Their routes
        stay registered and bound to them, but none is executable: :meth:`is_bound` is
        false, :meth:`retrieve_executable` (and the gateway) leave them out, saying why, and
        a call on one is refused before anything is sent (a ``PolicyError``, not a failure
        that counts against the route's health) until it is bound to an open session again:
        ``add_mcp_server(..., replace=True)``. A server still connecting (another thread's
        :meth:`add_mcp_server`) is cancelled: that call raises a ``RegistrationError``."""
        close_all([*self.__dict__.get("_opening_sessions", ()), *self._owned()])
        self._owned().clear()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- health ------------------------------------------------------------------------

    def mark_unhealthy(
        self, route_id: str, *, cooldown: float = 60.0, reason: str | None = None
    ) -> None:
        """Treat ``route_id`` as unhealthy for ``cooldown`` seconds. ``reason`` is why, as
        ``retrieve_executable`` tells it of the route it leaves out (default: the host
        marked it; execution gives the failed attempts that made it unhealthy)."""
        check_name(route_id, method="mark_unhealthy", name="route_id")
        cooldown = check_seconds(cooldown, method="mark_unhealthy", name="cooldown")
        self._check_markable(route_id)
        why = "the host marked it unhealthy (router.mark_unhealthy)"
        if reason is not None:
            why = check_name(reason, method="mark_unhealthy", name="reason")
        self._cooldowns.mark(route_id, cooldown, f"{why}{_COOLING}{cooldown:g} s")

    def _check_markable(
        self, route_id: str, method: str = "mark_unhealthy", outcome: str = "nothing was marked"
    ) -> None:
        """Refuse a route id that its provider, registered now, has never had (a typo): the
        mark would take nothing out and the route meant would go on being offered (trial T6).
        A route removed since (execution marks one whose call was in flight) and a route of a
        provider not registered (yet) are marked as before."""
        snapshot = self.registry.snapshot()
        provider = route_id.split("/", 1)[0]
        if (
            route_id in snapshot.routes
            or provider not in snapshot.providers
            or snapshot.removed_at(route_id) is not None
        ):
            return
        siblings = [r for r in snapshot.routes if r.startswith(provider + "/")]
        close = difflib.get_close_matches(route_id, siblings, n=3, cutoff=0.6)
        raise RegistryLookupError(
            f"route {route_id!r} is not registered: provider {provider!r} has no such route, "
            f"so {outcome}",
            where=f"{method}(route_id=...)",
            hint=(f"Did you mean {', '.join(repr(c) for c in close)}? " if close else "")
            + "Mark a route id the router gives (result.route_ids, router.snapshot().routes)",
        )

    def _forget_health(self, route_ids: Sequence[str]) -> None:
        """A replaced or removed route starts healthy: its contract (a base URL among it) is
        new, so its old failures say nothing of it (its cooldown and its count of failed
        attempts both go: the count execution keeps, ``health_monitor``)."""
        self._cooldowns.clear(route_ids)
        self.health_monitor.forget(route_ids)

    def mark_healthy(self, route_id: str) -> None:
        """End ``route_id``'s cooldown now: its next call is made. A misspelt id of a
        registered provider is refused, naming the route meant (it ended nothing, silently)."""
        check_name(route_id, method="mark_healthy", name="route_id")
        self._check_markable(route_id, "mark_healthy", "no cooldown was ended")
        self._cooldowns.clear((route_id,))

    def is_healthy(self, route_id: str) -> bool:
        """Whether ``route_id`` is out of cooldown. A misspelt id of a registered provider is
        refused, naming the route meant (it read healthy, as no route is cooling under it)."""
        return self._cooldown_left(route_id, "is_healthy") == 0.0

    def cooldown_left(self, route_id: str) -> float:
        """Seconds until ``route_id`` is healthy again (0.0 when it is); a misspelt id of a
        registered provider is refused, as :meth:`is_healthy` refuses it."""
        return self._cooldown_left(route_id, "cooldown_left")

    def _cooldown_left(self, route_id: str, method: str) -> float:
        check_name(route_id, method=method, name="route_id")
        self._check_markable(route_id, method, "it has no health to tell of")
        return self._cooldowns.left(route_id)

    def cooldown_reason(self, route_id: str) -> str | None:
        """Why ``route_id`` is unhealthy (the failed attempts that made it so, or what
        :meth:`mark_unhealthy` was told); ``None`` when it is healthy."""
        check_name(route_id, method="cooldown_reason", name="route_id")
        self._check_markable(route_id, "cooldown_reason", "it has no cooldown to tell of")
        told = self._cooldowns.reason(route_id)
        return None if told is None else told.rsplit(_COOLING, 1)[0]

    def _binding_ahead(
        self, routes: Iterable[Route], invoker_of: Callable[[Route], Any]
    ) -> AbstractContextManager[None]:
        """Around a registration of ``routes`` that binds them before it ends: their
        bindings (``invoker_of(route)``, none where that is ``None``) are read from the moment
        the registry publishes them (:meth:`BindingTable.ahead`), not only once the index has
        embedded them and the registration has bound them."""
        ahead = {}
        for route in routes:
            invoker = invoker_of(route)
            if invoker is not None:
                ahead[route.route_id] = (route.fingerprint, invoker)
        return self._bindings.ahead(ahead)

    def _drop_stale_bindings(self, route_ids: Iterable[str]) -> None:
        """Forget the bindings of ``route_ids`` (a change's replaced and removed routes: a
        registration costs what it changes) whose route is gone or changed."""
        routes = self.snapshot().routes
        for route_id in route_ids:
            binding = self._bindings.get(route_id)
            if binding is None:
                continue
            fp = binding[0]
            if route_id not in routes or routes[route_id].fingerprint != fp:
                logger.info("unbinding %s: its fingerprint changed or it was removed", route_id)
                self._bindings.discard(route_id, binding)
