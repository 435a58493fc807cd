"""Which of several values a lookup returned fills a bound parameter, and what the approval
is told of the values bound.

Execution fills a bound parameter from the first value its source step returned
(:meth:`~schemarouter.execution.loop.Run.bound`). For a read that is harmless, and a change
whose request says which entry ("close the first ticket") is meant to take it. But a change
whose request picked its entry by a value the list filters on ("close the ticket of
ann@example.com") or said there is one ("rename my only workspace") meant exactly one: where
the lookup matched several, taking the first would change an entry the user did not pick
(trial W2: "Cancel the order of joe@example.com" cancelled the first of joe's two orders).
Such a step is not sent; its error names how many matched and what to do. A change picked
by a superlative ("close the oldest ticket") asked its list for one entry sorted so; a
server that returns several kept to neither its page size nor, perhaps, its order, and the
error says so (trial X2: it said "which one is meant is not known").

The approval sees which arguments came from an earlier step (:func:`bound_from`,
:class:`~schemarouter.execution.policy.ApprovalArguments`), not only their values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.errors import ExecutionError
from schemarouter.execution.policy import BoundArgument
from schemarouter.planning.chained_needs import says_first
from schemarouter.planning.planner import Binding, Plan
from schemarouter.planning.sort_values import sorted_as_asked

__all__ = ["bound_from", "several_note"]


def bound_from(plan: Plan, index: int) -> dict[str, BoundArgument]:
    """The arguments of ``plan``'s step ``index`` that an earlier step's output fills, by
    name, each with that step, its route and the path read (none that the request wrote or
    the caller gave: those are no binding)."""
    return {
        name: BoundArgument(binding.step, plan.steps[binding.step].route_id, binding.path)
        for name, binding in plan.steps[index].bindings.items()
    }


def several_note(
    route: Route,
    name: str,
    found: Sequence[tuple[Any, str]],
    binding: Binding,
    plan: Plan,
    where: str,
) -> str:
    """The warning that ``name`` of ``route`` is the first of the ``found`` values (value,
    place) the step of ``binding`` returned at its path; raises :class:`ExecutionError`
    instead for a change whose request (``plan``'s) does not say it takes the first entry
    (:func:`~schemarouter.planning.chained_needs.says_first`)."""
    first, step, path = found[0][1], binding.step, binding.path
    query, asked = plan.request.query, plan.steps[step].arguments
    if route.endpoint.effect is not Effect.READ and not says_first(query, binding.thing):
        why = (
            f"was asked for one entry ({_shown(asked)}) and returned {len(found)} values at "
            f"{path!r}: the server kept to neither its page size nor, so far as is known, its "
            "order, so which one the request names is not known"
            if sorted_as_asked(asked, query)
            else f"returned {len(found)} values at {path!r}, where the request names one: "
            "which one is meant is not known"
        )
        raise ExecutionError(
            f"{name!r} of {route.route_id} ({route.endpoint.effect.value}) would come from "
            f"step {step}, which {why}, so the change is not sent",
            where=f"{where} bindings",
            hint=f"Narrow the lookup, or call {route.route_id} with the id (router.call)",
        )
    unsorted = (
        f", where it was asked for one ({_shown(asked)}): the server kept to neither its page "
        "size nor, so far as is known, its order, so it may not be the one the request names"
        if sorted_as_asked(asked, query)
        else ""
    )
    return (
        f"{where}: {name!r} is the first of {len(found)} values step {step} returned at "
        f"{path!r} ({first}){unsorted}; to use another, call {route.route_id} with it "
        "(router.call)"
    )


def _shown(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())
