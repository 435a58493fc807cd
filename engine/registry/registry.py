"""A versioned, atomic, snapshot-readable registry of routes.

Writers build a whole new :class:`RegistrySnapshot` under a lock and swap it in with one
assignment; readers take ``registry.snapshot()`` and keep a consistent view however long
they hold it, while registration goes on in other threads. A registration that fails
anywhere leaves the current snapshot untouched.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar

from schemarouter.contracts import (
    FieldGroup,
    Intent,
    OutputField,
    Provider,
    Registration,
    Route,
    SourceType,
)
from schemarouter.errors import DuplicateRouteError, RegistrationError, RegistryLookupError
from schemarouter.fingerprint import fingerprint

__all__ = ["FieldProvision", "Registry", "RegistryChange", "RegistrySnapshot"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class FieldProvision(NamedTuple):
    """One route's offer of a semantic field."""

    route_id: str
    field: OutputField
    unit: str | None
    canonical_unit: str | None
    qualifiers: Mapping[str, str]
    source_type: SourceType
    license: str | None


@dataclass(frozen=True)
class RegistryChange:
    """What one successful registration changed (route ids)."""

    version: int
    added: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: The registration's warnings (:attr:`Registration.warnings`): repairs and choices.
    warnings: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.replaced or self.removed)


@dataclass(frozen=True)
class RegistrySnapshot:
    """An immutable view of the registry at one version."""

    version: int
    routes: Mapping[str, Route]
    providers: Mapping[str, Provider]
    intents: Mapping[str, Intent]
    field_groups: Mapping[str, FieldGroup]
    _by_provider: Mapping[str, tuple[str, ...]] = field(repr=False)
    _by_semantic: Mapping[str, tuple[FieldProvision, ...]] = field(repr=False)
    #: Lookup tables derived from this snapshot on first use (see :meth:`derived`).
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        version: int,
        routes: Mapping[str, Route],
        providers: Mapping[str, Provider],
        intents: Mapping[str, Intent] | None = None,
        field_groups: Mapping[str, FieldGroup] | None = None,
    ) -> RegistrySnapshot:
        by_provider: dict[str, list[str]] = {}
        by_semantic: dict[str, list[FieldProvision]] = {}
        for route_id in sorted(routes):
            route = routes[route_id]
            by_provider.setdefault(route.provider.id, []).append(route_id)
            for item in route.endpoint.output_fields:
                if item.semantic_id is None:
                    continue
                spec = item.normalization
                by_semantic.setdefault(item.semantic_id, []).append(
                    FieldProvision(
                        route_id=route_id,
                        field=item,
                        unit=item.unit,
                        canonical_unit=spec.canonical_unit if spec else item.unit,
                        qualifiers=MappingProxyType(dict(item.qualifiers)),
                        source_type=route.field_source_type(item),
                        license=route.field_license(item),
                    )
                )
        return cls(
            version=version,
            routes=MappingProxyType(dict(routes)),
            providers=MappingProxyType(dict(providers)),
            intents=MappingProxyType(dict(intents or {})),
            field_groups=MappingProxyType(dict(field_groups or {})),
            _by_provider=MappingProxyType({k: tuple(v) for k, v in by_provider.items()}),
            _by_semantic=MappingProxyType({k: tuple(v) for k, v in by_semantic.items()}),
        )

    # -- lookups -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.routes)

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes[key] for key in sorted(self.routes))

    def __contains__(self, route_id: object) -> bool:
        return route_id in self.routes

    def route(self, route_id: str) -> Route:
        try:
            return self.routes[route_id]
        except KeyError:
            raise RegistryLookupError(
                f"no route {route_id!r} is registered",
                where=f"registry version {self.version}",
                hint="List routes with registry.snapshot().route_ids() or register the source",
            ) from None

    def route_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self.routes))

    def provider(self, provider_id: str) -> Provider:
        try:
            return self.providers[provider_id]
        except KeyError:
            raise RegistryLookupError(
                f"no provider {provider_id!r} is registered",
                where=f"registry version {self.version}",
                hint=f"Known providers: {', '.join(sorted(self.providers)) or 'none'}",
            ) from None

    def routes_of(self, provider_id: str) -> tuple[Route, ...]:
        return tuple(self.routes[r] for r in self._by_provider.get(provider_id, ()))

    def semantic_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_semantic))

    def providers_of(self, semantic_id: str) -> tuple[FieldProvision, ...]:
        """Which routes provide ``semantic_id``, with units, qualifiers and provenance."""
        return self._by_semantic.get(semantic_id, ())

    @property
    def fingerprint(self) -> str:
        """Hash of every route's fingerprint: equal registries, equal fingerprints."""
        return self.derived(
            "fingerprint",
            lambda snap: fingerprint(
                sorted((r.route_id, r.fingerprint) for r in snap.routes.values())
            ),
        )

    def derived(self, key: str, build: Callable[[RegistrySnapshot], T]) -> T:
        """``build(self)``, computed once per snapshot and kept with it (snapshots never
        change, so anything derived from one stays valid as long as it lives)."""
        try:
            value: T = self._derived[key]
        except KeyError:
            value = build(self)
            self._derived[key] = value
        return value


Listener = Callable[[RegistrySnapshot, RegistryChange], None]


