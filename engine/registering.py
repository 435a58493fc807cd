"""Registration: the half of :class:`~schemarouter.SchemaRouter` that changes what is
registered and what may execute (bindings, sessions and health: :mod:`schemarouter.runtime`).

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
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

import httpx

from schemarouter.adapters.python import compile_callables
from schemarouter.checks import (
    check_base_url,
    check_callable,
    check_flag,
    check_instance,
    check_name,
    check_path,
    check_positive_int,
    enum_value,
)
from schemarouter.contracts import Effect, Provider, Registration, SourceType
from schemarouter.errors import ArgumentError
from schemarouter.execution.bindings import bind_if_current
from schemarouter.execution.invokers.http import (
    bound_routes,
    register_http_routes,
    unbound_again,
)
from schemarouter.execution.invokers.mcp_listing import DEFAULT_MAX_TOOLS
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.clashes import provider_id_for, renamed_provider, replaced_nothing
from schemarouter.registry.progress import shown
from schemarouter.registry.registry import (
    RegistryBatch,
    RegistryChange,
)
from schemarouter.retrieval.effect_notes import delete_by_name_note
from schemarouter.retrieval.state import read_by_name_note

if TYPE_CHECKING:
    from schemarouter.adapters.inspect import ContractProposal
    from schemarouter.adapters.live_mcp import McpServerOptions
    from schemarouter.adapters.profiles import ProviderResolution
    from schemarouter.registry.diff import SchemaDiff

from schemarouter.runtime import RuntimeMixin

__all__ = ["RegistrationMixin"]

logger = logging.getLogger(__name__)


class RegistrationMixin(RuntimeMixin):
    """Registration from every source (state shared with the facade; bindings, sessions and
    health: :class:`~schemarouter.runtime.RuntimeMixin`)."""

    # -- registration ------------------------------------------------------------------

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

    @shown
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

    @shown
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
        server_variables: Mapping[str, str] | None = None,
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
        base URL (``base_url``, or the document's own server, its URL variables from
        ``server_variables={"region": "eu"}`` or their defaults); otherwise they stay unbound
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
        check_instance(
            server_variables, Mapping, method=method, name="server_variables", optional=True
        )
        variables = {str(k): str(v) for k, v in (server_variables or {}).items()}

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
                server_variables=variables,
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
            if provider is None and first.routes:
                renamed = renamed_provider(
                    self.snapshot().routes_of, first.routes[0].provider.id, registration
                )
                if renamed is not None:
                    change = dataclasses.replace(change, warnings=(*change.warnings, renamed))
            if replace and provider is not None and change.added and not change.replaced:
                snapshot = self.snapshot()
                warning = replaced_nothing(snapshot.providers, snapshot.routes_of, registration)
                if warning is not None:
                    logger.warning("%s", warning)
                    change = dataclasses.replace(change, warnings=(*change.warnings, warning))
            for note in (
                read_by_name_note(registration.routes, effect_overrides),
                delete_by_name_note(registration.routes, effect_overrides),
            ):
                if note is not None:
                    change = dataclasses.replace(change, warnings=(*change.warnings, note))
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

    @shown
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
        max_tools: int = DEFAULT_MAX_TOOLS,
    ) -> RegistryChange:
        """Register the tools of an MCP ``tools/list`` result. They stay unbound until a
        session is bound to them (:meth:`bind`, ``bind_mcp_session``); :meth:`add_mcp_server`
        registers and binds a live server in one step. Effects and ``max_tools``: see
        :meth:`add_mcp_server`."""
        from schemarouter.adapters.mcp import mcp_tools_registration

        check_instance(server, str, method="add_mcp_tools", name="server", optional=True)
        check_flag(trusted, method="add_mcp_tools", name="trusted")
        check_name(access_id, method="add_mcp_tools", name="access_id")
        check_positive_int(max_tools, method="add_mcp_tools", name="max_tools")
        return self.register(
            mcp_tools_registration(
                tools,
                provider=provider,
                server=server,
                trusted=trusted,
                access_id=access_id,
                default_effect=default_effect,
                effect_overrides=effect_overrides,
                max_tools=max_tools,
            ),
            replace=replace,
        )

    @shown
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
        serves ``aexecute`` and ``acall`` from any loop, and the sync calls too). Cancelled
        (``asyncio.wait_for`` ran out) while the server was still opening or listing its
        tools, it stops the server and registers nothing; a cancel that comes while the
        tools are being registered lets that registration finish."""
        from schemarouter.adapters.live_mcp import ADDING, Adding, check_server_options

        check_server_options(options, self.aadd_mcp_server)
        adding = Adding()
        token = ADDING.set(adding)  # to_thread runs it in a copy of this context
        try:
            return await asyncio.to_thread(
                self.add_mcp_server, server, provider=provider, **options
            )
        except asyncio.CancelledError:
            adding.cancel()
            raise
        finally:
            ADDING.reset(token)

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

    def remove_routes(self, route_ids: str | Iterable[str]) -> RegistryChange:
        """Remove these routes (one id or several) and only these, as one change: their
        bindings and health go, the index drops them, the provider's other routes stay. An
        id not registered refuses the whole call, naming it; nothing is removed then. (A
        renamed function registered again with ``add_callable(replace=True)`` leaves its old
        route registered: this takes it out; trial T1.)"""
        given = [route_ids] if isinstance(route_ids, str) else route_ids
        ids = list(given) if isinstance(given, Iterable) else []
        if not ids or not all(isinstance(r, str) and r for r in ids):
            raise ArgumentError(
                f"route_ids must be a route id or an iterable of them, got {route_ids!r:.80}",
                where="remove_routes(route_ids=...)",
                hint="Pass ids the router gives, such as 'lab/python/tare'",
            )
        change = self.registry.remove(route_ids=ids)
        self._settle(change)
        self._release_sessions()
        return change
