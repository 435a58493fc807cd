"""Routes that need an identifier, and the routes that produce it.

A REST catalog answers most requests in two calls: ``GET /person/{person_id}/movie_credits``
needs a ``person_id``, which a request that names a person does not carry and which
``GET /search/person`` returns. A route's *needs* are its required parameters named like an
identifier of something (``person_id``, ``movieId``, or ``id`` after a collection segment,
``/users/{id}``); a *producer* of that thing is a registered read route that does not itself
need one, whose path or name holds the thing's word, and whose output holds an ``id`` (or
``person_id``) field. Read from the registered contracts alone, for any catalog; nothing here
is learned.

:func:`lift_prerequisites` puts, after each route in the top ``k`` that needs something no
route above it produces, the producer the request itself scores best (the index's
``rescore_parts``), lifted from further down the ranking or from the registry, and marked
``scores["prerequisite"] = 1``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.registry import RegistrySnapshot
from schemarouter.retrieval import Ranked

__all__ = ["DEFAULT_MAX_LIFTS", "lift_prerequisites", "needs", "producers", "stem"]

#: producers lifted for one request at most
DEFAULT_MAX_LIFTS = 2

_ID_SUFFIX = re.compile(r"^(?P<thing>[A-Za-z][A-Za-z0-9]*?)(?:[_\-.]?(?:id|Id|ID))$")
_WORDS = re.compile(r"[a-z0-9]+")
_TEMPLATE = re.compile(r"^\{[^}]+\}$")
#: what ``<x>id`` names that are not ``<thing>_id`` leave as ``x`` (``uuid``, ``guid``)
_NOT_THINGS = frozenset({"uu", "gu"})


def stem(word: str) -> str:
    """One stem for a thing's singular and plural, the same on both sides of a match
    (``movie`` and ``movies``: ``mov``; ``category`` and ``categories``: ``categor``)."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word[-1] in "ey":
        word = word[:-1]
    if len(word) > 3 and word.endswith("i"):
        word = word[:-1]
    return word


def _segments(route: Route) -> list[str]:
    path = route.endpoint.operation.path or ""
    return [s for s in path.split("/") if s]


