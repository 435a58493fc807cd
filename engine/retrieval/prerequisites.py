"""Routes that need an identifier, and the routes that produce it.

A REST catalog answers most requests in two calls: ``GET /person/{person_id}/movie_credits``
needs a ``person_id``, which a request that names a person does not carry and which
``GET /search/person`` returns. A route's *needs* are its required parameters named like an
identifier of something (``person_id``, ``movieId``, or ``id`` after a collection segment,
``/users/{id}``); a *producer* of that thing is a registered read route that does not itself
need one, whose path or name holds the thing's word, and whose output holds an ``id`` (or
``person_id``) field, **of the same provider**: identifiers are provider-scoped (a Square
customer id is no customer id of another billing API), so a route's producers are its own
provider's (:func:`producers_for`). Read from the registered contracts alone, for any catalog;
nothing here is learned.

:func:`schemarouter.retrieval.ordering.lift_prerequisites` puts, after each route in the top
``k`` that needs something no route above it produces, the producer the request itself
scores best (the index's ``rescore_parts``), lifted from further down the ranking or from the
registry, and marked ``scores["prerequisite"] = 1``.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Container, Sequence
from dataclasses import dataclass

from schemarouter.contracts import Effect, Route
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.identifiers import (
    identifier_thing,
    is_template,
    names_identifier,
    needed_parameters,
    needs,
    path_segments,
    stem,
)
from schemarouter.retrieval.results import IdentifierSource
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "identifier_source",
    "identifier_sources",
    "names_identifier",
    "needed_parameters",
    "needs",
    "producer_table",
    "producers",
    "producers_for",
    "stem",
]

_WORDS = re.compile(r"[a-z0-9]+")


def _things_named(route: Route) -> set[str]:
    """The words of the route's static path segments and endpoint name, singular."""
    words: set[str] = set()
    for segment in path_segments(route):
        if not is_template(segment):
            parts = _WORDS.findall(segment.lower())
            words.update(stem(w) for w in parts)
            if len(parts) > 1:  # ``file_versions``: also the compound ``fileversion``
                words.add(stem("".join(parts)))
    if not route.endpoint.operation.path:
        words.update(stem(w) for w in _WORDS.findall(route.endpoint.name.lower()))
    return words


#: containers an ``id`` leaf may sit in and still be the identifier of what the route lists
_CONTAINERS = frozenset(
    stem(w)
    for w in (
        "result",
        "data",
        "item",
        "record",
        "list",
        "hit",
        "entry",
        "content",
        "value",
        "object",
    )
)


def _id_leaves(route: Route) -> list[tuple[str, str]]:
    """``(field name, thing)`` of each identifier-like output field: ``""`` for an ``id``
    leaf at the top or in a generic container (``results.*.id``), the container's word for
    one inside a named thing (``genres.*.id``: ``genre``), ``thing`` for a ``<thing>_id`` leaf."""
    out: list[tuple[str, str]] = []
    for output in route.endpoint.output_fields:
        parts = [p for p in (output.path or output.name).split(".") if p and p != "*"]
        if not parts:
            continue
        thing = identifier_thing(parts[-1])
        if thing == "":  # a plain id: whose, the parent says
            parent = stem(parts[-2]) if len(parts) > 1 else ""
            out.append((output.name, "" if parent in _CONTAINERS else parent))
        elif thing is not None:
            out.append((output.name, thing))
    return out


def _id_fields(route: Route) -> set[str]:
    """The things of :func:`_id_leaves` (``""``: a plain id of what the route lists)."""
    return {thing for _, thing in _id_leaves(route)}


def identifier_source(route: Route, thing: str) -> IdentifierSource | None:
    """Where producer ``route`` returns ``thing``'s identifier (its output field and path):
    a ``<thing>_id`` leaf, else a plain ``id`` at the top or in a generic container; the
    shallowest first. ``None`` where the route produces no identifier of ``thing``."""
    if thing not in _produces(route)[0]:
        return None
    return _source_in(route, thing)


def _source_in(route: Route, thing: str) -> IdentifierSource | None:
    """:func:`identifier_source` for a route known to produce ``thing``."""
    leaves = _id_leaves(route)
    depth = {f.name: (f.path or f.name).count(".") for f in route.endpoint.output_fields}
    for wanted in (thing, ""):
        names = sorted((depth[name], name) for name, kind in leaves if kind == wanted)
        if names:
            name = names[0][1]
            path = route.endpoint.field(name).path or name
            return IdentifierSource(route_id=route.route_id, field=name, path=path)
    return None


def _lookup(route: Route) -> bool:
    """Whether the route takes text to look things up by (a required string parameter):
    how a request that names a thing gets its identifier."""
    return any(
        p.required and p.json_schema.get("type") == "string" for p in route.endpoint.parameters
    )


@dataclass(frozen=True)
class _Table:
    #: the snapshot it was read from, not kept alive by it: an old generation's registry
    #: goes once its router does (a reloaded gateway kept the last four; trial X4)
    snapshot: weakref.ReferenceType[RegistrySnapshot]
    #: thing -> producer route ids, the lookups first; and how many of them are lookups
    producers: dict[str, tuple[str, ...]]
    lookups: dict[str, int]
    #: (provider id, thing) -> that provider's producer route ids, the lookups first; and how
    #: many of them are lookups (identifiers are provider-scoped: :func:`producers_for`)
    by_provider: dict[tuple[str, str], tuple[str, ...]]
    provider_lookups: dict[tuple[str, str], int]
    #: route fingerprint -> (things it produces, whether it is a lookup)
    facts: dict[str, tuple[frozenset[str], bool]]


