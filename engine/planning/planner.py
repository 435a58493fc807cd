"""Field-first planning: the request's semantic fields first, then the routes that serve them.

1. :func:`schemarouter.retrieval.fields.resolve_fields` maps a request to semantic ids (given,
   or matched in its text against semantic ids, field names and the catalog's aliases).
2. :func:`plan_routes` covers those fields with at most ``max_calls`` routes (greedy set
   cover; ties go, with no call left to chain a producer, to a route needing no identifier
   the request lacks, then to the better-ranked route, then to the one with *fewer* fields:
   breadth is never rewarded), honouring source constraints and effects.
3. Each step projects fields deterministically (:func:`project_fields`): identifiers, the
   fields the request needs, and, in ``recall`` mode, the rest of their field groups (the
   paper's recall-preserving operating point); ``minimal`` mode stops at the needed fields.
4. Conservative fallbacks per field (:mod:`.fallbacks`): same semantic id, JSON type and
   shape, unit contract and qualifiers, read-only, within the request's source types,
   providers and licences; a requested field is never swapped silently.

**Registries without semantic ids** (a user's own OpenAPI, MCP and Python routes): where the
request resolves to no semantic id, the best-ranked eligible route is planned by the fields
the request matched in the index (``minimal``), or by its whole output (``recall``, and
wherever nothing matched): the step says ``whole_output`` and execution hands back the
route's validated raw output beside the typed fields. Parameters, and the top-level properties
of a JSON object body, are filled from the request where their schemas allow
(:func:`schemarouter.planning.arguments.fill_arguments`); the required ones still open are
listed as missing (a body's as ``body.<property>``). With ``max_calls`` above one, the best
route of each other part of a multi-part request follows (``PlanRequest.parts``).

**Identifiers** (every registry): a step needing an identifier the request does not carry
(``/author/{author_id}/books``; :func:`schemarouter.retrieval.prerequisites.needed_parameters`)
gets, while ``max_calls`` allows, the producer retrieval ranked best as an earlier step (one
of the step's own provider: identifiers are provider-scoped), and the parameter a
:class:`Binding` to that step's id field, filled at execution. An empty plan says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import Field

from schemarouter.checks import KnownKeys as _Frozen
from schemarouter.contracts import Route
from schemarouter.errors import ArgumentError
from schemarouter.planning import asked_amounts, empty_changes, mixed_verbs, refusals, unplaced
from schemarouter.planning import chained_needs as chained
from schemarouter.planning.arguments import fill_arguments, missing_parameters, with_given
from schemarouter.planning.asked_units import asked_unit_notes
from schemarouter.planning.by_differences import held_differences
from schemarouter.planning.example_ids import sharing_shapes
from schemarouter.planning.fallbacks import Fallback, constraint_notes, fallbacks_for, keeps_to
from schemarouter.planning.filter_words import not_described
from schemarouter.planning.held_units import held_units
from schemarouter.planning.links import link_created, things_created
from schemarouter.planning.named_lookup import first_fillable, in_place, stand_in
from schemarouter.planning.numbers import by_number
from schemarouter.planning.out_of_schema import held_out_of_schema
from schemarouter.planning.parts import (
    fieldless_parts_note,
    in_written_order,
    missed_parts_notes,
    named_ids_route,
    one_call_parts_note,
    open_parts,
    own_part,
    parts_after,
    plan_parts,
    served_part_note,
    top_part,
    unasked_top,
)
from schemarouter.planning.plan_request import PlanRequest
from schemarouter.planning.projection import (
    field_meta,
    project_fields,
    typed_fields,
)
from schemarouter.planning.refusals import deprecated_notes, exclusions, writes_passed_over
from schemarouter.planning.repeated_parts import repeated_parts
from schemarouter.planning.stated_options import unclear_settings
from schemarouter.planning.weak_parts import doing_parts
from schemarouter.planning.written_times import reading_times, time_notes
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.candidates import matched_fields_for, no_match_reason
from schemarouter.retrieval.fields import resolve_fields
from schemarouter.retrieval.prerequisites import identifier_source, producers, producers_for

__all__ = [
    "Binding",
    "Coverage",
    "Plan",
    "PlanRequest",
    "PlanStep",
    "plan_routes",
    "project_fields",
    "route_identity",
]


class Binding(_Frozen):
    """Where a parameter's value comes from when no request carries it: the first value of
    output field ``field`` (at ``path`` in the raw output) of the earlier plan step ``step``,
    a producer of the ``thing`` whose identifier the parameter takes."""

    step: int = Field(ge=0)
    field: str
    path: str
    thing: str = ""


def route_identity(route: Route) -> dict[str, str]:
    """How a plan step and its result name their route: ``route_id``, ``fingerprint``,
    ``provider`` (its id) and ``endpoint`` (its name)."""
    return {
        "route_id": route.route_id,
        "fingerprint": route.fingerprint,
        "provider": route.provider.id,
        "endpoint": route.endpoint.name,
    }


class PlanStep(_Frozen):
    #: Which route (:func:`route_identity`).
    route_id: str
    fingerprint: str
    provider: str
    endpoint: str
    #: Output fields to fetch (names on this route), in the route's order.
    fields: tuple[str, ...]
    #: The required semantic ids this step covers.
    covers: tuple[str, ...]
    arguments: dict[str, Any] = Field(default_factory=dict)
    #: Required parameters the request did not supply (the caller must add them); a
    #: parameter in ``bindings`` is not missing; a JSON body's property as ``body.amount_cents``.
    missing_parameters: tuple[str, ...] = ()
    #: Parameters filled at execution from an earlier step's output (parameter -> binding):
    #: ``person_id`` from the ``results.*.id`` of the ``/search/person`` step before; a body
    #: property as ``body.<property>``.
    bindings: dict[str, Binding] = Field(default_factory=dict)
    fallbacks: tuple[Fallback, ...] = ()
    #: The step returns the route's whole raw output (validated) beside ``fields``: set where
    #: no semantic id says which fields the request needs (see the module docstring).
    whole_output: bool = False
    #: Unit, provenance and license of each fetched field (name -> metadata).
    meta: dict[str, dict[str, Any]] = Field(default_factory=dict)


class Coverage(_Frozen):
    required: tuple[str, ...]
    covered: tuple[str, ...]
    uncovered: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.uncovered


class Plan(_Frozen):
    request: PlanRequest
    steps: tuple[PlanStep, ...]
    coverage: Coverage
    max_calls: int
    registry_version: int
    warnings: tuple[str, ...] = ()
    #: Why the plan has no step (empty when it has some).
    reason: str = ""

    @property
    def route_ids(self) -> tuple[str, ...]:
        return tuple(step.route_id for step in self.steps)

    @property
    def missing_arguments(self) -> dict[str, tuple[str, ...]]:
        """route id -> the required arguments the request did not supply (steps that lack
        none are left out): what the caller must add before executing."""
        return {s.route_id: s.missing_parameters for s in self.steps if s.missing_parameters}

    def with_arguments(self, step: int | str, arguments: Mapping[str, Any]) -> Plan:
        """This plan with ``arguments`` added to one step (its index, or its route id where
        the plan calls that route once): how the caller fills :attr:`missing_arguments`
        before executing. The names given leave the step's missing parameters (and replace a
        binding to an earlier step's output); a body given is merged into the one the request
        filled in part (:func:`~schemarouter.planning.arguments.with_given`). Execution checks
        every value against the route's schema, as for any plan."""
        if isinstance(step, bool) or not isinstance(step, int | str):
            raise ArgumentError(
                f"step must be a step index or a route id, got {type(step).__name__}",
                where="Plan.with_arguments(step=...)",
            )
        if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
            raise ArgumentError(
                "arguments must be a mapping of parameter names to values",
                where="Plan.with_arguments(arguments=...)",
            )
        at = [i for i, s in enumerate(self.steps) if step in (i, s.route_id)]
        if len(at) != 1:
            found = "calls it more than once" if at else "has no such step"
            raise ArgumentError(
                f"the plan {found}: {step!r}",
                where="Plan.with_arguments(step=...)",
                hint=f"Pass a step index (0 to {len(self.steps) - 1}) or one of its route ids: "
                f"{', '.join(self.route_ids) or 'none'}",
            )
        old = self.steps[at[0]]
        new = old.model_copy(update=with_given(old, arguments))
        steps = (*self.steps[: at[0]], new, *self.steps[at[0] + 1 :])
        return self.model_copy(update={"steps": steps})


