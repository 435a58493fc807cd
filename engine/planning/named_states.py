"""A state the request names is set by the update that takes it, not by the one ranked first.

"put T-4 on hold" on a desk whose ``update_deal_stage(deal_id, stage)`` ranked above
``set_ticket_status(ticket_id, status)`` planned the deal's update with nothing to fill
(``on hold`` is no stage, ``T-4`` no deal's id by its name), where the ticket's update takes
both: the state (``status``: ``on_hold``) and the id. Where the best eligible route is an
update that takes no state the request names (an enum value it writes, "on hold" of
``on_hold``, or the state its verb leaves, "close" of ``closed``:
:func:`~schemarouter.planning.enum_values.enum_value`), the first of the
:data:`~schemarouter.planning.refusals.READ_DEPTH` best that is an update taking one, and an
id the request names where it names any, is planned first (:func:`named_state_first`). A best
that reads is :func:`~schemarouter.planning.asked_changes.asked_change_first`'s to pass over;
a create keeps its place: the state it is told is its new entry's (trial 20's "create a deal
for Initech ..., stage proposal" planned ``update_deal_stage`` when a create ranked first
was passed over too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.enum_values import enum_value
from schemarouter.planning.refusals import READ_DEPTH, planned_first
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import verb_of_route

__all__ = ["named_state_first"]


def named_state_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    warnings: list[str],
    takes: Callable[[Route], bool] | None,
) -> list[str]:
    """``eligible`` (best first), with the update that takes the state the request names
    first where the best is a change taking none (module docstring); ``takes``: whether a
    route takes an id the request names (``None``: it names none)."""
    if not eligible:
        return []
    routes = snapshot.routes
    top = routes[eligible[0]]
    if verb_of_route(top) != "update" or _state(top, query) is not None:
        return list(eligible)  # a create states its new entry's values ("..., stage proposal")
    for route_id in eligible[1:READ_DEPTH]:
        route = routes[route_id]
        if route.endpoint.effect is Effect.READ or verb_of_route(route) != "update":
            continue
        state = _state(route, query)
        if state is not None and (takes is None or takes(route)):
            why = f"the request names the state {state!r}, so {route_id}, an update that takes it,"
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)


def _state(route: Route, query: str) -> object:
    """The first state ``query`` names that one of ``route``'s enum parameters (or its
    body's properties) takes."""
    fields = body_fields(route)
    for parameter in [*route.endpoint.parameters, *(fields.properties if fields else ())]:
        state = enum_value(parameter, query, change=True)
        if state is not None:
            return state
    return None
