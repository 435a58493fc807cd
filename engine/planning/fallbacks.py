"""Conservative fallbacks: which registered field may stand in for a planned one.

Same semantic id AND compatible JSON type and shape AND compatible unit contract (the same
unit, or both normalized to one canonical unit, or one declared in the canonical unit, with
its dimension, that the other normalizes to) AND exactly
equal qualifiers AND read-only routes; anything less is no fallback. A fallback also keeps to
the request's own constraints (:func:`within_constraints`): under a provenance filter
(*measured*, *DFT*, *실험*) its field's source type must be one the request allows (a field of
unknown or mixed provenance does not qualify), and where the request names providers it
must be one of theirs, and where it allows licences (``PlanRequest(licenses=...)``) every
licence its route's output is under must be one of them (:func:`unlicensed`; the planner
plans no route that breaks them either: :func:`keeps_to`, :func:`constraint_notes`); where
none qualifies there is no fallback. A fallback whose source
type or licence differs from the planned field's says so (:attr:`Fallback.changes`), and
execution warns when it uses one. The planner lists them per step (:func:`fallbacks_for`);
execution checks each again before it uses one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from schemarouter.contracts import Effect, OutputField, Route, SourceType
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.candidates import matches_sources

__all__ = [
    "Fallback",
    "constraint_notes",
    "fallback_changes",
    "fallback_compatible",
    "fallbacks_for",
    "keeps_to",
    "kept_to",
    "route_licenses",
    "unlicensed",
    "within_constraints",
]


class Fallback(BaseModel):
    """A route that may stand in for one field of a step if the step's route fails."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    semantic_id: str
    route_id: str
    field: str
    fingerprint: str
    #: What the fallback changes beside the route: its field's source type or licence where
    #: they differ from the planned field's (``license CC-BY-4.0 -> CC-BY-NC-4.0``).
    changes: tuple[str, ...] = ()


