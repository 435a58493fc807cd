"""A versioned, atomic, snapshot-readable registry of routes.

Writers build a whole new :class:`RegistrySnapshot` under a lock and swap it in with one
assignment; readers take ``registry.snapshot()`` and keep a consistent view however long
they hold it, while registration goes on in other threads. A registration that fails
anywhere leaves the current snapshot untouched.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from schemarouter.contracts import (
    FieldGroup,
    Intent,
    Provider,
    Registration,
    Route,
)
from schemarouter.errors import DuplicateRouteError, RegistrationError, RegistryLookupError
from schemarouter.fingerprint import fingerprint
from schemarouter.registry.clashes import (
    canonical_clashes,
    declared_twice,
    duplicate_hint,
    sources_of,
    two_functions,
)
from schemarouter.registry.provisions import FieldProvision, provisions
from schemarouter.registry.shared import SharedMap, evolve_table
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = ["FieldProvision", "Registry", "RegistryBatch", "RegistryChange", "RegistrySnapshot"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


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
    """An immutable view of the registry at one version.

    Its tables are :class:`~schemarouter.registry.shared.SharedMap` objects: a snapshot made
    from the one before by :meth:`derive` shares every table entry the registration did not
    touch, so one registration costs what it adds, not what is registered already.
    """

    version: int
    routes: Mapping[str, Route]
    providers: Mapping[str, Provider]
    intents: Mapping[str, Intent]
    field_groups: Mapping[str, FieldGroup]
    #: provider id -> its route ids, sorted (providers with routes only)
    _by_provider: SharedMap[str, tuple[str, ...]] = field(repr=False)
    #: semantic id -> the routes' offers of it, by route id (a route's fields in order)
    _by_semantic: SharedMap[str, tuple[FieldProvision, ...]] = field(repr=False)
    #: route id -> the version that removed it, for routes no longer registered
    _gone: SharedMap[str, int] = field(default_factory=SharedMap, repr=False, compare=False)
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
        """A snapshot of exactly these tables (routes in the order given)."""
        return _EMPTY_SNAPSHOT.derive(
            version,
            routes=routes,
            providers=providers,
            intents=intents or {},
            field_groups=field_groups or {},
        )

    def derive(
        self,
        version: int,
        *,
        routes: Mapping[str, Route] = MappingProxyType({}),
        removed: Iterable[str] = (),
        providers: Mapping[str, Provider] = MappingProxyType({}),
        removed_providers: Iterable[str] = (),
        intents: Mapping[str, Intent] = MappingProxyType({}),
        field_groups: Mapping[str, FieldGroup] = MappingProxyType({}),
    ) -> RegistrySnapshot:
        """This snapshot with ``removed`` routes and ``removed_providers`` dropped, then
        ``routes``, ``providers``, ``intents`` and ``field_groups`` set (replacing entries
        of the same id). Costs O(entries changed), and equals :meth:`build` of the result's
        tables. Unknown ids in ``removed`` or ``removed_providers`` are a ``KeyError``."""
        removed = tuple(removed)
        # routes whose table entries change: removed, replaced (their old offers go), added
        old = [self.routes[r] for r in removed]
        old += [self.routes[r] for r in routes if r in self.routes]
        by_provider_change: dict[str, tuple[set[str], list[str]]] = {}
        for route in old:
            by_provider_change.setdefault(route.provider.id, (set(), []))[0].add(route.route_id)
        for route_id, route in routes.items():
            by_provider_change.setdefault(route.provider.id, (set(), []))[1].append(route_id)
        by_provider_put: dict[str, tuple[str, ...]] = {}
        by_provider_gone: list[str] = []
        for pid, (drop, add) in by_provider_change.items():
            ids = [r for r in self._by_provider.get(pid, ()) if r not in drop]
            merged = tuple(sorted({*ids, *add}))
            if merged:
                by_provider_put[pid] = merged
            elif pid in self._by_provider:
                by_provider_gone.append(pid)
        by_semantic_change: dict[str, tuple[set[str], list[FieldProvision]]] = {}
        for route in old:
            for item in route.endpoint.output_fields:
                if item.semantic_id is not None:
                    by_semantic_change.setdefault(item.semantic_id, (set(), []))[0].add(
                        route.route_id
                    )
        for route in routes.values():
            for offer in provisions(route):
                by_semantic_change.setdefault(offer.field.semantic_id or "", (set(), []))[1].append(
                    offer
                )
        by_semantic_put: dict[str, tuple[FieldProvision, ...]] = {}
        by_semantic_gone: list[str] = []
        for sid, (gone_ids, new_offers) in by_semantic_change.items():
            kept = [p for p in self._by_semantic.get(sid, ()) if p.route_id not in gone_ids]
            # stable: the offers of one route keep their field order
            offers = tuple(sorted(kept + new_offers, key=lambda p: p.route_id))
            if offers:
                by_semantic_put[sid] = offers
            elif sid in self._by_semantic:
                by_semantic_gone.append(sid)
        return RegistrySnapshot(
            version=version,
            routes=evolve_table(self.routes, routes, removed),
            providers=evolve_table(self.providers, providers, removed_providers),
            intents=evolve_table(self.intents, intents, ()),
            field_groups=evolve_table(self.field_groups, field_groups, ()),
            _by_provider=evolve_table(self._by_provider, by_provider_put, by_provider_gone),
            _by_semantic=evolve_table(self._by_semantic, by_semantic_put, by_semantic_gone),
            _gone=evolve_table(
                self._gone, dict.fromkeys(removed, version), [r for r in routes if r in self._gone]
            ),
        )

    # -- lookups -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.routes)

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes[key] for key in sorted(self.routes))

    def __contains__(self, route_id: object) -> bool:
        return route_id in self.routes

    def _not_registered(self, kind: str, key: str, hint: str) -> RegistryLookupError:
        return RegistryLookupError(
            f"no {kind} {key!r} is registered", where=f"registry version {self.version}", hint=hint
        )

    def route(self, route_id: str) -> Route:
        try:
            return self.routes[route_id]
        except KeyError:
            hint = "List routes with registry.snapshot().route_ids() or register the source"
            gone = self.removed_at(route_id)
            if gone is not None:
                hint = f"It was removed at registry version {gone}. {hint}"
            raise self._not_registered("route", route_id, hint) from None

    def removed_at(self, route_id: str) -> int | None:
        """The registry version that removed ``route_id`` (a replace without it, or a
        removal), where it was registered before and is not now; else ``None``."""
        return self._gone.get(route_id)

    def removed_routes(self) -> Mapping[str, int]:
        """Every route removed and not registered again: route id -> the version that
        removed it (:meth:`removed_at` for all of them)."""
        return self._gone

    def route_ids(self) -> tuple[str, ...]:
        return tuple(sorted(self.routes))

    def provider(self, provider_id: str) -> Provider:
        try:
            return self.providers[provider_id]
        except KeyError:
            hint = f"Known providers: {', '.join(sorted(self.providers)) or 'none'}"
            raise self._not_registered("provider", provider_id, hint) from None

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


_EMPTY_SNAPSHOT = RegistrySnapshot(
    version=0,
    routes=SharedMap(),
    providers=SharedMap(),
    intents=SharedMap(),
    field_groups=SharedMap(),
    _by_provider=SharedMap(),
    _by_semantic=SharedMap(),
)

Listener = Callable[[RegistrySnapshot, RegistryChange], None]


class RegistryBatch:
    """What a :meth:`Registry.batch` block registered: ``change`` is set when it ends
    (``None`` while it runs, or when it was undone)."""

    def __init__(self, start: RegistrySnapshot) -> None:
        self.start = start
        self.change: RegistryChange | None = None
        self.registrations = 0
        #: route id -> its fingerprint before the batch (None: not registered then)
        self._before: dict[str, str | None] = {}
        #: every registration's warnings, in order, each after its source
        self._warnings: dict[str, None] = {}
        #: called when the block ends (see :meth:`on_end`)
        self._hooks: list[Callable[[RegistryBatch, bool], None]] = []

    def on_end(self, hook: Callable[[RegistryBatch, bool], None]) -> None:
        """Call ``hook(batch, committed)`` when the block ends, under the writers' lock:
        ``committed`` is ``True`` once other threads see what it registered, ``False`` when
        it was undone. What a writer staged with the batch (the router's bindings) goes live
        or goes with it there. A hook given twice is called once."""
        if hook not in self._hooks:
            self._hooks.append(hook)

    def _ended(self, committed: bool) -> None:
        for hook in self._hooks:
            try:
                hook(self, committed)
            except Exception:  # pragma: no cover - a hook must not hide the batch's outcome
                logger.exception("a registry batch hook failed")

    def note(self, before: RegistrySnapshot, change: RegistryChange, *, source: str = "") -> None:
        self.registrations += 1
        prefix = f"{source}: " if source else ""
        self._warnings.update(dict.fromkeys(prefix + warning for warning in change.warnings))
        for route_id in (*change.added, *change.replaced, *change.removed):
            if route_id not in self._before:
                old = before.routes.get(route_id)
                self._before[route_id] = None if old is None else old.fingerprint

    def merged(self, end: RegistrySnapshot) -> RegistryChange:
        """The batch's changes as one (a route added then removed inside it is no change)."""
        added, replaced, removed = [], [], []
        for route_id, fp in self._before.items():
            now = end.routes.get(route_id)
            if fp is None and now is not None:
                added.append(route_id)
            elif fp is not None and now is None:
                removed.append(route_id)
            elif fp is not None and now is not None and now.fingerprint != fp:
                replaced.append(route_id)
        return RegistryChange(
            version=end.version,
            added=tuple(sorted(added)),
            replaced=tuple(sorted(replaced)),
            removed=tuple(sorted(removed)),
            warnings=tuple(self._warnings),
        )


class Registry:
    """Thread-safe registry. Every successful change bumps :attr:`version` by one."""

    def __init__(self) -> None:
        # a child forked while another thread registers gets it free (that thread is not
        # in the child): a plain RLock came over held, and the child's first registration
        # waited forever; the snapshot it reads is whole (published in one assignment)
        self._lock = ForkSafeLock(reentrant=True)
        self._snapshot = _EMPTY_SNAPSHOT  # version 0: empty
        self._listeners: list[Listener] = []
        #: the open batch (see :meth:`batch`), its thread and its newest snapshot
        self._batch: RegistryBatch | None = None
        self._batch_thread: int | None = None
        self._staged: RegistrySnapshot | None = None
        _registries.add(self)

    # -- reading -----------------------------------------------------------------------

    def snapshot(self) -> RegistrySnapshot:
        """The newest snapshot: inside a :meth:`batch`, its own thread sees what the batch
        registered so far; every other thread sees the snapshot before the batch."""
        staged = self._staged
        if staged is not None and self._batch_thread == threading.get_ident():
            return staged
        return self._snapshot

    def open_batch(self) -> RegistryBatch | None:
        """The :meth:`batch` open in the calling thread (``None`` outside one, and in every
        other thread while one is open)."""
        batch = self._batch
        if batch is not None and self._batch_thread == threading.get_ident():
            return batch
        return None

    @property
    def version(self) -> int:
        return self.snapshot().version

    def __len__(self) -> int:
        return len(self.snapshot())

    @property
    def lock(self) -> ForkSafeLock:
        """The writers' lock: hold it to read a snapshot and act on it before any change."""
        return self._lock

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(snapshot, change)`` after each change (under the lock); a listener
        that raises undoes the change (see :meth:`_commit`)."""
        self._listeners.append(listener)

    # -- writing -----------------------------------------------------------------------

    def register(
        self, registration: Registration, *, replace: bool = False, prune: bool = True
    ) -> RegistryChange:
        """Add every route of ``registration``, or nothing.

        With ``replace=False`` a route id that is already registered is an error. With
        ``replace=True`` changed routes are replaced and, where ``prune`` (a whole document
        registered again), routes of the same providers and access paths that the new
        registration no longer has are removed; ``prune=False`` leaves them (one callable of
        a provider's many registered again). Costs O(routes of the registration and of the
        providers it replaces), whatever the registry holds.
        """
        with self._lock:
            current = self.snapshot()
            new_ids: dict[str, Route] = {}
            for route in registration.routes:
                if route.route_id in new_ids:
                    what, hint = declared_twice(new_ids[route.route_id], route)
                    raise DuplicateRouteError(what, where=registration.source, hint=hint)
                new_ids[route.route_id] = route
            added: list[str] = []
            replaced: list[str] = []
            removed: list[str] = []
            if replace and prune:
                scopes = {(r.provider.id, r.access.id) for r in registration.routes}
                for provider_id in sorted({p for p, _ in scopes}):
                    for existing in current.routes_of(provider_id):
                        key = (provider_id, existing.access.id)
                        if key in scopes and existing.route_id not in new_ids:
                            removed.append(existing.route_id)
            for route_id, route in new_ids.items():
                old = current.routes.get(route_id)
                if old is not None and not replace:
                    functions = two_functions(old, route)
                    held = (
                        f": callable {functions[0]} holds it, callable {functions[1]} would "
                        "take it too"
                        if functions
                        else ""
                    )
                    raise DuplicateRouteError(
                        f"route {route_id!r} is already registered (from {old.source or '?'})"
                        + held,
                        where=registration.source,
                        hint=duplicate_hint(
                            old,
                            route,
                            prune=prune,
                            held=current.routes_of(old.provider.id),
                            registering=registration.routes,
                        ),
                    )
                if old is None:
                    added.append(route_id)
                elif old.fingerprint != route.fingerprint:
                    replaced.append(route_id)
            providers: dict[str, Provider] = {}
            for provider in registration.providers:
                previous = providers.get(provider.id, current.providers.get(provider.id))
                if (
                    previous is not None
                    and previous != provider
                    and not replace
                    and current.routes_of(provider.id)
                ):
                    raise RegistrationError(
                        f"provider {provider.id!r} is already registered with other metadata"
                        f" (from {sources_of(current.routes_of(provider.id))})",
                        where=registration.source,
                        hint="A different document titled alike: pass provider= to give it an "
                        "id of its own (add_openapi does so by itself, as ..._2). The same "
                        "provider with new metadata: pass replace=True",
                    )
                providers[provider.id] = provider
            for route in new_ids.values():
                pid = route.provider.id
                if pid not in providers and pid not in current.providers:
                    providers[pid] = route.provider
            change = RegistryChange(
                version=current.version + 1,
                added=tuple(sorted(added)),
                replaced=tuple(sorted(replaced)),
                removed=tuple(sorted(removed)),
                warnings=(
                    *registration.warnings,
                    *canonical_clashes(current.providers_of, registration.routes, set(removed)),
                ),
            )
            snapshot = current.derive(
                change.version,
                routes=new_ids,
                removed=removed,
                providers=providers,
                intents={i.id: i for i in registration.intents},
                field_groups={g.id: g for g in registration.field_groups},
            )
            self._commit(snapshot, change, source=registration.source)
            return change

    def remove(
        self, *, provider: str | None = None, route_ids: Iterable[str] = ()
    ) -> RegistryChange:
        """Remove a whole provider, or the given routes. Unknown ids are an error."""
        with self._lock:
            current = self.snapshot()
            doomed = set(route_ids)
            for route_id in doomed:
                current.route(route_id)  # raises for unknown ids
            if provider is not None:
                current.provider(provider)
                doomed.update(r.route_id for r in current.routes_of(provider))
            change = RegistryChange(version=current.version + 1, removed=tuple(sorted(doomed)))
            snapshot = current.derive(
                change.version,
                removed=change.removed,
                removed_providers=() if provider is None else (provider,),
            )
            self._commit(snapshot, change, source=f"remove {provider or sorted(doomed)}")
            return change

    @contextmanager
    def batch(self) -> Iterator[RegistryBatch]:
        """Register many sources as one change::

            with registry.batch() as done:
                for listing in listings:
                    registry.register(mcp_tools_registration(listing, provider=...))
            done.change  # every route the block added, replaced or removed

        Each registration inside is checked and versioned as usual, and this thread sees
        them at once; other threads keep the snapshot from before the block, and the
        listeners (the router's index) are told once, when it ends. An exception that
        leaves the block undoes all of it: nothing of a failed batch stays registered.
        Other writers wait for the block (it holds the writers' lock); a nested
        ``batch()`` is part of the outer one.
        """
        with self._lock:
            if self._batch is not None:
                yield self._batch
                return
            batch = RegistryBatch(self._snapshot)
            self._batch, self._batch_thread, self._staged = batch, threading.get_ident(), None
            try:
                yield batch
            except BaseException:
                self._batch, self._batch_thread, self._staged = None, None, None
                logger.info("registry batch undone after %d registrations", batch.registrations)
                batch._ended(committed=False)
                raise
            end = self._staged
            self._batch, self._batch_thread, self._staged = None, None, None
            if end is not None:
                change = batch.merged(end)
                try:
                    self._commit(end, change, source=f"batch of {batch.registrations}")
                except BaseException:
                    batch._ended(committed=False)
                    raise
                batch.change = change
            else:
                batch.change = RegistryChange(version=self._snapshot.version)
            batch._ended(committed=True)

    def _lose_batch(self) -> None:
        """In a forked child, undo a :meth:`batch` of another thread (not in the child: the
        block never ends there); the child keeps the snapshot from before it and commits its
        own registrations. A batch of the thread that forked goes on."""
        batch = self._batch
        if batch is None or self._batch_thread == threading.get_ident():
            return
        self._batch, self._batch_thread, self._staged = None, None, None
        logger.info("a forked child undid the registry batch of a thread it does not have")
        batch._ended(committed=False)

    def _commit(self, snapshot: RegistrySnapshot, change: RegistryChange, *, source: str) -> None:
        """Tell the listeners (the router's index among them), then swap ``snapshot`` in. A
        listener that fails undoes the change: the snapshot is never published, the ones
        already told are told again with the previous one, and a :class:`RegistrationError`
        says what failed (the change and its index update happen together, or neither).
        Inside a :meth:`batch`, the snapshot is only staged."""
        if self._batch is not None:
            self._batch.note(self.snapshot(), change, source=source)
            self._staged = snapshot
            return
        previous = self._snapshot
        told: list[Listener] = []
        for listener in list(self._listeners):
            try:
                listener(snapshot, change)
            except Exception as exc:
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
        # published once every listener took it: no thread reads a change then undone (X3)
        self._snapshot = snapshot
        logger.debug(
            "registry v%d: +%d ~%d -%d routes",
            snapshot.version,
            len(change.added),
            len(change.replaced),
            len(change.removed),
        )


#: every registry, for the fork hook below
_registries: weakref.WeakSet[Registry] = weakref.WeakSet()


def _lose_batches_in_child() -> None:
    for registry in list(_registries):
        registry._lose_batch()


# after forksafe's hook (imported above; hooks run in order): a batch's locks are free
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_lose_batches_in_child)
