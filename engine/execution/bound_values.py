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
error says so (trial X2: it said "which one is meant is not known"). Entries are counted
with or without the id, and a change is not sent where its one entry shows another value for
the filter its list was asked (:func:`unmatched_filter`; trial X1).

The approval sees which arguments came from an earlier step (:func:`bound_from`,
:class:`~schemarouter.execution.policy.ApprovalArguments`), not only their values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.errors import ExecutionError
from schemarouter.execution.outputs import entry_count, present_values
from schemarouter.execution.policy import BoundArgument
from schemarouter.planning.chained_needs import filter_arguments, says_first
from schemarouter.planning.planner import Binding, Plan
from schemarouter.planning.sort_values import sorted_as_asked

__all__ = ["bound_from", "bound_note", "several_note", "unmatched_filter"]


def bound_from(plan: Plan, index: int) -> dict[str, BoundArgument]:
    """The arguments of ``plan``'s step ``index`` that an earlier step's output fills, by
    name, each with that step, its route and the path read (none that the request wrote or
    the caller gave: those are no binding)."""
    return {
        name: BoundArgument(binding.step, plan.steps[binding.step].route_id, binding.path)
        for name, binding in plan.steps[index].bindings.items()
    }


def bound_note(
    route: Route, name: str, raw: Any, binding: Binding, plan: Plan, where: str
) -> str | None:
    """:func:`several_note` and :func:`unmatched_filter` of the value ``name`` of ``route``
    takes from the step of ``binding`` (its output ``raw``): the warning, if any; raises
    :class:`ExecutionError` where the change is not to be sent."""
    note = several_note(route, name, raw, binding, plan, where)
    unmatched_filter(route, name, raw, binding, plan.steps[binding.step].arguments, where)
    return note


def several_note(
    route: Route,
    name: str,
    raw: Any,
    binding: Binding,
    plan: Plan,
    where: str,
) -> str | None:
    """The warning that ``name`` of ``route`` is the first of several values the step of
    ``binding`` returned (``raw``) at its path, ``None`` where it returned one entry; raises
    :class:`ExecutionError` instead for a change whose request (``plan``'s) does not say it
    takes the first entry (:func:`~schemarouter.planning.chained_needs.says_first`). Entries
    are counted with or without a value at the path: a list of two entries, one of them
    without its id, matched two, and a change takes the first of them only where each has
    one (trial X1: "close my only ticket" closed the one with an id, "close the first
    ticket" the second entry)."""
    found = present_values(raw, binding.path)
    entries = max(len(found), entry_count(raw, binding.path))
    if entries <= 1 or not found:
        return None
    first, step, path = found[0][1], binding.step, binding.path
    query, asked = plan.request.query, plan.steps[step].arguments
    count = _count(entries, len(found))
    # "the first ticket" of a list whose first entry has no id is not the first with one
    if route.endpoint.effect is not Effect.READ and (
        entries > len(found) or not says_first(query, binding.thing)
    ):
        why = (
            f"was asked for one entry ({_shown(asked)}) and returned {count} at {path!r}: the "
            "server kept to neither its page size nor, so far as is known, its order, so "
            "which one the request names is not known"
            if sorted_as_asked(asked, query)
            else f"returned {count} at {path!r}, where the request names one: which one is "
            "meant is not known"
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
        f"{where}: {name!r} is the first of {count} step {step} returned at {path!r} "
        f"({first}){unsorted}; to use another, call {route.route_id} with it (router.call)"
    )


def _shown(arguments: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())


def _count(entries: int, values: int) -> str:
    """How many were returned: ``3 values``, or ``2 entries (1 with a value)``."""
    if entries == values:
        return f"{values} values"
    return f"{entries} entries ({values} with a value)"


def unmatched_filter(
    route: Route, name: str, raw: Any, binding: Binding, asked: Mapping[str, Any], where: str
) -> None:
    """Raise :class:`ExecutionError` where the entry a change of ``route`` takes ``name``
    from (the first the step of ``binding`` returned, in ``raw``) shows another value for a
    filter its list was ``asked`` (its arguments): a server that ignored ``number=10042``
    and listed one other order would have had that order cancelled (trial X1)."""
    if route.endpoint.effect is Effect.READ or "." not in binding.path:
        return
    entry = binding.path.rsplit(".", 1)[0]
    for key, wanted in filter_arguments(asked).items():
        if not isinstance(wanted, str | int) or isinstance(wanted, bool):
            continue
        shown = present_values(raw, f"{entry}.{key}")
        if (  # a value the list shows as text or a number ("Bob", not {"name": "Bob"})
            shown
            and isinstance(shown[0][0], str | int)
            and str(shown[0][0]).casefold() != str(wanted).casefold()
        ):
            raise ExecutionError(
                f"{name!r} of {route.route_id} ({route.endpoint.effect.value}) would come from "
                f"step {binding.step}, asked for {key}={wanted!r}, whose entry has {key}="
                f"{shown[0][0]!r} at {shown[0][1]}: the list did not filter so, and the "
                "change is not sent",
                where=f"{where} bindings",
                hint=f"Check the lookup's filter, or call {route.route_id} with the id "
                "(router.call)",
            )