# -- set cover --------------------------------------------------------------------------


@reading_times  # the request's zone and moment, for every rule (PlanRequest.timezone, now)
@sharing_shapes  # the id shapes a provider's routes show, for its routes that show none
def plan_routes(
    request: PlanRequest,
    snapshot: RegistrySnapshot,
    *,
    ranked: Sequence[str] = (),
    values: Sequence[BoundValue] = (),
    max_calls: int = 1,
    field_hits: Mapping[str, Sequence[str]] | None = None,
    abstained: str = "",
    part_routes: Sequence[str] = (),
    parts: Sequence[tuple[str, str]] = (),
    part_misses: Sequence[tuple[str, str, str]] = (),
    served_by: Callable[[str], str | None] | None = None,
) -> Plan:
    """Cover the request's semantic fields with at most ``max_calls`` registered routes.

    ``ranked`` is the retrieval order (route ids); it breaks ties (module docstring) and, when
    the request resolves to no semantic field, supplies the single best eligible route,
    planned by its ``field_hits`` (route id -> the field documents the request matched in the
    index) or its whole output. ``abstained`` is retrieval's reason for serving nothing: with
    no semantic field resolved, the plan is then empty and says so. ``parts`` are the parts of a
    multi-part request (:mod:`schemarouter.retrieval.intents`) as ``(words, best route id)``
    (``part_routes``: their routes alone, the words unknown): planned after the best route, or, on a
    request that resolves semantic ids, after the routes covering them for each part that
    resolves none (:mod:`.parts`), while ``max_calls`` leaves room; the warnings name a part
    left out, and each of ``part_misses`` (``(words, best route, "weak" | "shared")``, the
    parts with no route of their own: ``Ranker.part_report``) the plan does not serve; the part
    ``served_by`` names for the best route is planned by it alone. A step needing an identifier
    gets its producer first (:func:`_chain`), or the planned write creating it (:mod:`.links`)."""
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    required, warnings = resolve_fields(
        request.query, snapshot, fields=request.fields, refused=False
    )
    rank_of = {route_id: i for i, route_id in enumerate(ranked)}
    values = by_number(request.query, snapshot, ranked, not_described(values, request.query))

    def eligible(route: Route) -> bool:
        return route.endpoint.effect in request.allowed_effects and keeps_to(route, request)

    def chained(items: list[PlanStep]) -> list[PlanStep]:
        # what a planned write creates is bound to it (links.py), never to a read producer
        writes = [snapshot.routes[r] for r in [*(s.route_id for s in items), *coming]]
        return _chain(
            snapshot,
            items,
            request,
            values,
            ranked=ranked,
            field_hits=field_hits or {},
            max_calls=max_calls,
            eligible=eligible,
            warnings=warnings,
            creating=things_created(w for w in writes if eligible(w)),
        )

    def add_parts(
        items: list[PlanStep], chosen: list[tuple[str, str]], served: str | None = None
    ) -> list[PlanStep]:
        def make(best: str, text: str) -> PlanStep:  # a part's own ids (parts.own_part)
            route, part, kept = stand_in(snapshot, best, ranked, request, values, text, warnings)
            return _open_step(snapshot, route, part, kept, (field_hits or {}).get(route, ()))

        def ok(route_id: str) -> bool:
            return eligible(snapshot.routes[route_id])

        def why(route_id: str) -> str:
            return exclusions([route_id], snapshot, request)

        return plan_parts(items, chosen, max_calls, ok, make, chained, warnings, why, served)

    parts, part_misses = doing_parts(request, values, parts, part_misses, snapshot)  # "assign"
    parts = [(t, r) for t, r in [*parts, *(("", r) for r in part_routes)] if r in snapshot.routes]
    coming = [r for _, r in parts]

    offers: dict[str, dict[str, str]] = {}  # semantic id -> {route id -> field name}
    for semantic_id in required:
        for offer in snapshot.providers_of(semantic_id):
            route = snapshot.routes[offer.route_id]
            if eligible(route):
                offers.setdefault(semantic_id, {}).setdefault(offer.route_id, offer.field.name)
    warnings += constraint_notes(request, snapshot, required, offers)
    coverable = [sid for sid in required if sid in offers]
    steps: list[PlanStep] = []
    remaining = set(coverable)
    while remaining and len(steps) < max_calls:
        scores: dict[str, set[str]] = {}
        for sid in remaining:
            for route_id in offers[sid]:
                scores.setdefault(route_id, set()).add(sid)
        order = sorted(
            scores,
            key=lambda r: (
                -len(scores[r]),
                rank_of.get(r, len(rank_of)),
                len(snapshot.routes[r].endpoint.output_fields),
                r,
            ),
        )
        tied = [snapshot.routes[r] for r in order if len(scores[r]) == len(scores[order[0]])]
        tied = tied[:1] if len(steps) + 1 < max_calls else tied  # room to chain a producer
        best = tied[first_fillable(tied, request.query, values)].route_id
        covers = scores[best]
        steps.append(_step(snapshot, best, covers, offers, request, values))
        remaining -= covers
    if remaining:
        warnings.append(
            f"max_calls={max_calls} leaves {sorted(remaining)} uncovered; raise max_calls to "
            "add complementary routes"
        )
    reason = ""
    if not required:
        if abstained:
            reason = abstained
        elif not ranked:
            reason = no_match_reason(snapshot)
        else:
            ok = [r for r in ranked if r in snapshot.routes and eligible(snapshot.routes[r])]
            ok = refusals.reads_first(request, snapshot, ok, warnings)
            ok = mixed_verbs.asked_verb_first(request.query, snapshot, ok, warnings, values)
            top = ok[0] if ok else None
            # better-ranked routes are passed over for what the request does not allow
            skipped = list(ranked)[: list(ranked).index(top)] if top is not None else []
            blocked = writes_passed_over(request, snapshot, skipped, top)
            if top is not None and not blocked:  # a sibling that fills, the named entry's lookup
                top = in_place(snapshot, top, ok[1:], request.query, values, warnings, max_calls)
            if top is None:
                reason = (  # all eligible: one does the opposite change (opposite_verbs)
                    f"none of the {len(ranked)} ranked routes is eligible: "
                    f"{exclusions(ranked, snapshot, request) or warnings[-1]}"
                )
            elif blocked:
                others = f" and {len(blocked) - 3} more" if len(blocked) > 3 else ""
                reason = (
                    f"the request asks to change something, and the routes that would "
                    f"({', '.join(blocked[:3])}{others}) are not allowed: "
                    f"{exclusions(blocked, snapshot, request)}; a read in their place would "
                    "answer without doing it, so nothing is planned"
                )
            else:
                # the part the best route serves is planned by it, from its words (trial P §7)
                each = [*parts, *part_misses]  # or by its own best (parts.named_ids_route)
                top = named_ids_route(snapshot, top, served_by, each, values, request, ok, warnings)
                top = unasked_top(snapshot, top, parts, request.query, warnings) or top
                owned, mine = top_part(snapshot, top, served_by, each)
                hits = (field_hits or {}).get(top, ())
                step = _open_step(snapshot, top, *own_part(request, values, mine, best=True), hits)
                before = len(warnings)  # the chains' notes follow this step's own
                steps = chained([step])
                notes, drop = served_part_note(owned, top, each, snapshot)
                other_parts = parts_after(snapshot, request.query, parts, top, owned, drop)
                coming = [r for _, r in other_parts]
                warnings.extend(notes)
                part_misses = [m for m in part_misses if m[0] != owned]
                steps = add_parts(steps, other_parts, owned)
                planned = "its whole output" if step.whole_output else "the fields it matched"
                warnings.insert(before, "no semantic field resolved from the request; planned "
                                f"the best-ranked eligible route by {planned}")  # fmt: skip
                steps = in_written_order(
                    request.query, steps, [(mine, top), *other_parts], warnings
                )
                parts = [(mine, top), *parts]  # links.py: the part top serves, where written
                steps, part_misses = repeated_parts(  # "note 'a' to C-1 and note 'b' to C-2"
                    snapshot, steps, top, mine, part_misses, request, values, max_calls,
                    lambda r, q, v: _open_step(snapshot, r, q, v, hits), warnings,
                )  # fmt: skip
                if max_calls == 1 and request.parts:
                    warnings.extend(one_call_parts_note(request.query))
                if skipped and (why := exclusions(skipped, snapshot, request)):
                    warnings.append(
                        f"passed over {len(skipped)} better-ranked route(s) "
                        f"({', '.join(skipped[:3])}): {why}"  # a choice says its own why
                    )
    elif not steps:
        reason = "; ".join(warnings) or "no eligible route provides the requested fields"
    if steps and required:  # the open path above chained its own steps
        steps = chained(steps)
        if parts and not request.fields:
            unnamed = open_parts(parts, snapshot, required)
            before_parts = {s.route_id for s in steps}
            steps = add_parts(steps, unnamed)
            if {s.route_id for s in steps} - before_parts:
                warnings.append(
                    "the request has several parts: planned the best route of each part that "
                    "names no semantic field after the routes covering the fields, as "
                    "max_calls allows"
                )
        elif max_calls == 1 and request.parts and not request.fields:
            warnings.extend(fieldless_parts_note(request.query, snapshot))
    if steps and part_misses and request.parts and not request.fields:
        served = {s.route_id for s in steps}
        warnings += missed_parts_notes(part_misses, snapshot, served, fields=bool(required))
    steps = link_created(snapshot, steps, Binding, warnings, request.query, parts)
    steps = empty_changes.held_empty(snapshot, steps, warnings)  # an update of nothing
    steps = asked_amounts.held_amounts(snapshot, steps, request.query, warnings)  # a part
    steps = unplaced.held_unplaced(snapshot, steps, request.query, values, warnings)
    steps = held_units(snapshot, steps, request.query, warnings)  # "to 68 °F": 20 °C
    steps = held_out_of_schema(snapshot, steps, request.query, values, warnings)  # "120%"
    steps = held_differences(snapshot, steps, request.query, warnings)  # "by 3 replicas"
    warnings += asked_unit_notes(request.query, steps)
    routes = [snapshot.routes[s.route_id] for s in steps]  # "'tomorrow' read as 2026-12-06"
    warnings += time_notes(request.query, routes, [s.arguments for s in steps])
    warnings += deprecated_notes(snapshot, [s.route_id for s in steps])
    warnings = list(dict.fromkeys(warnings))  # a step chained again repeats its notes
    covered = [sid for sid in required if any(sid in step.covers for step in steps)]
    return Plan(
        request=request,
        steps=tuple(steps),
        coverage=Coverage(
            required=tuple(required),
            covered=tuple(covered),
            uncovered=tuple(sid for sid in required if sid not in covered),
        ),
        max_calls=max_calls,
        registry_version=snapshot.version,
        warnings=tuple(warnings),
        reason=reason,
    )


