"""A read asked for several ids of one thing, planned once for each as ``max_calls`` allows.

"Get tickets T-7 and T-8" on ``GET /tickets/{ticket_id}`` planned one call, for T-7 (trial
Y1). With room for more calls, the step is planned again for each other id the request lists
of its kind (:func:`~schemarouter.retrieval.clauses.several_of_a_kind`), each copy added after
the plan's steps, so no binding to an earlier step moves. Only reads: a change of several ids
takes none of them (:func:`~schemarouter.retrieval.clauses.one_each`). Only a parameter that
takes one value the copy's id fits (its schema); where ``max_calls`` runs out, the plan's
warnings name the ids left (:func:`~schemarouter.planning.arguments.unused_values`).
"""

from __future__ import annotations

from collections.abc import Sequence

from schemarouter.contracts import Effect, schema_validator
from schemarouter.planning.planner import Plan
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import several_of_a_kind

__all__ = ["each_of_several"]


def each_of_several(
    plan: Plan, snapshot: RegistrySnapshot, values: Sequence[BoundValue], query: str
) -> Plan:
    """``plan`` with each read step that takes one of several ids the request names planned
    again for the others, within ``plan.max_calls``; a warning names what was added."""
    if not plan.steps or len(plan.steps) >= plan.max_calls:
        return plan
    several = several_of_a_kind(values, query)
    if not several:
        return plan
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
                if other in planned or not valid(other):
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
