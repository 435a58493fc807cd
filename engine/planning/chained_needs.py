"""Which identifiers of a planned step an earlier step may fill (the planner's producer chain).

A read's identifier the request does not carry is bound to a producer's ("the movies of Tom
Hanks": ``/search/person``, then its id). A change is not, where the request names ids of its
own: they were left open on purpose (a list of two, "delete tickets T-1 and T-2", or one the
request refuses, "do not delete ticket T-1"), and the first entry a list returns is an entry
the user never named (trial Y1: ``list_tickets`` then ``delete_ticket`` bound to its first
ticket). A destructive change is not either, unless the request says which entry by its
place (:data:`WHICH`: "delete the first ticket"): "Delete a ticket" deleted whichever ticket
the server listed first (trial Z3), an id nobody named, the approval seeing only that id. The
id stays missing, for the caller to give (:func:`unchained_note` says so in the warnings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from schemarouter.contracts import Effect, Route
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.identifiers import needed_parameters

__all__ = ["WHICH", "bound_note", "chained_needs", "unchained_note"]


class _Step(Protocol):
    """What is read of a planned step here (the planner's ``PlanStep``)."""

    @property
    def missing_parameters(self) -> tuple[str, ...]: ...


#: Words that say which entry of a list a destructive change takes: the one a binding gives
#: (execution fills a bound parameter from the first value the producer returned).
WHICH = re.compile(r"\b(?:first|1st|top)\b|첫\s?번째|첫\s?(?=[가-힣])|맨\s?(?:위|앞|처음)", re.I)


def chained_needs(
    route: Route,
    given: frozenset[str],
    values: Sequence[BoundValue],
    query: str = "",
    step: _Step | None = None,
    warnings: list[str] | None = None,
) -> tuple[tuple[str, str], ...]:
    """``(parameter, thing)`` of ``route`` an earlier step may bind
    (:func:`~schemarouter.retrieval.identifiers.needed_parameters`): none of a change's where
    the request names an identifier, none of a destructive change's where ``query`` does not
    say which entry (:data:`WHICH`). The ones of ``step`` (planned on ``route``) this leaves
    missing are named in ``warnings`` (:func:`unchained_note`)."""
    needs = needed_parameters(route, given=given)
    effect = route.endpoint.effect
    if (
        effect is not Effect.READ and any(value.kind.startswith("identifier.") for value in values)
    ) or (effect is Effect.DESTRUCTIVE and not WHICH.search(query)):
        if step is not None and warnings is not None:
            warnings.extend(unchained_note(route, [p for p, _ in needs], step.missing_parameters))
        return ()
    return needs


def unchained_note(route: Route, parameters: Sequence[str], missing: Sequence[str]) -> list[str]:
    """The warning of a change whose missing identifiers no earlier step may fill
    (:func:`chained_needs` left them out): none where none is missing."""
    left = [p for p in parameters if p in missing]
    if not left:
        return []
    names = ", ".join(repr(p) for p in left)
    return [
        f"{route.route_id} is a {route.endpoint.effect.value} change whose {names} the request "
        "does not give: no listed entry is taken in its place (one the request never named); "
        "supply it with Plan.with_arguments"
    ]


def bound_note(route: Route, parameter: str, producer: str) -> list[str]:
    """The warning of a change whose identifier is bound to a producer's first entry (a
    read's binding goes without saying)."""
    if route.endpoint.effect is Effect.READ:
        return []
    return [
        f"{route.route_id} ({route.endpoint.effect.value}) takes {parameter!r} from the first "
        f"entry {producer} returns, as the request says which; the approval sees that value"
    ]
