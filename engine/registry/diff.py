"""Schema diff between a registry snapshot and a newer snapshot or a Registration.

:func:`schema_diff` says which routes were added, removed or changed, and for each changed
route which output fields and parameters were added, removed or changed (by name), and
which other parts of the contract moved (``operation``, ``effect``, ``input_schema``,
``output_schema``, ``access``, ``provider``, ...). A route counts as changed when its
fingerprint changed, which is exactly when a binding to it goes stale.

Compared against a :class:`Registration`, the scope is what ``register(..., replace=True)``
would touch: the (provider, access path) pairs the registration declares.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schemarouter.contracts import Registration, Route
from schemarouter.fingerprint import fingerprint
from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "RouteDiff",
    "RouteParts",
    "SchemaDiff",
    "fingerprint_difference",
    "route_parts",
    "schema_diff",
]

_ENDPOINT_PARTS = (
    "name",
    "operation",
    "summary",
    "description",
    "input_schema",
    "output_schema",
    "effect",
    "policy_tags",
    "availability",
    "intents",
)


@dataclass(frozen=True)
class RouteDiff:
    """How one route's contract changed (names of fields, parameters and other parts)."""

    route_id: str
    fields_added: tuple[str, ...] = ()
    fields_removed: tuple[str, ...] = ()
    fields_changed: tuple[str, ...] = ()
    parameters_added: tuple[str, ...] = ()
    parameters_removed: tuple[str, ...] = ()
    parameters_changed: tuple[str, ...] = ()
    #: Other parts that changed: endpoint keys, ``access.<key>``, ``provider``.
    parts_changed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SchemaDiff:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[RouteDiff, ...] = ()
    unchanged: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def needs_rebinding(self) -> tuple[str, ...]:
        """Route ids whose fingerprint changed: bindings to them are stale."""
        return tuple(d.route_id for d in self.changed)

    def route(self, route_id: str) -> RouteDiff:
        for item in self.changed:
            if item.route_id == route_id:
                return item
        raise KeyError(route_id)


def _named(items: Sequence[Any]) -> dict[str, dict[str, Any]]:
    return {item.name: item.canonical() for item in items}


def _compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    added = tuple(sorted(set(new) - set(old)))
    removed = tuple(sorted(set(old) - set(new)))
    changed = tuple(sorted(k for k in set(old) & set(new) if old[k] != new[k]))
    return added, removed, changed


def _route_diff(old: Route, new: Route) -> RouteDiff:
    fa, fr, fc = _compare(_named(old.endpoint.output_fields), _named(new.endpoint.output_fields))
    pa, pr, pc = _compare(_named(old.endpoint.parameters), _named(new.endpoint.parameters))
    old_endpoint, new_endpoint = old.endpoint.canonical(), new.endpoint.canonical()
    parts = [k for k in _ENDPOINT_PARTS if old_endpoint.get(k) != new_endpoint.get(k)]
    if old.access_fingerprint != new.access_fingerprint:
        old_access, new_access = old.access.canonical(), new.access.canonical()
        parts += [f"access.{k}" for k in sorted(new_access) if old_access.get(k) != new_access[k]]
    if old.provider_fingerprint != new.provider_fingerprint:
        parts.append("provider")
    return RouteDiff(
        route_id=new.route_id,
        fields_added=fa,
        fields_removed=fr,
        fields_changed=fc,
        parameters_added=pa,
        parameters_removed=pr,
        parameters_changed=pc,
        parts_changed=tuple(parts),
    )


def schema_diff(
    old: RegistrySnapshot,
    new: RegistrySnapshot | Registration,
    *,
    provider: str | None = None,
) -> SchemaDiff:
    """What changed from ``old`` to ``new`` (optionally only routes of ``provider``)."""
    before: dict[str, Route] = dict(old.routes)
    if isinstance(new, Registration):
        after = {r.route_id: r for r in new.routes}
        scopes = {(r.provider.id, r.access.id) for r in new.routes}
        before = {k: r for k, r in before.items() if (r.provider.id, r.access.id) in scopes}
    else:
        after = dict(new.routes)
    if provider is not None:
        before = {k: r for k, r in before.items() if r.provider.id == provider}
        after = {k: r for k, r in after.items() if r.provider.id == provider}
    common = sorted(set(before) & set(after))
    return SchemaDiff(
        added=tuple(sorted(set(after) - set(before))),
        removed=tuple(sorted(set(before) - set(after))),
        changed=tuple(
            _route_diff(before[k], after[k])
            for k in common
            if before[k].fingerprint != after[k].fingerprint
        ),
        unchanged=tuple(k for k in common if before[k].fingerprint == after[k].fingerprint),
    )