def needs(route: Route, *, given: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The things whose identifier ``route`` needs (its required parameters named
    ``<thing>_id``, or ``id`` right after a collection segment of its path), but for a
    parameter whose declared kind (``semantic_id``) is in ``given``: the request carries a
    value of that kind (the query analysis found ``identifier.doi`` in it)."""
    found: list[str] = []
    segments = _segments(route)
    for parameter in route.endpoint.parameters:
        if not parameter.required or (parameter.semantic_id and parameter.semantic_id in given):
            continue
        thing = ""
        match = _ID_SUFFIX.match(parameter.name)
        if match and len(match["thing"]) > 1 and match["thing"].lower() not in _NOT_THINGS:
            thing = stem(match["thing"])
        elif match or parameter.name.lower() == "id":  # ``uuid``, ``pid``: a plain id
            template = "{" + parameter.name + "}"
            if template in segments and segments.index(template) > 0:
                before = segments[segments.index(template) - 1]
                if not _TEMPLATE.match(before):
                    thing = stem(before)
        if thing and thing not in found:
            found.append(thing)
    return tuple(found)


def _things_named(route: Route) -> set[str]:
    """The words of the route's static path segments and endpoint name, singular."""
    words: set[str] = set()
    for segment in _segments(route):
        if not _TEMPLATE.match(segment):
            words.update(stem(w) for w in _WORDS.findall(segment.lower()))
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


def _id_fields(route: Route) -> set[str]:
    """``""`` for an ``id`` leaf at the top or in a generic container (``results.*.id``),
    the container's word for one inside a named thing (``genres.*.id``: ``genre``), and
    ``thing`` for each ``<thing>_id`` leaf."""
    out: set[str] = set()
    for output in route.endpoint.output_fields:
        parts = [p for p in (output.path or output.name).split(".") if p and p != "*"]
        if not parts:
            continue
        leaf = parts[-1]
        match = _ID_SUFFIX.match(leaf)
        if match and len(match["thing"]) > 1 and match["thing"].lower() not in _NOT_THINGS:
            out.add(stem(match["thing"]))
        elif match or leaf.lower() == "id":  # ``id``, ``uuid``: whose, the parent says
            parent = stem(parts[-2]) if len(parts) > 1 else ""
            out.add("" if parent in _CONTAINERS else parent)
    return out


def _lookup(route: Route) -> bool:
    """Whether the route takes text to look things up by (a required string parameter):
    how a request that names a thing gets its identifier."""
    return any(
        p.required and p.json_schema.get("type") == "string" for p in route.endpoint.parameters
    )


#: the last snapshot's table (a router searches one snapshot until the registry changes),
#: and what each route produces, by route fingerprint (a change recomputes only its routes)
_LAST: tuple[RegistrySnapshot, dict[str, tuple[str, ...]]] | None = None
_FACTS: dict[str, tuple[frozenset[str], bool]] = {}
_LAST_LOCK = threading.Lock()


def _produces(route: Route) -> tuple[frozenset[str], bool]:
    """(the things whose identifiers ``route`` produces, whether it is a lookup)."""
    if route.endpoint.effect is not Effect.READ or needs(route):
        return frozenset(), False  # a write, or a call of its own needed first
    ids = _id_fields(route)
    if not ids:
        return frozenset(), False
    things = frozenset(t for t in _things_named(route) - _CONTAINERS if "" in ids or t in ids)
    return things, _lookup(route)


def producers(snapshot: RegistrySnapshot) -> dict[str, tuple[str, ...]]:
    """Thing -> the route ids that produce its identifier, the lookups (routes taking text,
    :func:`_lookup`) first (computed once per snapshot, from per-route facts kept across
    snapshots)."""
    global _LAST, _FACTS
    with _LAST_LOCK:
        last, known = _LAST, _FACTS
        if last is not None and last[0] is snapshot:
            return last[1]
        facts: dict[str, tuple[frozenset[str], bool]] = {}
        table: dict[str, list[tuple[bool, str]]] = {}
        for route_id, route in snapshot.routes.items():
            fact = known.get(route.fingerprint)
            if fact is None:
                fact = _produces(route)
            facts[route.fingerprint] = fact
            things, lookup = fact
            for thing in things:
                table.setdefault(thing, []).append((not lookup, route_id))
        # lookups first: a request that needs an identifier names the thing instead
        out = {thing: tuple(r for _, r in sorted(rows)) for thing, rows in table.items()}
        _LAST, _FACTS = (snapshot, out), facts
        return out


def lift_prerequisites(
    ranked: list[Ranked],
    snapshot: RegistrySnapshot,
    k: int,
    score: Callable[[list[str]], tuple[Sequence[float], Sequence[float]]],
    *,
    given: frozenset[str] = frozenset(),
    max_lifts: int = DEFAULT_MAX_LIFTS,
) -> list[Ranked]:
    """``ranked`` with, after each top-``k`` route whose needed identifier no route above
    it produces, the producer that ``score`` (the request's fused scores and dense cosines
    over route ids, as ``HybridIndex.rescore_parts``) rates best; an identifier of a kind in
    ``given`` (values the request carries) is not needed. At most ``max_lifts`` producers;
    routes below move down, none leaves the list."""
    table = producers(snapshot)
    if not table:
        return ranked
    out = list(ranked)
    lifts = 0
    position = 0
    while position < min(k, len(out)) and lifts < max_lifts:
        route = snapshot.routes.get(out[position].route_id)
        if route is None:
            position += 1
            continue
        above = {item.route_id for item in out[: position + 1]}
        for thing in needs(route, given=given):
            every = [r for r in table.get(thing, ()) if r != route.route_id]
            if not every or above.intersection(every):
                continue
            lookups = [r for r in every if _lookup(snapshot.routes[r])]
            choices = lookups or every  # a lookup where there is one
            fused, cosine = score(choices)
            scores = [float(x) for x in fused]
            best = max(range(len(choices)), key=lambda i: (scores[i], -i))
            chosen = choices[best]
            existing = next((i for i, item in enumerate(out) if item.route_id == chosen), None)
            if existing is not None and existing <= position:
                continue
            if existing is not None:
                item = out.pop(existing)
            else:
                value = scores[best]
                item = Ranked(
                    route_id=chosen,
                    score=value,
                    scores={"fused": value, "dense": max(0.0, float(cosine[best]))},
                )
            item.scores["prerequisite"] = 1.0
            out.insert(position + 1, item)
            above.add(chosen)
            lifts += 1
            break
        position += 1
    return out