def _chain(
    snapshot: RegistrySnapshot,
    steps: list[PlanStep],
    request: PlanRequest,
    values: Sequence[BoundValue],
    *,
    ranked: Sequence[str],
    field_hits: Mapping[str, Sequence[str]],
    max_calls: int,
    eligible: Callable[[Route], bool],
    warnings: list[str],
    creating: frozenset[tuple[str, str]] = frozenset(),
) -> list[PlanStep]:
    """``steps`` with, before each step whose required identifier the request does not carry
    (``/person/{person_id}/movie_credits``), a step on the producer of that identifier that
    retrieval ranked best (``/search/person``), the parameter bound to the producer's id
    field (:class:`Binding`); one producer serves every later step needing its thing, of the
    step's own provider (identifiers are provider-scoped). Within ``max_calls`` steps; a
    need left open is said in ``warnings``, one for what a planned write creates
    (``creating``: ``(provider, thing)``) left to :func:`~.links.link_created`."""
    table = producers(snapshot)
    if not table:
        return steps
    given = frozenset(value.kind for value in values)
    rank_of = {route_id: i for i, route_id in enumerate(ranked)}
    room = max_calls - len(steps)
    out: list[PlanStep] = []
    for step in steps:
        route = snapshot.routes[step.route_id]
        bindings: dict[str, Binding] = {}
        for parameter, thing in chained.chained_needs(
            route, given, values, step, warnings, request.query, steps
        ):
            if parameter not in step.missing_parameters or (route.provider.id, thing) in creating:
                continue
            # identifiers are provider-scoped: only a step of the route's own provider
            # binds one, and only its own provider's producers are chained
            source = next(
                (
                    i
                    for i, done in enumerate(out)
                    if snapshot.routes[done.route_id].provider.id == route.provider.id
                    and identifier_source(snapshot.routes[done.route_id], thing)
                ),
                None,
            )
            made: PlanStep | None = None
            if source is None:
                # a producer needs no identifier itself, so it is never this route
                choices = [
                    r for r in producers_for(snapshot, route, thing) if eligible(snapshot.routes[r])
                ]
                ranked_choices = sorted((rank_of[r], r) for r in choices if r in rank_of)
                if not ranked_choices:
                    warnings.extend(chained.unranked_note(route, parameter, choices))
                    continue
                producer = ranked_choices[0][1]
                hits = field_hits.get(producer, ())
                made = _open_step(snapshot, producer, request, values, hits)
            how = chained.pick(route, thing, made or out[source or 0], request.query)
            if how is None:  # a change takes no entry of a list the request does not pick from
                warnings.extend(chained.unchained_note(route, [parameter], query=request.query))
                continue
            if made is not None:
                if room <= 0:
                    warnings.append(
                        f"{route.route_id} needs {parameter!r}, which {made.route_id} returns; "
                        f"plan with max_calls={max_calls + 1} to call it first, or supply it"
                    )
                    continue
                out.append(chained.with_id_field(snapshot.routes[made.route_id], made, thing))
                room -= 1
                source = len(out) - 1
            assert source is not None
            found = identifier_source(snapshot.routes[out[source].route_id], thing)
            assert found is not None  # the producer table and the source check say so
            bindings[parameter] = Binding(
                step=source, field=found.field, path=found.path, thing=thing
            )
            warnings.extend(chained.bound_note(route, parameter, out[source].route_id, how))
        if bindings:
            step = step.model_copy(
                update={
                    "bindings": bindings,
                    "missing_parameters": tuple(
                        p for p in step.missing_parameters if p not in bindings
                    ),
                }
            )
        out.append(step)
    return out


