"""The ``SchemaRouter`` facade: registration today; retrieval, planning and execution build
on the same registry.

Every ``add_*`` method compiles its source through :func:`schemarouter.compile.build_registration`
and registers the result atomically: a source that fails anywhere registers nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from schemarouter.adapters.python import callable_registration
from schemarouter.catalog import load_catalog
from schemarouter.contracts import Effect, Provider, Registration, SourceType
from schemarouter.registry import Registry, RegistryChange, RegistrySnapshot

__all__ = ["SchemaRouter"]

logger = logging.getLogger(__name__)


class SchemaRouter:
    """One front door: register capabilities, then retrieve, plan and execute them."""

    def __init__(self, *, registry: Registry | None = None) -> None:
        self.registry = registry if registry is not None else Registry()
        #: route id -> (route fingerprint, invoker) for routes that can be executed here.
        self._bindings: dict[str, tuple[str, Any]] = {}

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_catalog(cls, *paths: str | Path, **kwargs: Any) -> SchemaRouter:
        """A router with every catalog file under ``paths`` registered."""
        router = cls(**kwargs)
        for path in paths:
            router.add_catalog(path)
        return router

    # -- registration ------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        return self.registry.snapshot()

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        """Register a compiled :class:`Registration` (all or nothing)."""
        change = self.registry.register(registration, replace=replace)
        self._drop_stale_bindings()
        logger.info(
            "registered %s: %d routes added, %d replaced, %d removed (registry v%d)",
            registration.source,
            len(change.added),
            len(change.replaced),
            len(change.removed),
            change.version,
        )
        return change

    def add_catalog(self, path: str | Path, *, replace: bool = False) -> RegistryChange:
        """Register a catalog file or folder (see :mod:`schemarouter.catalog`)."""
        return self.register(load_catalog(path), replace=replace)

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
        """Register typed Python callables and bind them for execution."""
        functions = list(fn) if isinstance(fn, Sequence) else [fn]
        registration = callable_registration(
            functions, provider=provider, effect=effect, license=license, source_type=source_type
        )
        change = self.register(registration, replace=replace)
        by_qualname = {f"{f.__module__}.{f.__qualname__}": f for f in functions}
        for route in registration.routes:
            qualname = route.endpoint.operation.qualname
            if qualname in by_qualname:
                self._bindings[route.route_id] = (route.fingerprint, by_qualname[qualname])
        return change

    def remove_provider(self, provider: str) -> RegistryChange:
        change = self.registry.remove(provider=provider)
        self._drop_stale_bindings()
        return change

    # -- bindings ----------------------------------------------------------------------

    def bind(self, route_id: str, invoker: Any) -> None:
        """Bind an invoker to a route's *current* fingerprint."""
        route = self.snapshot().route(route_id)
        self._bindings[route_id] = (route.fingerprint, invoker)

    def is_bound(self, route_id: str) -> bool:
        binding = self._bindings.get(route_id)
        routes = self.snapshot().routes
        return (
            binding is not None
            and route_id in routes
            and routes[route_id].fingerprint == binding[0]
        )

    def _drop_stale_bindings(self) -> None:
        routes = self.snapshot().routes
        for route_id, (fp, _) in list(self._bindings.items()):
            if route_id not in routes or routes[route_id].fingerprint != fp:
                logger.info("unbinding %s: its fingerprint changed or it was removed", route_id)
                del self._bindings[route_id]
