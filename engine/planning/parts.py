"""The other parts of a multi-part request in a plan ("... and also ...").

Retrieval gives each part of a request its best route
(:meth:`schemarouter.retrieval.ranking.Ranker.part_routes`). :func:`plan_parts` plans those
routes after the steps the plan already has, each with the producer of an identifier it needs,
while ``max_calls`` leaves room, then :func:`in_written_order` puts them in the order the
request writes their parts where no step takes another's output; a part left out is always
named in the plan's warnings, with why: no room, its route not allowed (:func:`plan_parts`),
no route close enough to it or its route shared with another part
(:func:`missed_parts_notes`), or ``max_calls=1`` on a request planned by its best route
(:func:`one_call_parts_note`). On a request that resolves semantic ids, the parts whose own
words resolve none are planned this way (:func:`open_parts`): the fields cover the others.
With ``max_calls=1`` retrieval does not score the parts (one encoding each); a field cover
then names the parts that resolve no field in its warnings (:func:`fieldless_parts_note`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from schemarouter.contracts import Effect
from schemarouter.planning.arguments import fill_arguments
from schemarouter.planning.asked_changes import asked_verbs, does_change
from schemarouter.planning.message_text import unsaid
from schemarouter.planning.refusals import QUOTED
from schemarouter.planning.refused_verbs import only_refused
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import name_words, verb_forms
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.clauses import clauses_of, several_of_a_kind
from schemarouter.retrieval.fields import resolve_fields
from schemarouter.retrieval.intents import split_intents
from schemarouter.retrieval.sequence import where_written, written_key


class _Step(Protocol):
    """What is read of a plan step here (the planner's ``PlanStep``)."""

    @property
    def route_id(self) -> str: ...
    @property
    def bindings(self) -> Mapping[str, Any]: ...
    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self: ...


Step = TypeVar("Step", bound=_Step)


class _Request(Protocol):
    """What is read of a request here (the planner's ``PlanRequest``)."""

    @property
    def query(self) -> str: ...
    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self: ...


Request = TypeVar("Request", bound=_Request)

__all__ = [
    "fieldless_parts_note",
    "in_written_order",
    "missed_parts_notes",
    "named_ids_route",
    "one_call_parts_note",
    "open_parts",
    "own_part",
    "plan_parts",
    "served_part_note",
    "top_part",
]


def open_parts(
    parts: Sequence[tuple[str, str]],
    snapshot: RegistrySnapshot,
    required: Collection[str],
) -> list[tuple[str, str]]:
    """The ``(part, route id)`` of ``parts`` whose part names no semantic id (of a request
    that resolves some): its field cover says nothing about them. A part given without its
    words (``""``) counts as one where its route serves none of the ``required`` ids."""
    out = []
    for text, route_id in parts:
        if route_id not in snapshot.routes:
            continue
        if text:
            if resolve_fields(text, snapshot)[0]:
                continue
        elif any(o.route_id == route_id for sid in required for o in snapshot.providers_of(sid)):
            continue
        out.append((text, route_id))
    return out


def fieldless_parts_note(query: str, snapshot: RegistrySnapshot) -> list[str]:
    """With ``max_calls=1`` (where retrieval does not score the parts): a note naming the
    parts of a multi-part ``query`` that resolve no semantic id, which a field cover leaves
    out; none for a one-part request or one whose parts all name fields."""
    parts = split_intents(query)
    if len(parts) < 2:
        return []
    unnamed = [part for part in parts if not resolve_fields(part, snapshot)[0]]
    if not unnamed:
        return []
    named = ", ".join(repr(part) for part in unnamed)
    verb = (
        "names no semantic field and is" if len(unnamed) == 1 else "name no semantic field and are"
    )
    return [
        f"the request has {len(parts)} parts and max_calls=1 plans the route(s) of its fields "
        f"only: {named} {verb} not planned; raise max_calls to plan the best route of each part"
    ]


def _part(text: str) -> str:
    return f"the part {text!r}" if text else "a part"


def missed_parts_notes(
    misses: Sequence[tuple[str, str, str]],
    snapshot: RegistrySnapshot,
    planned: Collection[str],
    *,
    fields: bool,
) -> list[str]:
    """Notes naming the parts of a multi-part request that got no route of their own
    (:meth:`~schemarouter.retrieval.ranking.Ranker.part_report`: ``(part, best route, why)``,
    ``why`` ``"weak"`` or ``"shared"``). On a request that resolves semantic ids (``fields``),
    a part naming one is covered by the fields and needs no note; so does a part whose best
    route is ``planned`` although it is weak."""
    notes = []
    for text, route_id, why in misses:
        if not why or (fields and text and resolve_fields(text, snapshot)[0]):
            continue
        if why == "weak" and route_id not in planned:
            notes.append(
                f"{_part(text)} of the request matches no route closely enough to plan it (its "
                f"best, {route_id}, falls under the part similarity floor): it is not planned; "
                "plan it as a request of its own"
            )
        elif why == "shared":
            state = "planned once" if route_id in planned else "not planned"
            notes.append(
                f"{_part(text)} of the request has the same best route as an earlier part "
                f"({route_id}), {state}: its own arguments are not planned; plan it as a "
                "request of its own"
            )
    return notes


def one_call_parts_note(query: str) -> list[str]:
    """With ``max_calls=1`` on a request planned by its best route (no semantic field): a
    note that the other parts of a multi-part ``query`` are not planned."""
    parts = split_intents(query)
    if len(parts) < 2:
        return []
    named = ", ".join(repr(part) for part in parts)
    return [
        f"the request has {len(parts)} parts ({named}) and max_calls=1 plans its best route "
        "only: the other parts are not planned; raise max_calls to plan the best route of each"
    ]


def served_part_note(
    part: str | None,
    route_id: str,
    bests: Sequence[tuple[str, ...]],
    snapshot: RegistrySnapshot,
) -> tuple[list[str], bool]:
    """The note that the request's best route ``route_id`` serves ``part``, a part it is not
    the best of (:meth:`~schemarouter.retrieval.intents.PartReading.served_by`), with the
    part's own best route by its words alone (from ``bests``: ``(part, route id, ...)``).
    That route is still planned beside it where it reads (as ``max_calls`` allows: more to
    read, at a call's cost); a write or a delete is not (the part is served: trial P §7 would
    have voided an invoice for "bill her 49 USD on an invoice"), and the note says so.
    Returns the note (none where no part is served so) and whether that route stays out."""
    if not part:
        return [], False
    own = next((b[1] for b in bests if b[0] == part), None)
    if own is None or own == route_id or own not in snapshot.routes:
        return [], False
    note = (
        f"{_part(part)} of the request is planned by the request's best route, {route_id}, "
        f"which serves it best of the parts; its own best route by its words alone is {own}"
    )
    if snapshot.routes[own].endpoint.effect is Effect.READ:
        return [note + ", planned beside it as max_calls allows"], False
    effect = snapshot.routes[own].endpoint.effect.value
    return [note + f", a {effect}, which is not planned"], True


def named_ids_route(
    snapshot: RegistrySnapshot,
    top: str,
    served_by: Callable[[str], str | None] | None,
    parts: Sequence[tuple[str, ...]],
    values: Sequence[BoundValue],
    request: _Request,
    eligible: Collection[str],
    warnings: list[str],
) -> str:
    """``top``, or the route planned in its place for the part it serves where it is no
    part's best (``served_by``): that part's own best (among ``parts``: ``(words, route id,
    ...)``), where it is ``eligible`` and takes an id the part names while ``top`` takes none
    of them. Trial 15's "Cancel shipment S-777, then schedule a pickup for shipment S-205"
    ranked ``cancel_pickup`` first (its words from both parts); it served the cancel, took no
    shipment id, and was bound to the pickup the plan created: the pickup was made and
    deleted, S-777 never cancelled. A part naming no id keeps ``top`` (trial P §7)."""
    owned = (served_by(top) if served_by is not None else None) or ""
    own = next((p[1] for p in parts if p[0] == owned), None) if owned else None
    at = request.query.find(owned) if owned else -1
    if own is None or own == top or own not in eligible or at < 0:
        return top
    inside = [
        value.model_copy(update={"start": value.start - at, "end": value.end - at})
        for value in values
        if value.kind.startswith("identifier.") and at <= value.start < at + len(owned)
    ]
    named = {value.value for value in inside}

    def takes(route_id: str) -> bool:
        arguments = fill_arguments(snapshot.routes[route_id], owned, inside)
        body = arguments.get("body")
        given = [*arguments.values(), *(body.values() if isinstance(body, Mapping) else ())]
        return bool(named & {str(v) for v in given if not isinstance(v, Mapping)})

    if not named or takes(top) or not takes(own):
        return top
    warnings.append(
        f"{_part(owned)} of the request names {', '.join(sorted(named))}, which the request's "
        f"best route, {top}, takes no parameter for: its own best route, {own}, is planned "
        "in its place"
    )
    return own


def top_part(
    snapshot: RegistrySnapshot,
    top: str,
    served_by: Callable[[str], str | None] | None,
    parts: Sequence[tuple[str, ...]],
) -> tuple[str | None, str]:
    """The part the request's best route ``top`` serves where it is no part's best
    (``served_by``; trial P §7: "bill her 49 USD on an invoice" by create_invoice, not by its
    own best, void_invoice, too), and the words of the part it is planned for: that part,
    else the part whose best (or shared best, among ``parts``: ``(words, route id, ...)``) it
    is; where ``top`` does none of the changes that part asks ("티켓 T-1 닫고" served by
    reopen_ticket), ``""``: the whole request, which gives it none of several ids. A part that
    writes the route's name's first word as a verb asks its change ("Refund order O-1." by
    refund_order, though "order" is the verb read there): left out, a later part said to come
    "first" ("Refund order O-1. Delete customer C-1 first.") was planned after it."""
    owned = served_by(top) if served_by is not None else None
    text = owned or next((p[0] for p in parts if p[1] == top), "")
    verbs = asked_verbs(text) if text else frozenset()
    route = snapshot.routes[top]
    lead = next(iter(name_words(route.endpoint.name)), "")
    named = bool(lead) and any(lead in verb_forms(w) for w in re.findall(r"[A-Za-z]+", text))
    if verbs and not named and not any(does_change(route, verb, text) for verb in verbs):
        return owned, ""
    return owned, text


def unasked_top(
    snapshot: RegistrySnapshot,
    top: str,
    parts: Sequence[tuple[str, ...]],
    query: str,
    warnings: list[str],
) -> str | None:
    """The best route of the request's first part, where the request's best ``top`` is a
    change that is no part's best and does none of the changes the request asks, nor is
    named by its verb: "notify customer CU-3 that card CD-1 was blocked, and freeze account
    AC-1" ranks ``block_card`` first for what the message says (its card an id that
    describes: :mod:`.described_ids`), and planned it, with its card missing, before the
    notification and the freeze asked, so nothing was sent; ``None`` where ``top`` stays.
    ``warnings`` gets the note that says so."""
    route = snapshot.routes[top]
    verbs = asked_verbs(query)
    if route.endpoint.effect is Effect.READ or not verbs or any(p[1] == top for p in parts):
        return None
    lead = next(iter(name_words(route.endpoint.name)), "")
    if any(lead in verb_forms(w) for w in re.findall(r"[A-Za-z]+", unsaid(query))):
        return None
    if any(does_change(route, verb, query) for verb in verbs):
        return None
    first = next((p[1] for p in parts if p[1] in snapshot.routes), None)
    if first is not None:
        warnings.append(
            f"the request asks to {' and '.join(sorted(verbs))}, and {top}, ranked first, does "
            f"another change no part of it asks: {first}, the first part's best, is planned "
            "in its place"
        )
    return first


def parts_after(
    snapshot: RegistrySnapshot,
    query: str,
    parts: Sequence[tuple[str, str]],
    top: str,
    served: str | None,
    drop: bool,
) -> list[tuple[str, str]]:
    """The parts planned after the request's best route ``top``: not its own, nor the part
    it ``served`` where its note says to ``drop`` it, nor one whose best does a change the
    request only says not to do (its part is the refusal: "Don't cancel shipment S-205.
    Reroute it to depot D-4" planned ``cancel_shipment`` for the first sentence, its id held
    back, and nothing was sent)."""
    banned = only_refused(query)
    return [
        (text, route_id)
        for text, route_id in parts
        if route_id != top
        and (text != served or not drop)
        and not any(does_change(snapshot.routes[route_id], v, text) for v in banned)
    ]


def own_part(
    request: Request, values: Sequence[BoundValue], text: str, *, best: bool = False
) -> tuple[Request, list[BoundValue]]:
    """The request and the values a part's step is filled from: the part's own words and the
    values written in them, where the request names several ids of a kind (filled from the
    whole request, a change takes none of them: "티켓 T-1 닫고 T-2 다시 열어줘" left both
    parts' ``ticket_id`` open; trial Y2); else the whole request, less the quoted values the
    other parts write: a quote is its own part's ("roll back checkout to revision 11, then
    resolve incident INC-4 with note 'rolled back checkout'" sent the note as the rollback's
    ``name``; trial 16), and, for the request's ``best`` route's part, less the ids written
    after their thing only outside it (:func:`_own_ids`)."""
    at = request.query.find(text) if text else -1
    if at < 0:
        return request, list(values)
    end = at + len(text)
    if not several_of_a_kind(values, request.query):
        kept = _own_ids(values, request.query, at, end) if best else values
        return _others_unquoted(request, kept, at, end)
    inside = [
        value.model_copy(update={"start": value.start - at, "end": value.end - at})
        for value in values
        if at <= value.start and value.end <= end
    ]
    return request.model_copy(update={"query": text}), inside


def _own_ids(values: Sequence[BoundValue], query: str, at: int, end: int) -> list[BoundValue]:
    """``values`` less the ids written after the thing they name ("valve V-8") outside the
    part ``[at, end)`` of ``query`` and nowhere in it: another part's (trial 17: "schedule 8 mm
    of irrigation on field F-12 at ..., then open valve V-8 for 10 minutes" sent the schedule
    with ``valve_id="V-8"``, an id the request gave the opening only). An id the request
    refuses is kept: no step takes it, but "it" may give it back to this part's change
    ("Don't cancel shipment S-205. Reroute it to depot D-4": :mod:`.referred`)."""
    inside = query[at:end].lower()
    clauses = clauses_of(query)
    return [
        v
        for v in values
        if v.kind != NAMED_IDENTIFIER
        or v.value.lower() in inside
        or (v.end > at and v.start < end)
        or clauses.against_span(v.start, v.end)
    ]


def _others_unquoted(
    request: Request, values: Sequence[BoundValue], at: int, end: int
) -> tuple[Request, list[BoundValue]]:
    """``request`` with each quoted span outside ``[at, end)`` blanked (same length, so the
    values keep their places) and the values inside such a span left out."""
    query = request.query
    spans = [m.span() for m in QUOTED.finditer(query) if m.end() <= at or m.start() >= end]
    if not spans:
        return request, list(values)
    for start, stop in spans:
        query = query[:start] + " " * (stop - start) + query[stop:]
    kept = [v for v in values if not any(s <= v.start and v.end <= e for s, e in spans)]
    return request.model_copy(update={"query": query}), kept


def plan_parts(
    steps: list[Step],
    parts: Sequence[tuple[str, str]],
    max_calls: int,
    eligible: Callable[[str], bool],
    open_step: Callable[[str, str], Step],
    chained: Callable[[list[Step]], list[Step]],
    warnings: list[str],
    excluded: Callable[[str], str] = lambda route_id: "",
    served: str | None = None,
) -> list[Step]:
    """``steps`` with each part's best route after them (``open_step`` of the route and the
    part's words, then ``chained`` for its producer), while ``max_calls`` leaves room. A part
    whose route is planned already adds nothing; one whose route is not ``eligible``
    (``excluded`` says why) or with no room left is named in ``warnings``, but for the part
    ``served`` by a planned step already (:func:`served_part_note` names it)."""
    for text, route_id in parts:
        if any(s.route_id == route_id for s in steps):
            continue
        if text and text == served and (len(steps) >= max_calls or not eligible(route_id)):
            continue
        if not eligible(route_id):
            why = excluded(route_id)
            warnings.append(
                f"{_part(text)} of the request is not planned: its best route, {route_id}, is "
                f"not allowed{': ' + why if why else ''}"
            )
            continue
        if len(steps) >= max_calls:
            warnings.append(
                f"max_calls={max_calls} leaves no room for {_part(text)} of the request (its best "
                f"route: {route_id}): it is not planned; raise max_calls to plan it"
            )
            continue
        steps = chained([*steps, open_step(route_id, text)])
    return steps


def in_written_order(
    query: str, steps: list[Step], parts: Sequence[tuple[str, str]], warnings: list[str]
) -> list[Step]:
    """``steps``, the request's best route's first and each other part's after it, each in the
    order the request writes its part ("Refund order O-1, then delete customer C-1": the
    refund first, where the deletion, ranked best, went first; "Delete customer C-1 after
    refunding order O-1" too: :func:`~schemarouter.retrieval.sequence.written_key`); a step
    no part names (a producer chained for a binding) goes right before the first step that
    takes its output, and the bindings follow the steps' new places (the tenth review: a step
    with bindings kept the ranking's order, a deletion before the read written first);
    ``parts``: ``(words, route id)``, the best route's own first; the plan's note on them in
    ``warnings``."""
    text_of: dict[str, str] = {}
    for text, route_id in parts:
        if text:
            text_of.setdefault(route_id, text)
    if not {s.route_id for s in steps[1:]} & {route_id for _, route_id in parts[1:]}:
        return steps
    at = [where_written(query, text_of[s.route_id]) if s.route_id in text_of else -1 for s in steps]
    written = iter(written_key(query, [a for a in at if a >= 0]))
    keys = _bound_keys(steps, at, [next(written) if a >= 0 else -1.0 for a in at])
    if keys is None or keys == sorted(keys):
        warnings.append(
            "the request has several parts: planned the best route of each part after the "
            "request's best, as max_calls allows"
        )
        return steps
    warnings.append(
        "the request has several parts: planned the best route of each in the order the "
        "request writes them, as max_calls allows"
    )
    order = sorted(range(len(steps)), key=lambda i: (keys[i], i))
    place = {old: new for new, old in enumerate(order)}
    return [
        steps[i].model_copy(
            update={
                "bindings": {
                    name: b.model_copy(update={"step": place[b.step]})
                    for name, b in steps[i].bindings.items()
                }
            }
        )
        if steps[i].bindings
        else steps[i]
        for i in order
    ]


def _bound_keys(steps: Sequence[Step], at: Sequence[int], keys: list[float]) -> list[float] | None:
    """Each step's place in the written order (``keys``, of the places ``at`` where its part
    is written, -1 for none): a step of no part takes a place just before the first step bound
    to it, and a step bound to another keeps after it; ``None`` where a step has neither a
    part nor a step bound to it, or a binding would point to a later step."""
    out: list[float | None] = [k if a >= 0 else None for k, a in zip(keys, at, strict=True)]
    for _ in steps:  # a chain of producers, each placed from the step it serves
        for i in range(len(steps)):
            if out[i] is None:
                users = [out[j] for j, s in enumerate(steps) for b in s.bindings.values()
                         if b.step == i and out[j] is not None]  # fmt: skip
                if users:
                    out[i] = min(k for k in users if k is not None) - 0.25 / (len(steps) + 1)
    if any(k is None for k in out):
        return None
    placed = [k for k in out if k is not None]
    for j, step in enumerate(steps):
        if any(placed[b.step] >= placed[j] for b in step.bindings.values()):
            return None
    return placed
