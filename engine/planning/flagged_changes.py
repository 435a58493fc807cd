"""A change a request flagged off the catalog asks by name, on the ids it names: planned.

The calibrated off-catalog verdict (:mod:`schemarouter.retrieval.abstention`) reads how
closely the request's words and embedding meet a route's; a short Korean request meets an
English catalog in few words, so "예약 A-1002 확정해줘" (confirm appointment A-1002) was
refused on an appointment API (best relevance 0.02 < 0.03) whose best-ranked route was
``POST /appointments/{appointment_id}/confirm``. Where the best-ranked route is a change
named for the verb the request asks (:func:`~schemarouter.retrieval.actions.request_verbs`:
확정 reads as confirm), and every identifier it needs is one the request names after its
thing, or before its Korean word (예약 A-1002, A-1002 예약: the appointment's; read as planning
reads them, :mod:`.contrasted_ids`), the request names what the route does and what to
do it to: :func:`asked_on_named` keeps it, and the plan says it was flagged. A read, a
change of another verb ("승인", approve, for a confirm), or a route needing an id the
request does not give are refused as before; the plan's other rules (a change said not to
do, a condition) apply to it as to any.

A change that sets a state is asked as people say it, not by the route's verb: "move D-15 to
closed won", "mark T-4 as closed", "put T-4 on hold" were refused on a ``set_ticket_status``
(update) whose ``status`` lists ``closed``, ``on_hold`` (best relevance 0.00-0.02 < 0.03).
An update among the :data:`_NEAR` best whose enum parameter takes a value the request names,
or the state its verb leaves ("close T-4": ``closed``; :func:`state_named`), is asked where
no registered route is named for the request's own verb (a "close" route is what "mark T-4
as closed" asks). And an id written right after the verb ("set T-4 to ...": its thing word
is the verb) is the one id such a route needs where it is the only id the request names
(:func:`_lone_id`); an id after another thing's word ("subscription NF-22") never is.
A part opened by a change verb that neither sets ("set", "mark", "put", "move" ...) nor
leaves the state named asks no state: "delete T-4, it's closed" and "escalate T-4 because it
is on hold" (no delete or escalate route registered) set T-4's status (the twentieth review);
they are refused as flagged (:func:`_verbs_set`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.contrasted_ids import contrasted_ids
from schemarouter.planning.enum_values import enum_value, state_forms
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import request_verbs, verb_of, verb_of_route
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue, bind_parameters
from schemarouter.retrieval.clauses import without_refused
from schemarouter.retrieval.identifiers import needed_parameters

__all__ = ["asked_on_named", "refusal"]


def asked_on_named(
    query: str, snapshot: RegistrySnapshot, ranked: Sequence[str], values: Sequence[BoundValue]
) -> str | None:
    """The best-ranked of ``ranked`` where it is a change named for a verb ``query`` asks, or
    the first of the :data:`_NEAR` best that is an update to a state the request names
    (:func:`state_named`), and ``values`` (the request's) give every identifier it needs,
    none in a clause that says not to (module docstring); else ``None``."""
    asked = request_verbs(query)
    # the ids planning reads: "A-1002 예약 확정해줘" names the appointment's after its id
    values = without_refused(contrasted_ids(values, query, snapshot), query)  # not "... 하지 마"
    for at, route_id in enumerate(ranked[:_NEAR]):
        route = snapshot.routes.get(route_id)
        if route is None or route.endpoint.effect is Effect.READ:
            continue
        verb = verb_of_route(route)
        needed = [name for name, _ in needed_parameters(route)]
        if verb is None or not needed:
            continue
        if not (
            (verb in asked and at == 0)
            or (verb == "update" and state_named(query, snapshot, route))
        ):
            continue
        bound = bind_parameters(route, values)
        if all(name in bound for name in needed) or (len(needed) == 1 and _lone_id(values)):
            return route.route_id
    return None


#: How far down the ranking an update to a state the request names is looked for ("put T-4
#: on hold": ``update_deal_stage`` ranked above ``set_ticket_status``, the one with on_hold).
_NEAR = 3


def state_named(query: str, snapshot: RegistrySnapshot, route: Route) -> bool:
    """Whether ``query`` names a value one of ``route``'s enum parameters takes ("closed won"
    of ``closed_won``, or "close" of ``closed``: the state its verb leaves) and asks no change
    by another verb, one another registered route does ("set T-4 to in progress" asks the
    update any update does)."""
    if (request_verbs(query) - {"update"}) & snapshot.derived("routes.verbs", _verbs):
        return False
    states = [enum_value(p, query, change=True) for p in route.endpoint.parameters]
    return any(state is not None and _verbs_set(query, state) for state in states)


#: Words that open a part setting a state whatever it is ("put T-4 on hold", "mark ... as").
_SETTING = frozenset({"set", "put", "mark", "move", "change", "make", "switch", "turn", "update"})
#: The word a part opens with (after "and", "then", a comma ...), as ``enum_values`` reads it.
_OPENING = re.compile(
    r"(?:^|[.;:!?,]|\b(?:and|then|also|please|now)\b)\s*(?:please\s+)?([A-Za-z]+)(?![\w-])",
    re.IGNORECASE,
)


def _verbs_set(query: str, state: object) -> bool:
    """Whether every change verb a part of ``query`` opens with sets ``state``: a verb of
    setting, or one that leaves it ("close" of ``closed``, "reopen" of ``open``)."""
    words = {m.group(1).lower() for m in _OPENING.finditer(query)}
    changes = {w for w in words if verb_of(w) is not None}
    return all(w in _SETTING or str(state).lower() in state_forms(w) for w in changes)


def _verbs(snapshot: RegistrySnapshot) -> frozenset[str]:
    """The changes the registered routes are named for."""
    return frozenset(v for r in snapshot.routes.values() if (v := verb_of_route(r)) is not None)


def _lone_id(values: Sequence[BoundValue]) -> bool:
    """Whether the request names one id, written right after its verb ("set T-4 to open")."""
    ids = [v for v in values if v.kind == NAMED_IDENTIFIER]
    return len(ids) == 1 and (ids[0].of is None or verb_of(ids[0].of) is not None)


def refusal(
    flagged: str,
    query: str,
    snapshot: RegistrySnapshot,
    ranked: Sequence[str],
    values: Sequence[BoundValue],
) -> str:
    """Why the plan refuses ``query``: the off-catalog verdict's reason ``flagged`` (``""``:
    not flagged), unless it asks a change on the ids it names (:func:`asked_on_named`)."""
    return "" if flagged and asked_on_named(query, snapshot, ranked, values) else flagged