#: the tables of the last few snapshots (a router searches one snapshot until its registry
#: changes; a process may hold several routers); a change reads only its routes again
_TABLES: list[_Table] = []
_KEEP = 4
_TABLES_LOCK = ForkSafeLock()


def _produces(route: Route) -> tuple[frozenset[str], bool]:
    """(the things whose identifiers ``route`` produces, whether it is a lookup)."""
    if route.endpoint.effect is not Effect.READ or needs(route):
        return frozenset(), False  # a write, or a call of its own needed first
    ids = _id_fields(route)
    if not ids:
        return frozenset(), False
    things = frozenset(t for t in _things_named(route) - _CONTAINERS if "" in ids or t in ids)
    return things, _lookup(route)


def producer_table(snapshot: RegistrySnapshot) -> _Table:
    with _TABLES_LOCK:
        for table in _TABLES:
            if table.snapshot() is snapshot:
                return table
        known = [t.facts for t in reversed(_TABLES)]
        facts: dict[str, tuple[frozenset[str], bool]] = {}
        rows: dict[str, list[tuple[bool, str]]] = {}
        own: dict[tuple[str, str], list[tuple[bool, str]]] = {}
        for route_id, route in snapshot.routes.items():
            key = route.fingerprint
            fact = next((f[key] for f in known if key in f), None) or _produces(route)
            facts[key] = fact
            for thing in fact[0]:
                rows.setdefault(thing, []).append((not fact[1], route_id))
                own.setdefault((route.provider.id, thing), []).append((not fact[1], route_id))
        # lookups first: a request that needs an identifier names the thing instead
        made = _Table(
            weakref.ref(snapshot),
            {thing: tuple(r for _, r in sorted(found)) for thing, found in rows.items()},
            {thing: sum(1 for other, _ in found if not other) for thing, found in rows.items()},
            {key: tuple(r for _, r in sorted(found)) for key, found in own.items()},
            {key: sum(1 for other, _ in found if not other) for key, found in own.items()},
            facts,
        )
        _TABLES.insert(0, made)
        del _TABLES[_KEEP:]
        return made


def _cached_facts(snapshot: RegistrySnapshot) -> dict[str, tuple[frozenset[str], bool]] | None:
    """The per-route facts of ``snapshot``'s table where one was read already (the router
    reads it in ``build_index`` with the lifts on), else ``None``; nothing is built here."""
    with _TABLES_LOCK:
        return next((t.facts for t in _TABLES if t.snapshot() is snapshot), None)


def producers(snapshot: RegistrySnapshot) -> dict[str, tuple[str, ...]]:
    """Thing -> the route ids that produce its identifier, the lookups (routes taking text,
    :func:`_lookup`) first. Computed once per snapshot from per-route facts, which are kept
    across snapshots by route fingerprint."""
    return producer_table(snapshot).producers


def producers_for(snapshot: RegistrySnapshot, route: Route, thing: str) -> tuple[str, ...]:
    """The route ids that produce ``thing``'s identifier for ``route``: its own provider's
    producers only, the lookups first. Identifiers are provider-scoped: another provider's
    ``customers[].id`` is no identifier ``route`` can take, so it is never lifted, hinted or
    chained as ``route``'s producer."""
    return producer_table(snapshot).by_provider.get((route.provider.id, thing), ())


def identifier_sources(
    snapshot: RegistrySnapshot,
    route: Route,
    offered: Container[str],
    *,
    order: Sequence[str] = (),
    given: frozenset[str] = frozenset(),
    supplied: Container[str] = (),
) -> dict[str, IdentifierSource]:
    """:attr:`~schemarouter.retrieval.results.Candidate.identifier_sources`: each required
    identifier of ``route`` (but those of a kind in ``given`` and the parameters ``supplied``) with
    the ``offered`` route that produces it: the first in ``order`` (a retrieval's few candidates,
    each read on its own: no producer table is needed on the query path), or without one
    the first of the snapshot's producer table (lookups first), for a tool list built
    without a request. Only a producer of ``route``'s own provider counts
    (:func:`producers_for`)."""
    out: dict[str, IdentifierSource] = {}
    needed = [(p, t) for p, t in needed_parameters(route, given=given) if p not in supplied]
    if not needed:
        return out
    facts = _cached_facts(snapshot)

    def produced(route_id: str) -> frozenset[str]:
        other = snapshot.routes[route_id]
        if other.provider.id != route.provider.id:  # identifiers are provider-scoped
            return frozenset()
        fact = facts.get(other.fingerprint) if facts is not None else None
        return (fact or _produces(other))[0]

    for parameter, thing in needed:
        if order:
            pool: Sequence[str] = [r for r in order if thing in produced(r)]
        else:
            pool = producers_for(snapshot, route, thing)
        producer = next((r for r in pool if r in offered), None)
        source = _source_in(snapshot.routes[producer], thing) if producer is not None else None
        if source is not None:
            out[parameter] = source
    return out
