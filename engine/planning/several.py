"""A read asked for several ids of one thing, planned once for each as ``max_calls`` allows.

"Get tickets T-7 and T-8" on ``GET /tickets/{ticket_id}`` planned one call, for T-7 (trial
Y1). With room for more calls, the step is planned again for each other id the request lists
of its kind (:func:`~schemarouter.retrieval.clauses.several_of_a_kind`), each copy added after
the plan's steps, so no binding to an earlier step moves. Only reads: a change of several ids
takes none of them (:func:`~schemarouter.retrieval.clauses.one_each`). Only a parameter that
takes one value the copy's id fits (its schema); where ``max_calls`` runs out, the plan's
warnings name the ids left (:func:`left_out_notes`). An id the request lists and then refuses
("tickets T-7 and T-8, not T-8") or writes on past its end ("T-8?x=1") is neither planned
nor named (:func:`_wanted`): the list is read by place, not from the bound values, so
:func:`~schemarouter.retrieval.clauses.without_refused` never saw it (trial W1).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schemarouter.contracts import Effect, schema_validator
from schemarouter.planning.arguments import holds
from schemarouter.planning.described_ids import not_describing
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import CONTINUED, clauses_of, several_of_a_kind

if TYPE_CHECKING:
    from schemarouter.planning.planner import Plan

__all__ = ["each_of_several", "left_out_notes"]


def each_of_several(
    plan: Plan, snapshot: RegistrySnapshot, values: Sequence[BoundValue], query: str
) -> Plan:
    """``plan`` with each read step that takes one of several ids the request names planned
    again for the others, within ``plan.max_calls``; a warning names what was added."""
    if not plan.steps or len(plan.steps) >= plan.max_calls:
        return plan
    several = several_of_a_kind(not_describing(values, query), query)
    if not several:
        return plan
    wanted = _wanted(query)
    steps = list(plan.steps)
    notes: list[str] = []
    for step in plan.steps:
        route = snapshot.routes[step.route_id]
        if route.endpoint.effect is not Effect.READ or step.bindings:
            continue
        for parameter in route.endpoint.parameters:
            argument = step.arguments.get(parameter.name)
            named = several.get(argument) if isinstance(argument, str) else None
            if not named or parameter.json_schema.get("type") == "array":
                continue
            valid = schema_validator(parameter.json_schema).is_valid
            planned = {
                s.arguments.get(parameter.name) for s in steps if s.route_id == step.route_id
            }
            added = []
            for other in named:
                if len(steps) >= plan.max_calls:
                    break
                if other in planned or not valid(other) or not wanted(other):
                    continue
                if other in step.arguments.values():  # the other end of a range, taken
                    continue
                arguments = {**step.arguments, parameter.name: other}
                steps.append(step.model_copy(update={"arguments": arguments}))
                added.append(other)
            if added:
                notes.append(
                    f"the request names several ids for {parameter.name}, which takes one: "
                    f"{route.route_id} is planned once for each of "
                    f"{', '.join(map(repr, [argument, *added]))}"
                )
            break  # one parameter of a step is read so
    if not notes:
        return plan
    return plan.model_copy(update={"steps": tuple(steps), "warnings": (*plan.warnings, *notes)})


def left_out_notes(
    arguments: Sequence[Mapping[str, Any]], values: Sequence[BoundValue], query: str
) -> list[str]:
    """A sentence per group of ids the request names together of which the steps take only
    some: "the tickets of customers C-1 and C-2" planned one call for C-1 and said nothing of
    C-2 (trial Y1). A change takes none of them (``one_each``), so says nothing here."""
    out: dict[str, None] = {}
    values = not_describing(values, query)  # "account AC-2, which C-9 opened": no C-9
    several = several_of_a_kind(values, query) if arguments else {}
    wanted = _wanted(query)
    done: set[tuple[str, ...]] = set()  # a group of n ids is read once, not n times
    for value in values:
        group = tuple(several.get(value.value, ()))
        if not group or group in done:
            continue
        done.add(group)
        named = [v for v in group if wanted(v)]
        if not named:
            continue
        held = [v for v in named if any(holds(list(step.values()), v) for step in arguments)]
        if not held or len(held) == len(named):
            continue
        left = [v for v in named if v not in held]
        what = f"ids of {value.of}" if value.of else value.kind.split(".", 1)[-1].replace("_", " ")
        shown = ", ".join(map(repr, named[:10])) + (", ..." if len(named) > 10 else "")
        where = next(
            (
                f"plan.with_arguments({i}, {{{name!r}: {left[0]!r}}})"
                for i, step in enumerate(arguments)
                for name, argument in step.items()
                if argument == held[0]
            ),
            "Plan.with_arguments",
        )
        out[
            f"the request names {len(named)} {what} ({shown}), and a step takes one: the plan "
            f"is for {', '.join(map(repr, held[:10]))} only, not {', '.join(map(repr, left[:10]))}"
            f"{', ...' if len(left) > 10 else ''}; plan with max_calls="
            f"{len(arguments) + len(left)} to call it for each, or run it again for each of "
            f"them ({where})"
        ] = None
    return list(out)


#: A run of word letters and hyphens: where an id of them alone is written whole.
_RUN = re.compile(r"[\w-]+")


def _wanted(query: str) -> Callable[[str], bool]:
    """Whether an id ``query`` lists is wanted: no place it is written at is refused by its
    clause ("T-7 and T-8, not T-8") or written on past its end ("T-8?x=1", "T-8/../x")."""
    clauses = clauses_of(query)
    runs: dict[str, list[re.Match[str]]] = {}  # an id of word letters is a whole run of them
    for run in _RUN.finditer(query):
        runs.setdefault(run.group(), []).append(run)

    @functools.cache  # each id read once: every id of a group asks of every other (trial X1)
    def wanted(value: str) -> bool:
        # each id read the whole request: 75 s for 12,000 ids (thirteenth security review)
        written = rf"(?<![\w-]){re.escape(value)}(?![\w-])"
        places = runs.get(value, []) if _RUN.fullmatch(value) else re.finditer(written, query)
        for found in places:
            if clauses.against_span(found.start(), found.end()):
                return False
            if CONTINUED.match(query, found.end()):
                return False
        return True

    return wanted