#: What :func:`route_parts` gives: the fingerprints of the providers (by provider id) and of
#: the access paths (by ``provider/access``) of some routes.
RouteParts = dict[str, dict[str, str]]


def route_parts(routes: Iterable[Route | None]) -> RouteParts:
    """The provider and access-path fingerprints of ``routes`` (a few hundred entries for
    thousands of routes): saved beside their route fingerprints, they let a later
    :func:`fingerprint_difference` say which part of a changed route moved."""
    providers: dict[str, str] = {}
    access: dict[str, str] = {}
    for route in routes:
        if route is not None:
            providers[route.provider.id] = route.provider_fingerprint
            access[f"{route.provider.id}/{route.access.id}"] = route.access_fingerprint
    return {"providers": providers, "access": access}


def _moved(route: Route, saved: str, parts: Mapping[str, Mapping[str, str]]) -> str:
    """Which parts of ``route`` moved since it had fingerprint ``saved`` and its provider
    and access path the fingerprints in ``parts`` (the endpoint's is told by hashing the
    route again with the saved two); ``""`` where ``parts`` cannot tell."""
    before_provider = parts.get("providers", {}).get(route.provider.id)
    before_access = parts.get("access", {}).get(f"{route.provider.id}/{route.access.id}")
    if before_provider is None or before_access is None:
        return ""
    same_endpoint = saved == fingerprint(
        [route.route_id, before_provider, before_access, route.endpoint_fingerprint]
    )
    moved = [
        name
        for name, same in (
            ("provider", before_provider == route.provider_fingerprint),
            ("access path", before_access == route.access_fingerprint),
            ("endpoint", same_endpoint),
        )
        if not same
    ]
    return ", ".join(moved)


def fingerprint_difference(
    before: Mapping[str, str],
    after: RegistrySnapshot,
    *,
    shown: int = 3,
    parts: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """How ``after`` differs from routes known only by id and fingerprint (``before``: what a
    saved index was built from), in words: how many routes were added, removed and changed,
    naming the first ``shown`` of each (an index's stale-refusal says what differs, not
    only that the registry fingerprints do). With ``parts`` (:func:`route_parts` of the
    routes before), a changed route named says which part moved: ``weather/mcp/forecast:
    provider`` (its name, description, license ...), ``access path``, ``endpoint`` or
    several of them."""
    now = {route_id: route.fingerprint for route_id, route in after.routes.items()}
    described = []
    for label, ids in (
        ("added", sorted(set(now) - set(before))),
        ("removed", sorted(set(before) - set(now))),
        ("changed", sorted(r for r in set(before) & set(now) if before[r] != now[r])),
    ):
        if ids:
            named = list(ids[:shown])
            if label == "changed" and parts:
                named = [
                    f"{r}: {moved}" if (moved := _moved(after.routes[r], before[r], parts)) else r
                    for r in named
                ]
            names = ", ".join(named) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")
            described.append(f"{len(ids)} route{'s' if len(ids) > 1 else ''} {label} ({names})")
    said = "; ".join(described) or "no route differs"
    return said + _moved_between_providers(set(now) - set(before), set(before) - set(now))


def _moved_between_providers(added: set[str], removed: set[str]) -> str:
    """What a route difference says where routes of one source went under another derived
    provider id (``athena`` <-> ``athena_2``): two sources named alike, registered in
    another order (trial L: 215 route ids moved between two AWS documents titled alike)."""

    def base(route_id: str) -> tuple[str, str]:
        provider, _, rest = route_id.partition("/")
        return re.sub(r"_\d+$", "", provider), rest

    landed = {base(a): a.partition("/")[0] for a in added}
    pairs = Counter(
        (r.partition("/")[0], landed[base(r)])
        for r in removed
        if base(r) in landed and landed[base(r)] != r.partition("/")[0]
    )
    if not pairs:
        return ""
    (old, new), count = pairs.most_common(1)[0]
    return (
        f"; {count} route{'s' if count > 1 else ''} moved from provider {old} to {new}: two "
        "sources named alike, registered in another order (pass provider= for each, or "
        "PROVIDER=FILE on the command line, for ids that never move)"
    )