def _shape(schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = tuple(sorted(k for k in kind if k != "null"))
        kind = kind[0] if len(kind) == 1 else kind
    if kind == "array":
        items = schema.get("items")
        return ("array", _shape(items) if isinstance(items, Mapping) else None)
    if kind == "integer":
        return "number"
    return kind


def _unit_contract(item: OutputField) -> tuple[str | None, str | None]:
    spec = item.normalization
    return (spec.canonical_unit if spec else item.unit, spec.dimension if spec else item.dimension)


def fallback_compatible(
    original: Route, field: OutputField, other: Route, other_field: OutputField
) -> tuple[bool, str]:
    """Whether ``other_field`` on ``other`` may stand in for ``field`` on ``original``."""
    if other.route_id == original.route_id:
        return False, "same route"
    if field.semantic_id is None or other_field.semantic_id != field.semantic_id:
        return False, "different semantic id"
    if other.endpoint.effect is not Effect.READ or original.endpoint.effect is not Effect.READ:
        return False, "only read-only routes fall back"
    if _shape(field.json_schema) != _shape(other_field.json_schema):
        return False, "incompatible JSON type or shape"
    if field.unit != other_field.unit:
        # different source units are compatible only where the values compare in one unit
        # after declared normalization: both declare one to the same canonical unit, or one
        # is declared in (unit and dimension) the canonical unit the other normalizes to
        neither = field.normalization is None and other_field.normalization is None
        if neither or _unit_contract(field) != _unit_contract(other_field):
            if field.normalization is None or other_field.normalization is None:
                return (
                    False,
                    f"units differ ({field.unit} vs {other_field.unit}) without a declared "
                    "normalization",
                )
            return False, "different canonical unit contracts"
    elif _unit_contract(field) != _unit_contract(other_field):
        return False, "different canonical unit contracts"
    if dict(field.qualifiers) != dict(other_field.qualifiers):
        return False, "qualifiers differ"
    return True, "compatible"


def route_licenses(route: Route) -> tuple[str | None, ...]:
    """The licences ``route``'s output is under (:meth:`Route.output_licenses`)."""
    return route.output_licenses()


def unlicensed(route: Route, allowed: Collection[str]) -> str | None:
    """Why ``route``'s output is under a licence ``allowed`` does not hold (a licence not
    declared is none it holds); ``None`` where every one is allowed, or ``allowed`` is empty
    (any licence)."""
    off = route.licenses_outside(allowed) if allowed else []
    if not off:
        return None
    named = ", ".join(off)
    return (
        f"its output is under {named}, which the request does not allow "
        f"(PlanRequest(licenses=...) allows {', '.join(allowed)})"
    )


def within_constraints(
    other: Route,
    other_field: OutputField,
    *,
    source_types: Collection[SourceType] = (),
    providers: Collection[str] = (),
    licenses: Collection[str] = (),
) -> tuple[bool, str]:
    """Whether ``other_field`` on ``other`` keeps to a request's constraints: its source type
    one of ``source_types`` (where any are given; unknown or mixed provenance does not
    qualify), its provider one of ``providers`` (where any are named) and every licence its
    route's output is under one of ``licenses`` (where any are given, :func:`unlicensed`)."""
    if providers and other.provider.id not in providers:
        return False, f"provider {other.provider.id!r} is not one the request names"
    why = unlicensed(other, licenses)
    if why is not None:
        return False, why
    source = other.field_source_type(other_field)
    if source_types and source not in source_types:
        allowed = ", ".join(sorted(SourceType(s).value for s in source_types))
        return False, f"source type {source.value!r} is not one the request allows ({allowed})"
    return True, "within the request's constraints"


def kept_to(other: Route, names: Iterable[str], request: Any) -> str | None:
    """Why the fields ``names`` of a fallback ``other`` leave a plan request's source types
    or providers (``None`` where they keep to them)."""
    for name in names:
        ok, why = within_constraints(
            other,
            other.endpoint.field(name),
            source_types=request.source_types,
            providers=request.providers,
            licenses=getattr(request, "licenses", ()),
        )
        if not ok:
            return f"outside the request's constraints: {why}"
    return None


def fallback_changes(
    original: Route, field: OutputField, other: Route, other_field: OutputField
) -> tuple[str, ...]:
    """What standing in changes beside the route: source type and licence, where they differ."""
    out = []
    mine, theirs = original.field_source_type(field), other.field_source_type(other_field)
    if mine != theirs:
        out.append(f"source type {mine.value} -> {theirs.value}")
    before, after = original.field_license(field), other.field_license(other_field)
    if before != after:
        out.append(f"license {before or 'not declared'} -> {after or 'not declared'}")
    return tuple(out)


def fallbacks_for(
    snapshot: RegistrySnapshot,
    route: Route,
    fields: Iterable[str],
    *,
    source_types: Collection[SourceType] = (),
    providers: Collection[str] = (),
    licenses: Collection[str] = (),
) -> list[Fallback]:
    """The compatible fallbacks for ``fields`` of ``route`` that keep to the request's
    ``source_types``, ``providers`` and ``licenses`` (:func:`within_constraints`), per field
    those that change nothing beside the route first (execution tries them in this order: a DFT
    database's own mirror before a measured, non-commercial route)."""
    out: list[Fallback] = []
    for name in fields:
        item = route.endpoint.field(name)
        if item.semantic_id is None:
            continue
        found: list[Fallback] = []
        for offer in snapshot.providers_of(item.semantic_id):
            other = snapshot.routes[offer.route_id]
            ok, _ = fallback_compatible(route, item, other, offer.field)
            if ok:
                ok, _ = within_constraints(
                    other,
                    offer.field,
                    source_types=source_types,
                    providers=providers,
                    licenses=licenses,
                )
            if ok:
                found.append(
                    Fallback(
                        semantic_id=item.semantic_id,
                        route_id=other.route_id,
                        field=offer.field.name,
                        fingerprint=other.fingerprint,
                        changes=fallback_changes(route, item, other, offer.field),
                    )
                )
        out += sorted(found, key=lambda f: len(f.changes))  # stable: ties keep their order
    return out


def keeps_to(route: Route, request: Any, *, licenses: bool = True) -> bool:
    """Whether ``route`` keeps to the request's providers, source types and (unless
    ``licenses`` is false) licences."""
    if request.providers and route.provider.id not in request.providers:
        return False
    if request.source_types and not matches_sources(route, request.source_types):
        return False
    return not licenses or unlicensed(route, request.licenses) is None


def constraint_notes(
    request: Any,
    snapshot: RegistrySnapshot,
    required: Sequence[str],
    offers: Mapping[str, Collection[str]],
) -> list[str]:
    """A note per required semantic id only routes the request's constraints exclude serve
    (none of them in ``offers``), and per route serving one that is passed over for its
    licence alone, saying which licence (user trial U4: no request could leave out a
    non-commercial route, let alone say why)."""
    notes = []
    for sid in required:
        if sid not in offers and snapshot.providers_of(sid):
            notes.append(f"{sid!r} is served only by routes the request's constraints exclude")
        for offer in snapshot.providers_of(sid) if request.licenses else ():
            route = snapshot.routes[offer.route_id]
            if route.endpoint.effect not in request.allowed_effects:
                continue
            why = unlicensed(route, request.licenses)
            if why is not None and keeps_to(route, request, licenses=False):
                notes.append(f"{offer.route_id} is not planned for {sid!r}: {why}")
    return notes
