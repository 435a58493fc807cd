"""The lookup of the one entry a request names, in place of a better-ranked list of them.

"details of sample S-12" ranked ``list_samples`` (no id parameter) over ``get_sample``
(``sample_id``); the plan called the list with no arguments, returned every sample and only
warned that no step takes 'S-12' (trial X3). :func:`named_lookup` plans the lookup instead,
and says so, where the request names an identifier the best route takes no parameter for,
and a route ranked just after it, of the same provider, takes that id, needs nothing else
open, does no more to the world and returns the same fields as the list's entries. Ranking
is unchanged: the plan's one step is picked from the ranked list, as
:func:`fillable_sibling` picks the other way round (a list standing in for a lookup whose id
nothing gives), and :func:`first_fillable` among routes ranked equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from schemarouter.contracts import Effect, Route
from schemarouter.planning.arguments import fill_arguments, holds, missing_parameters
from schemarouter.planning.parts import Request, own_part
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.prerequisites import names_identifier

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "FILL_WINDOW",
    "fillable_sibling",
    "first_fillable",
    "has_every",
    "in_place",
    "named_lookup",
    "stand_in",
]


#: How many routes :func:`first_fillable` reads the request's arguments for.
FILL_WINDOW = 8


def first_fillable(routes: Sequence[Route], query: str, values: Sequence[BoundValue]) -> int:
    """0, or, where the first of ``routes`` (equally good, best ranked first) needs an
    identifier the request does not give, the index of the first of the next (up to
    :data:`FILL_WINDOW` in all) whose required parameters the request fills. Trial O: "band
    gap of GaN from PublicMat" planned ``get_structure``, whose ``entry_id`` nothing gives,
    over ``list_structures``, which covers the same fields and needs nothing, and the call
    failed. A setting left open (an ``email``, a ``dataset``) is the caller's to give
    (``Plan.with_arguments``): it moves nothing. A route that does more to the world than
    the first (a write for a read) is never taken in its place: the request asked for what
    the first does."""
    if not routes or not _needs_an_id(_missing(routes[0], query, values)):
        return 0
    for i, route in enumerate(routes[1:FILL_WINDOW], start=1):
        if _does_no_more(route, routes[0]) and not _missing(route, query, values):
            return i
    return 0


def fillable_sibling(
    snapshot: RegistrySnapshot,
    top: str,
    later: Sequence[str],
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
    any_open: bool = False,
) -> str:
    """``top``, or, where it needs an identifier the request does not give (``any_open``: other
    arguments, for a part: :func:`~.named_lookup.stand_in`; an id is chained), the first of
    ``later`` (the eligible routes ranked after it; the first :data:`FILL_WINDOW` read) of
    its provider whose output has every field ``top``'s has and that needs nothing open, said
    in ``warnings``: a list route in place of the lookup of one entry nothing names (trial O's
    ``get_structure``, whose ``entry_id`` nothing gave, so the call failed). A route that
    does more to the world than ``top`` is never taken in its place: "status of my order",
    with writes allowed, planned ``cancel_all_orders`` (a write with the lookup's fields and
    no parameter) for ``get_order_status``; nor does a read stand in for a change, which is
    planned with its id missing ("delete customers C-1, C-2" planned ``list_customers``)."""
    route = snapshot.routes[top]
    if route.endpoint.effect is not Effect.READ:
        return top
    missing = _missing(route, query, values)
    if not (missing and not _needs_an_id(missing) if any_open else _needs_an_id(missing)):
        return top
    names = {field.name for field in route.endpoint.output_fields}
    for other in [snapshot.routes[r] for r in later[:FILL_WINDOW]]:
        fields = {field.name for field in other.endpoint.output_fields}
        same = other.provider.id == route.provider.id and has_every(fields, names)
        if same and _does_no_more(other, route) and not _missing(other, query, values):
            warnings.append(
                f"planned {other.route_id} in place of the better-ranked {top}, which needs "
                f"{', '.join(missing)} the request does not give (it has the same fields); "
                "give it with Plan.with_arguments to call that one instead"
            )
            return other.route_id
    return top


def has_every(fields: set[str], names: set[str]) -> bool:
    """Whether ``fields`` hold every one of ``names``, as they are or all under one prefix:
    a page of entries (``items.id``, ``items.subject`` beside ``next_page``) holds a lookup's
    ``id`` and ``subject`` (trial X3: ``list_tickets`` never stood in for ``get_ticket``)."""
    if names <= fields:
        return True
    probe = next(iter(names), "")
    prefixes = {f[: -len(probe)] for f in fields if f.endswith("." + probe)}
    return any({prefix + name for name in names} <= fields for prefix in prefixes)


def _does_no_more(route: Route, than: Route) -> bool:
    """Whether calling ``route`` does no more to the world than calling ``than``."""
    return route.endpoint.effect.rank <= than.endpoint.effect.rank


def _missing(route: Route, query: str, values: Sequence[BoundValue]) -> tuple[str, ...]:
    """The required parameters of ``route`` the request leaves open."""
    return missing_parameters(route, fill_arguments(route, query, values))


def _needs_an_id(missing: Sequence[str]) -> bool:
    """Whether ``missing`` holds an identifier (a setting left open is the caller's)."""
    return any(names_identifier(name.removeprefix("body.")) for name in missing)


def stand_in(
    snapshot: RegistrySnapshot,
    route_id: str,
    ranked: Sequence[str],
    request: Request,
    values: Sequence[BoundValue],
    text: str,
    warnings: list[str],
) -> tuple[str, Request, list[BoundValue]]:
    """The route a part (``text``) whose best route is ``route_id`` is planned by, with the
    request and values its step is filled from (:func:`~.parts.own_part`): ``route_id``, or,
    where it is a read needing an argument the part does not give, none an identifier (whose
    producer is chained), the read of the same
    provider ranked after it for the request that has its fields and needs nothing open
    (:func:`fillable_sibling`). Trial 16: "scale checkout to 5 replicas, then show
    me its pods" planned ``describe_pod`` with its ``pod`` missing, which held the scale back
    too, where ``list_pods`` needs nothing."""
    part, kept = own_part(request, values, text)
    later = [r for r in ranked if r != route_id and r in snapshot.routes]
    best = fillable_sibling(snapshot, route_id, later, part.query, kept, warnings, any_open=True)
    return best, part, kept


def in_place(
    snapshot: RegistrySnapshot,
    top: str,
    later: Sequence[str],
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
    max_calls: int,
) -> str:
    """``top``, or the route planned in its place: with one call (none to chain a producer),
    a sibling whose parameters the request fills
    (:func:`fillable_sibling`); with any number, the lookup
    of the entry the request names (:func:`named_lookup`: it needs nothing chained, and with
    ``max_calls=3`` the unfiltered list was planned, trial V3)."""
    if max_calls == 1:
        top = fillable_sibling(snapshot, top, later, query, values, warnings)
    return named_lookup(snapshot, top, later, query, values, warnings)


def named_lookup(
    snapshot: RegistrySnapshot,
    top: str,
    later: Sequence[str],
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
) -> str:
    """``top``, or the first of ``later`` (the eligible routes ranked after it; the first
    :data:`FILL_WINDOW` read) that looks up the entry the
    request names by an identifier ``top`` takes no parameter for (see the module
    docstring), said in ``warnings``."""
    route = snapshot.routes[top]
    if route.endpoint.effect is not Effect.READ:
        return top
    given = list(fill_arguments(route, query, values).values())
    named = [v for v in values if v.kind.startswith("identifier.") and not holds(given, v.value)]
    fields = {field.name for field in route.endpoint.output_fields}
    for other in [snapshot.routes[r] for r in later[: FILL_WINDOW - 1] if r in snapshot.routes]:
        if other.provider.id != route.provider.id or other.endpoint.effect is not Effect.READ:
            continue
        arguments = fill_arguments(other, query, values)
        own = {field.name for field in other.endpoint.output_fields}
        if missing_parameters(other, arguments) or not own or not has_every(fields, own):
            continue
        for value in named:
            taken = [
                n for n, a in arguments.items() if names_identifier(n) and holds(a, value.value)
            ]
            if taken:
                warnings.append(
                    f"planned {other.route_id} in place of the better-ranked {top}, which "
                    f"takes no {taken[0]} and would not be filtered by the {value.value!r} the "
                    f"request names ({other.route_id} returns the same fields, of that entry); "
                    f"call {top} with router.call for the whole list"
                )
                return other.route_id
    return top
