"""The lookup of the one entry a request names, in place of a better-ranked list of them.

"details of sample S-12" ranked ``list_samples`` (no id parameter) over ``get_sample``
(``sample_id``); the plan called the list with no arguments, returned every sample and only
warned that no step takes 'S-12' (trial X3). :func:`named_lookup` plans the lookup instead,
and says so, where the request names an identifier the best route takes no parameter for,
and a route ranked just after it, of the same provider, takes that id, needs nothing else
open, does no more to the world and returns the same fields as the list's entries. Ranking
is unchanged: the plan's one step is picked from the ranked list, as
:func:`~schemarouter.planning.arguments.fillable_sibling` picks the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from schemarouter.contracts import Effect
from schemarouter.planning.arguments import (
    FILL_WINDOW,
    _has_every,
    fill_arguments,
    fillable_sibling,
    holds,
    missing_parameters,
)
from schemarouter.planning.parts import Request, own_part
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.prerequisites import names_identifier

if TYPE_CHECKING:
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["in_place", "named_lookup", "stand_in"]


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
    (:func:`~.arguments.fillable_sibling`). Trial 16: "scale checkout to 5 replicas, then show
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
    (:func:`~schemarouter.planning.arguments.fillable_sibling`); with any number, the lookup
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
    :data:`~schemarouter.planning.arguments.FILL_WINDOW` read) that looks up the entry the
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
        if missing_parameters(other, arguments) or not own or not _has_every(fields, own):
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