def _open_step(
    snapshot: RegistrySnapshot,
    route_id: str,
    request: PlanRequest,
    values: Sequence[BoundValue],
    hits: Sequence[str],
) -> PlanStep:
    """A step on a route no semantic id selected: by matched fields or the whole output."""
    route = snapshot.routes[route_id]
    matched = matched_fields_for(route, (), hits)
    whole = request.projection == "recall" or not matched
    fields = project_fields(route, matched, mode=request.projection) if matched else ()
    fields = tuple(
        f.name
        for f in route.endpoint.output_fields
        if f.name in fields or (whole and f.name in typed_fields(route))
    )
    return _make_step(route, fields, request, values, whole=whole)


def _step(
    snapshot: RegistrySnapshot,
    route_id: str,
    covers: set[str],
    offers: Mapping[str, Mapping[str, str]],
    request: PlanRequest,
    values: Sequence[BoundValue],
) -> PlanStep:
    route = snapshot.routes[route_id]
    needed = {offers[sid][route_id] for sid in covers}
    fields = project_fields(route, needed, mode=request.projection)
    return _make_step(
        route,
        fields,
        request,
        values,
        covers=tuple(sorted(covers)),
        fallbacks=tuple(
            fallbacks_for(
                snapshot,
                route,
                sorted(needed),
                source_types=request.source_types,
                providers=request.providers,
                licenses=request.licenses,
            )
        ),
    )


def _make_step(
    route: Route,
    fields: tuple[str, ...],
    request: PlanRequest,
    values: Sequence[BoundValue],
    *,
    covers: tuple[str, ...] = (),
    fallbacks: tuple[Fallback, ...] = (),
    whole: bool = False,
) -> PlanStep:
    arguments = fill_arguments(route, request.query, values)
    return PlanStep(
        **route_identity(route),
        fields=fields,
        covers=covers,
        arguments=arguments,
        missing_parameters=missing_parameters(route, arguments)
        + unclear_settings(route, request.query, arguments),
        fallbacks=fallbacks,
        whole_output=whole,
        meta={name: field_meta(route, route.endpoint.field(name)) for name in fields},
    )
