"""Registration, bindings and health: the half of :class:`~schemarouter.SchemaRouter` that
changes what is registered and what may execute.

Every ``add_*`` method compiles its source through
:func:`schemarouter.registry.compile.build_registration` and registers the result atomically: a
source that fails anywhere registers nothing. A binding ties an invoker to a route's *current*
fingerprint; a changed fingerprint unbinds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

import httpx

from schemarouter.adapters.python import compile_callables, keep_call_shape
from schemarouter.checks import (
    check_base_url,
    check_callable,
    check_flag,
    check_instance,
    check_name,
    check_path,
    check_seconds,
    enum_value,
)
from schemarouter.contracts import AccessKind, Effect, Provider, Registration, SourceType
from schemarouter.errors import ArgumentError
from schemarouter.execution.bindings import BindingTable, CooldownTable, bind_if_current
from schemarouter.execution.invokers.http import (
    bound_routes,
    register_http_routes,
    unbound_again,
)
from schemarouter.execution.invokers.mcp_session import close_all, closed_by_owner
from schemarouter.execution.policy import HealthMonitor
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.clashes import provider_id_for, replaced_nothing
from schemarouter.registry.registry import (
    Registry,
    RegistryBatch,
    RegistryChange,
    RegistrySnapshot,
)

if TYPE_CHECKING:
    from schemarouter.adapters.inspect import ContractProposal
    from schemarouter.adapters.live_mcp import McpServerOptions
    from schemarouter.adapters.profiles import ProviderResolution
    from schemarouter.contracts import Route
    from schemarouter.registry.diff import SchemaDiff

__all__ = ["RegistrationMixin"]

logger = logging.getLogger(__name__)

#: What follows the reason of a cooldown in what ``retrieve_executable`` says of it.
_COOLING = "; cooling down for "


class RegistrationMixin:
    """Registration from every source, bindings and health (state shared with the facade)."""

    registry: Registry
    #: route id -> (fingerprint, invoker); a batch's changes are staged with it
    _bindings: BindingTable
    #: route id -> until when it is unhealthy, and why
    _cooldowns: CooldownTable
    health_monitor: HealthMonitor

    # -- registration ------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        return self.registry.snapshot()

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        """Register a compiled :class:`Registration` (all or nothing)."""
        check_instance(registration, Registration, method="register", name="registration")
        check_flag(replace, method="register", name="replace")
        return self._register(registration, replace=replace, prune=True)

    def _register(
        self, registration: Registration, *, replace: bool, prune: bool
    ) -> RegistryChange:
        """:meth:`register`, where ``prune=False`` keeps the routes of the same access paths
        that ``registration`` lacks (see :meth:`Registry.register`)."""
        change = self.registry.register(registration, replace=replace, prune=prune)
        self._settle(change)
        logger.info(
            "registered %s: %d routes added, %d replaced, %d removed (registry v%d)",
            registration.source,
            len(change.added),
            len(change.replaced),
            len(change.removed),
            change.version,
        )
        return change

    def _settle(self, change: RegistryChange) -> None:
        """After a change: the bindings of its replaced and removed routes go, and their
        health starts afresh. Inside a batch the bindings' change is staged with it (see
        :class:`~schemarouter.execution.bindings.BindingTable`) and the health is reset when
        it commits, for the routes the whole batch replaced or removed."""
        gone = (*change.replaced, *change.removed)
        self._drop_stale_bindings(gone)
        batch = self.registry.open_batch()
        if batch is None:
            self._forget_health(gone)
        else:
            batch.on_end(self._batch_ended)

    def _batch_ended(self, batch: RegistryBatch, committed: bool) -> None:
        if committed and batch.change is not None:
            gone = (*batch.change.replaced, *batch.change.removed)
            self._drop_stale_bindings(gone)  # bound meanwhile by other threads, now stale
            self._forget_health(gone)

    @contextmanager
    def batch(self) -> Iterator[RegistryBatch]:
        """Register many sources as one change: each ``add_*`` inside the block is checked
        and registered as usual (and seen at once by this thread), but the index is updated
        once, when the block ends, and other threads see the registry from before the block
        until then, with its bindings and health (a route the block replaces stays bound
        and callable for them). An exception that leaves the block undoes every registration
        in it, and the bindings they made or dropped::

            with router.batch() as done:
                for name, listing in servers.items():
                    router.add_mcp_tools(listing, provider=name)
            print(len(done.change.added), "routes added")
        """
        try:
            with self.registry.batch() as done:
                yield done
        finally:  # sessions only the undone (or replaced) bindings used
            if self.registry.open_batch() is None:
                self._release_sessions()

    def add_many(
        self, registrations: Iterable[Registration], *, replace: bool = False
    ) -> RegistryChange:
        """Register compiled :class:`Registration` objects (from the adapters, e.g.
        ``mcp_tools_registration``) in one :meth:`batch`: all of them, or none."""
        with self.batch() as done:
            for registration in registrations:
                self.register(registration, replace=replace)
        assert done.change is not None
        return done.change

    def add_catalog(
        self, path: str | Path | Sequence[str | Path], *, replace: bool = False
    ) -> RegistryChange:
        """Register a catalog file or folder, or a list of them as one change (see
        :mod:`schemarouter.registry.catalog`): every file is checked first, and one mistake
        in any registers none of them.

        A catalog is the caller's own declaration, so its HTTP routes with an absolute
        ``base_url`` are bound for execution at once (calls still need their credentials).
        """
        if isinstance(path, Sequence) and not isinstance(path, str):
            paths = [check_path(p, method="add_catalog", name="path[]") for p in path]
            if not paths:
                raise ArgumentError(
                    "add_catalog got an empty list of paths",
                    where="add_catalog(path=...)",
                    hint="Pass a catalog file or folder, or a list of them",
                )
            registration = load_catalog(paths)
        else:
            registration = load_catalog(check_path(path, method="add_catalog", name="path"))
        return register_http_routes(self, registration, replace=replace)

    def add_callable(
        self,
        fn: Callable[..., Any] | Sequence[Callable[..., Any]],
        *,
        provider: str | Provider,
        effect: Effect | str | None = None,
        license: str | None = None,
        source_type: SourceType | str = SourceType.UNKNOWN,
        replace: bool = False,
    ) -> RegistryChange:
        """Register typed Python callables and bind them for execution.

        ``replace=True`` replaces the routes of these callables only: the provider's other
        callables, registered by earlier calls, stay registered and bound (every callable of
        a provider shares the access path ``python``, so replacing that whole access path, as
        a document registered again does, would drop them).
        """
        functions = list(fn) if isinstance(fn, Sequence) and not isinstance(fn, str) else [fn]
        for item in functions:
            check_callable(item, method="add_callable", name="fn")
        check_flag(replace, method="add_callable", name="replace")
        registration, runs = compile_callables(
            functions, provider=provider, effect=effect, license=license, source_type=source_type
        )
        with self._binding_ahead(registration.routes, lambda route: runs[route.route_id]):
            change = self._register(registration, replace=replace, prune=False)
            # each route to the very function it was built from (closures of one factory
            # share their module and qualname, so a name would bind them all to the last
            # one), and only while it is the route registered: another writer may have
            # replaced it meanwhile
            bind_if_current(self, registration.routes, lambda route: runs[route.route_id])
        return change

    def add_openapi(
        self,
        document: str | Path | Mapping[str, Any],
        *,
        provider: str | Provider | None = None,
        base_url: str | None = None,
        access_id: str = "rest",
        client: httpx.Client | None = None,
        effect_overrides: Mapping[str, Effect | str] | None = None,
        trusted: bool = False,
        strict: bool = False,
        replace: bool = False,
    ) -> RegistryChange:
        """Register an OpenAPI 2.0 / 3.0 / 3.1 document (path, URL or dict). Without a
        ``provider`` the document names it (its title, else its host: ``GitHub v3 REST API``
        registers as ``github``).

        The document's ``x-schemarouter-effect`` may only make an operation stricter
        unless ``trusted=True`` (as with MCP hints). Common mistakes (string booleans and
        numbers, ``additionalProperties`` as a string, path parameters not marked required
        ...) are repaired and listed in the change's ``warnings``; ``strict=True`` refuses
        the document instead.

        Routes are bound for execution at registration when the access path has an absolute
        base URL (``base_url``, or the document's own server); otherwise they stay unbound
        until :meth:`bind`.
        """
        from schemarouter.adapters.openapi import openapi_registration
        from schemarouter.registry.parsing import load_document

        method = "add_openapi"
        check_base_url(base_url, method=method, optional=True)
        check_name(access_id, method=method, name="access_id")
        check_instance(client, httpx.Client, method=method, name="client", optional=True)
        check_instance(
            effect_overrides, Mapping, method=method, name="effect_overrides", optional=True
        )
        check_flag(trusted, method=method, name="trusted")
        check_flag(strict, method=method, name="strict")

        # read (or fetched) once: a provider id clash compiles it again under another id
        loaded = load_document(document, client=client)

        def compile(named: str | Provider | None) -> Registration:
            return openapi_registration(
                loaded,
                provider=named,
                base_url=base_url,
                access_id=access_id,
                effect_overrides=effect_overrides,
                trusted=trusted,
                strict=strict,
            )

        first = compile(provider)
        registration = first
        if provider is None:
            registration = self._own_provider(first, compile, replace=replace)
        with self.registry.lock:  # the id chosen still free: no other writer got in between
            if provider is None and first.routes:
                name = self._provider_id(first, replace=replace)
                if name != registration.routes[0].provider.id:
                    registration = compile(name)
            bound = bound_routes(self, registration.routes) if replace else []
            change = register_http_routes(self, registration, replace=replace)
            if replace and provider is not None and change.added and not change.replaced:
                snapshot = self.snapshot()
                warning = replaced_nothing(snapshot.providers, snapshot.routes_of, registration)
                if warning is not None:
                    logger.warning("%s", warning)
                    change = dataclasses.replace(change, warnings=(*change.warnings, warning))
        return unbound_again(self, bound, change)

    def _own_provider(
        self,
        registration: Registration,
        compile: Callable[[str], Registration],
        *,
        replace: bool = False,
    ) -> Registration:
        """``registration`` again under ``id_2`` (``_3`` ...) where the provider id its
        document gave it belongs to routes of another document (see
        :func:`~schemarouter.registry.clashes.provider_id_for`).
        The choice is made outside the writers' lock (compiling may fetch the document
        again); :meth:`add_openapi` checks it again under the lock before registering."""
        if not registration.routes:
            return registration
        name = self._provider_id(registration, replace=replace)
        return registration if name == registration.routes[0].provider.id else compile(name)

    def _provider_id(self, registration: Registration, *, replace: bool) -> str:
        """:func:`~schemarouter.registry.clashes.provider_id_for` in the current snapshot."""
        return provider_id_for(self.snapshot().routes_of, registration, replace=replace)

    def add_mcp_tools(
        self,
        tools: Any,
        *,
        provider: str | Provider,
        server: str | None = None,
        trusted: bool = False,
        access_id: str = "mcp",
        default_effect: Effect | str | None = None,
        effect_overrides: Mapping[str, Effect | str] | None = None,
        replace: bool = False,
    ) -> RegistryChange:
        """Register the tools of an MCP ``tools/list`` result. They stay unbound until a
        session is bound to them (:meth:`bind`, ``bind_mcp_session``); :meth:`add_mcp_server`
        registers and binds a live server in one step. Effects: see :meth:`add_mcp_server`."""
        from schemarouter.adapters.mcp import mcp_tools_registration

        check_instance(server, str, method="add_mcp_tools", name="server", optional=True)
        check_flag(trusted, method="add_mcp_tools", name="trusted")
        check_name(access_id, method="add_mcp_tools", name="access_id")
        return self.register(
            mcp_tools_registration(
                tools,
                provider=provider,
                server=server,
                trusted=trusted,
                access_id=access_id,
                default_effect=default_effect,
                effect_overrides=effect_overrides,
            ),
            replace=replace,
        )

    def add_mcp_server(
        self,
        server: Sequence[str] | str,
        *,
        provider: str | Provider,
        **options: Unpack[McpServerOptions],
    ) -> RegistryChange:
        """Connect to an MCP server (a stdio command or a streamable-HTTP URL; needs the
        ``mcp`` extra), register its tools and bind them to a session this router owns: they
        run from :meth:`execute` / :meth:`call` and their async twins at once. The session
        stays open, reconnects when lost (listing the tools again and registering what
        changed), and ends with :meth:`close` (a stdio server's process with it).

        The options, each a keyword: ``trusted``, ``env``, ``cwd``, ``access_id``,
        ``default_effect``, ``effect_overrides``, ``timeout``, ``bind``, ``replace``,
        ``max_response_bytes``, ``relist_s`` and ``skip_invalid_tools``;
        :class:`schemarouter.adapters.live_mcp.McpServerOptions` says what each does and its
        default. An untrusted server's tools are ``write`` (or ``destructive``) whatever they
        claim; a stdio server gets only the MCP SDK's default environment plus ``env``."""
        from schemarouter.adapters.live_mcp import attach_mcp_server, check_server_options

        check_server_options(options, self.add_mcp_server)
        change: RegistryChange = attach_mcp_server(self, server, provider=provider, **options)
        return change

    async def aadd_mcp_server(
        self,
        server: Sequence[str] | str,
        *,
        provider: str | Provider,
        **options: Unpack[McpServerOptions],
    ) -> RegistryChange:
        """:meth:`add_mcp_server` without blocking the event loop (the session it opens
        serves ``aexecute`` and ``acall`` from any loop, and the sync calls too)."""
        from schemarouter.adapters.live_mcp import check_server_options

        check_server_options(options, self.aadd_mcp_server)
        return await asyncio.to_thread(self.add_mcp_server, server, provider=provider, **options)

    def add_optimade(
        self,
        source: str | Mapping[str, Any],
        *,
        provider: str | Provider,
        client: httpx.Client | None = None,
        properties_dir: str | Path | None = None,
        base_url: str | None = None,
        source_type: SourceType | str = SourceType.CALCULATED,
        semantics: Mapping[str, str] | None = None,
        replace: bool = False,
    ) -> RegistryChange:
        """Register an OPTIMADE service from its base URL or recorded ``/info`` payloads (a file),
        bound to ``base_url``, else their URL, else ``/info``'s versioned URL (none: unbound,
        said in the warnings); ``source_type``: its values' provenance; ``semantics``: semantic
        ids for its own properties (``{"_grp_band_gap": "electronic.band_gap"}``)."""
        from schemarouter.adapters.optimade import add_optimade

        check_base_url(base_url, method="add_optimade", optional=True)
        kind = enum_value(source_type, SourceType, method="add_optimade", name="source_type")
        check_instance(semantics, Mapping, method="add_optimade", name="semantics", optional=True)
        change: RegistryChange = add_optimade(
            self,
            source,
            provider=provider,
            client=client,
            properties_dir=Path(properties_dir) if properties_dir else None,
            base_url=base_url,
            source_type=kind,
            semantics=semantics,
            replace=replace,
        )
        return change

    def add_provider(self, name: str, **kwargs: Any) -> ProviderResolution:
        """Register a provider by name through its trusted :class:`ProviderProfile`; the
        result says, per access method, what happened (registered, needs credentials,
        missing optional dependency, disabled, unavailable)."""
        from schemarouter.adapters.profiles import add_provider

        return add_provider(self, name, **kwargs)

    def inspect(self, text_or_html: str) -> ContractProposal:
        """A contract *proposal* from human-readable docs; it registers and runs nothing."""
        from schemarouter.adapters.inspect import inspect

        return inspect(text_or_html)

    def approve(
        self,
        proposal: ContractProposal,
        *,
        base_url: str,
        provider: str | Provider,
        allow_write: bool = False,
        replace: bool = False,
    ) -> RegistryChange:
        """The only way a proposal becomes routes: read-only operations by default, write
        and destructive ones only with ``allow_write=True``."""
        from schemarouter.adapters.inspect import approve

        check_base_url(base_url, method="approve")
        change: RegistryChange = approve(
            self,
            proposal,
            base_url=base_url,
            provider=provider,
            allow_write=allow_write,
            replace=replace,
        )
        return change

    def diff(self, registration: Registration, *, provider: str | None = None) -> SchemaDiff:
        """What registering ``registration`` with ``replace=True`` would change."""
        from schemarouter.registry.diff import schema_diff

        check_instance(registration, Registration, method="diff", name="registration")
        check_instance(provider, str, method="diff", name="provider", optional=True)
        return schema_diff(self.snapshot(), registration, provider=provider)

    def remove_provider(self, provider: str) -> RegistryChange:
        check_name(provider, method="remove_provider", name="provider")
        change = self.registry.remove(provider=provider)
        self._settle(change)
        self._release_sessions()
        return change

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
        """Close owned sessions no route is bound to (replaced or removed servers)."""
        # live bindings and those staged in an open batch (other threads still call the
        # sessions a batch replaces until it commits)
        used = {id(invoker) for invoker in self._bindings.invokers()}
        for session in [s for s in self._owned() if id(s) not in used]:
            self._owned().remove(session)
            session.close()

    def _left_out(self, reason: str, route_id: str) -> str | None:
        """Why the router itself leaves ``route_id`` out of an executable retrieval (the
        ``detail`` of its exclusion), where it knows more than the state says."""
        if reason == "unhealthy":
            return self._cooldowns.reason(route_id)
        if reason == "unbound" and closed_by_owner(self.binding(route_id)):
            return (
                "its MCP session was closed (router.close()); router.add_mcp_server(..., "
                "replace=True) connects its server again"
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
        why = "the host marked it unhealthy (router.mark_unhealthy)"
        if reason is not None:
            why = check_name(reason, method="mark_unhealthy", name="reason")
        self._cooldowns.mark(route_id, cooldown, f"{why}{_COOLING}{cooldown:g} s")

    def _forget_health(self, route_ids: Sequence[str]) -> None:
        """A replaced or removed route starts healthy: its contract (a base URL among it) is
        new, so its old failures say nothing of it (its cooldown and its count of failed
        attempts both go: the count execution keeps, ``health_monitor``)."""
        self._cooldowns.clear(route_ids)
        self.health_monitor.forget(route_ids)

    def mark_healthy(self, route_id: str) -> None:
        """End ``route_id``'s cooldown now: its next call is made."""
        self._cooldowns.clear((route_id,))

    def is_healthy(self, route_id: str) -> bool:
        return self.cooldown_left(route_id) == 0.0

    def cooldown_left(self, route_id: str) -> float:
        """Seconds until ``route_id`` is healthy again (0.0 when it is)."""
        return self._cooldowns.left(check_name(route_id, method="cooldown_left", name="route_id"))

    def cooldown_reason(self, route_id: str) -> str | None:
        """Why ``route_id`` is unhealthy (the failed attempts that made it so, or what
        :meth:`mark_unhealthy` was told); ``None`` when it is healthy."""
        check_name(route_id, method="cooldown_reason", name="route_id")
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
