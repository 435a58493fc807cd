"""Two parts of a request served by one change route, each planned with its own arguments.

Follow-up of earlier trials: "add note 'called' to C-1 and note 'emailed' to C-2" planned one
``add_note`` with neither contact nor text (two of each in the request, none chosen), and
said the second part "has the same best route as an earlier part, planned once: its own
arguments are not planned"; nothing was noted. Where ``max_calls`` leaves room, each part that
a write's step serves (the best route's own part, and each later part whose best it is too)
is planned as a step of that route filled from the part's own words only, in the order the
request writes them. Only where every such step is complete (nothing left open) and no two
are the same call; else the plan stays as it was, and says so as before. A plan whose steps
bind one another's outputs is left as it is, and so is a request that writes a condition or
a later time (a part held by it is the rules' of :mod:`.conditions` and :mod:`.deferred`),
or one that refuses an id ("add note 'a' to C-1 and note 'b' to C-2, don't note C-2" wrote
the note to C-2: the part "note 'b' to C-2, don't note C-2" was filled from its own words,
and the refusal read by the plan's rules only; the twentieth review).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from schemarouter.contracts import Effect
from schemarouter.planning.arguments import missing_parameters
from schemarouter.planning.condition_spans import condition_spans
from schemarouter.planning.deferred import deferral_spans
from schemarouter.planning.plan_request import PlanRequest
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.clauses import without_refused

__all__ = ["repeated_parts"]

#: A part's misses as retrieval reports them: ``(part, best route, why)``.
Misses = list[tuple[str, str, str]]


class _Step(Protocol):
    @property
    def route_id(self) -> str: ...
    @property
    def arguments(self) -> Mapping[str, Any]: ...
    @property
    def bindings(self) -> Mapping[str, Any]: ...


S = TypeVar("S", bound=_Step)


def _part_request(
    request: PlanRequest, values: Sequence[BoundValue], text: str
) -> tuple[PlanRequest, list[BoundValue]] | None:
    """The request of ``text`` alone and the values written in it, else ``None`` (not written)."""
    at = request.query.find(text)
    if at < 0:
        return None
    end = at + len(text)
    inside = [
        value.model_copy(update={"start": value.start - at, "end": value.end - at})
        for value in values
        if at <= value.start and value.end <= end
    ]
    return request.model_copy(update={"query": text}), inside


def repeated_parts(
    snapshot: RegistrySnapshot,
    steps: list[S],
    top: str,
    mine: str,
    misses: Misses,
    request: PlanRequest,
    values: Sequence[BoundValue],
    max_calls: int,
    open_step: Callable[[str, PlanRequest, list[BoundValue]], S],
    warnings: list[str],
) -> tuple[list[S], Misses]:
    """``steps`` with the step of ``top`` (a write) replaced by one per part it serves, each
    filled from that part's own words (module docstring), and ``misses`` less those parts;
    both as given where that cannot be done."""
    shared = [text for text, route_id, why in misses if why == "shared" and route_id == top]
    route = snapshot.routes[top]
    at = [i for i, step in enumerate(steps) if step.route_id == top]
    if not shared or not mine or route.endpoint.effect is Effect.READ or len(at) != 1:
        return steps, misses
    if len(steps) + len(shared) > max_calls or any(s.bindings for s in steps):
        return steps, misses
    if condition_spans(request.query) or deferral_spans(request.query):
        return steps, misses  # "Refund O-2. if O-1 shipped, refund it too": O-1's is held
    if len(without_refused(values, request.query)) < len(values):
        return steps, misses  # "..., note 'b' to C-2, don't note C-2": a part's own words
    texts = sorted([mine, *shared], key=request.query.find)
    made: list[S] = []
    for text in texts:
        part = _part_request(request, values, text)
        if part is None:
            return steps, misses
        step = open_step(top, *part)
        arguments = step.arguments
        if missing_parameters(route, arguments) or arguments in [s.arguments for s in made]:
            return steps, misses
        made.append(step)
    named = ", ".join(repr(text) for text in texts)
    warnings.append(
        f"the parts {named} of the request each ask {top}: planned once per part, each with "
        "its own arguments"
    )
    kept = [m for m in misses if not (m[1] == top and m[0] in shared)]
    return [*steps[: at[0]], *made, *steps[at[0] + 1 :]], kept
