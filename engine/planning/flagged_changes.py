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
"""

from __future__ import annotations

from collections.abc import Sequence

from schemarouter.contracts import Effect
from schemarouter.planning.contrasted_ids import contrasted_ids
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import request_verbs, verb_of_route
from schemarouter.retrieval.analysis import BoundValue, bind_parameters
from schemarouter.retrieval.clauses import without_refused
from schemarouter.retrieval.identifiers import needed_parameters

__all__ = ["asked_on_named", "refusal"]


def asked_on_named(
    query: str, snapshot: RegistrySnapshot, ranked: Sequence[str], values: Sequence[BoundValue]
) -> str | None:
    """The best-ranked of ``ranked`` where it is a change named for a verb ``query`` asks and
    ``values`` (the request's) give every identifier it needs, none in a clause that says not
    to (module docstring); else ``None``."""
    route = snapshot.routes.get(ranked[0]) if ranked else None
    if route is None or route.endpoint.effect is Effect.READ:
        return None
    verb = verb_of_route(route)
    needed = [name for name, _ in needed_parameters(route)]
    if verb is None or verb not in request_verbs(query) or not needed:
        return None
    # the ids planning reads: "A-1002 예약 확정해줘" names the appointment's after its id
    values = contrasted_ids(values, query, snapshot)
    bound = bind_parameters(route, without_refused(values, query))  # not "A-1002 취소하지 마"
    return route.route_id if all(name in bound for name in needed) else None


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