class Registry:
    """Thread-safe registry. Every successful change bumps :attr:`version` by one."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._snapshot = RegistrySnapshot.build(0, {}, {})  # version 0: empty
        self._listeners: list[Listener] = []

    # -- reading -----------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        return self._snapshot

    @property
    def version(self) -> int:
        return self._snapshot.version

    def __len__(self) -> int:
        return len(self._snapshot)

    @property
    def lock(self) -> threading.RLock:
        """The writers' lock: hold it to read a snapshot and act on it before any change."""
        return self._lock

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(snapshot, change)`` after each change (under the lock); a listener
        that raises undoes the change (see :meth:`_commit`)."""
        self._listeners.append(listener)

    # -- writing -----------------------------------------------------------------------

    def register(self, registration: Registration, *, replace: bool = False) -> RegistryChange:
        """Add every route of ``registration``, or nothing.

        With ``replace=False`` a route id that is already registered is an error. With
        ``replace=True`` routes of the same providers and access paths that the new
        registration no longer has are removed, and changed ones are replaced.
        """
        with self._lock:
            current = self._snapshot
            routes = dict(current.routes)
            providers = dict(current.providers)
            new_ids: dict[str, Route] = {}
            for route in registration.routes:
                if route.route_id in new_ids:
                    raise DuplicateRouteError(
                        f"route {route.route_id!r} is declared twice",
                        where=registration.source,
                        hint="Give each endpoint a distinct id inside its access path",
                    )
                new_ids[route.route_id] = route
            added: list[str] = []
            replaced: list[str] = []
            removed: list[str] = []
            if replace:
                scopes = {(r.provider.id, r.access.id) for r in registration.routes}
                for route_id, existing in current.routes.items():
                    key = (existing.provider.id, existing.access.id)
                    if key in scopes and route_id not in new_ids:
                        removed.append(route_id)
                        del routes[route_id]
            for route_id, route in new_ids.items():
                old = current.routes.get(route_id)
                if old is not None and not replace:
                    raise DuplicateRouteError(
                        f"route {route_id!r} is already registered (from {old.source or '?'})",
                        where=registration.source,
                        hint="Pass replace=True to replace it, or remove the provider first",
                    )
                if old is None:
                    added.append(route_id)
                elif old.fingerprint != route.fingerprint:
                    replaced.append(route_id)
                routes[route_id] = route
            for provider in registration.providers:
                previous = providers.get(provider.id)
                if (
                    previous is not None
                    and previous != provider
                    and not replace
                    and current.routes_of(provider.id)
                ):
                    raise RegistrationError(
                        f"provider {provider.id!r} is already registered with other metadata",
                        where=registration.source,
                        hint="Pass replace=True to update the provider, or use another id",
                    )
                providers[provider.id] = provider
            for route in new_ids.values():
                if route.provider.id not in providers:
                    providers[route.provider.id] = route.provider
            intents = dict(current.intents)
            intents.update((i.id, i) for i in registration.intents)
            groups = dict(current.field_groups)
            groups.update((g.id, g) for g in registration.field_groups)
            change = RegistryChange(
                version=current.version + 1,
                added=tuple(sorted(added)),
                replaced=tuple(sorted(replaced)),
                removed=tuple(sorted(removed)),
                warnings=registration.warnings,
            )
            snapshot = RegistrySnapshot.build(change.version, routes, providers, intents, groups)
            self._commit(snapshot, change, source=registration.source)
            return change

    def remove(
        self, *, provider: str | None = None, route_ids: Iterable[str] = ()
    ) -> RegistryChange:
        """Remove a whole provider, or the given routes. Unknown ids are an error."""
        with self._lock:
            current = self._snapshot
            doomed = set(route_ids)
            for route_id in doomed:
                current.route(route_id)  # raises for unknown ids
            if provider is not None:
                current.provider(provider)
                doomed.update(r.route_id for r in current.routes_of(provider))
            routes = {k: v for k, v in current.routes.items() if k not in doomed}
            providers = dict(current.providers)
            if provider is not None:
                del providers[provider]
            change = RegistryChange(version=current.version + 1, removed=tuple(sorted(doomed)))
            snapshot = RegistrySnapshot.build(
                change.version, routes, providers, current.intents, current.field_groups
            )
            self._commit(snapshot, change, source=f"remove {provider or sorted(doomed)}")
            return change

    def _commit(self, snapshot: RegistrySnapshot, change: RegistryChange, *, source: str) -> None:
        """Swap ``snapshot`` in and tell the listeners (the router's index among them). A
        listener that fails undoes the change: the previous snapshot comes back, the
        listeners already told are told again with it, and a :class:`RegistrationError`
        says what failed (the change and its index update happen together, or neither)."""
        previous = self._snapshot
        self._snapshot = snapshot
        told: list[Listener] = []
        for listener in list(self._listeners):
            try:
                listener(snapshot, change)
            except Exception as exc:
                self._snapshot = previous
                undo = RegistryChange(version=previous.version)
                for other in told:
                    try:
                        other(previous, undo)
                    except Exception:  # pragma: no cover - a listener failing twice
                        logger.exception("a registry listener failed to undo a change")
                raise RegistrationError(
                    f"updating the index failed ({type(exc).__name__}: {str(exc)[:200]}); "
                    "nothing was changed",
                    where=source,
                    hint="Fix the cause (the encoder, the index) and register again",
                ) from exc
            told.append(listener)
        logger.debug(
            "registry v%d: +%d ~%d -%d routes",
            snapshot.version,
            len(change.added),
            len(change.replaced),
            len(change.removed),
        )
