"""Which identifiers of a planned step an earlier step may fill (the planner's producer chain).

A read's identifier the request does not carry is bound to a producer's ("the movies of Tom
Hanks": ``/search/person``, then its id). A change is not, where the request names ids of its
own: they were left open on purpose (a list of two, "delete tickets T-1 and T-2", or one the
request refuses, "do not delete ticket T-1"), and the first entry a list returns is an entry
the user never named (trial Y1: ``list_tickets`` then ``delete_ticket`` bound to its first
ticket). The id stays missing, for the caller to give.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.identifiers import needed_parameters

__all__ = ["chained_needs"]


def chained_needs(
    route: Route, given: frozenset[str], values: Sequence[BoundValue]
) -> tuple[tuple[str, str], ...]:
    """``(parameter, thing)`` of ``route`` an earlier step may bind
    (:func:`~schemarouter.retrieval.identifiers.needed_parameters`): none of a change's where
    the request names an identifier."""
    if route.endpoint.effect is not Effect.READ and any(
        value.kind.startswith("identifier.") for value in values
    ):
        return ()
    return needed_parameters(route, given=given)
