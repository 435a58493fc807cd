"""The route that takes every key the request writes, before one that takes fewer.

With a thing's key read beside its word (:func:`~.keyed_names.keyed_name`: "project web",
"the old-banner flag"), a route that takes fewer of the keys than the request writes can be
planned complete: "delete the old-banner flag in project web" ranked ``delete_project``
first on a small feature-flag API, and with ``projectKey`` filled it would have deleted the
project. :func:`most_keyed_first` plans first the route of the same provider, effect and
verb among the :data:`~.refusals.READ_DEPTH` best that takes every key the best takes and
more of those written (``delete_feature_flag``: the project's and the flag's), and says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemarouter.contracts import Route
from schemarouter.planning.keyed_names import keyed_name
from schemarouter.planning.refusals import READ_DEPTH, planned_first
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import verb_of_route

__all__ = ["most_keyed_first"]


def _keys(route: Route, query: str) -> set[tuple[str, str]]:
    """The keys ``route``'s parameters take from ``query``, each as (value, parameter)."""
    found = set()
    for parameter in route.endpoint.parameters:
        value = keyed_name(parameter, query)
        if isinstance(value, str):
            found.add((value, parameter.name))
    return found


def most_keyed_first(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), with the route taking more of the written keys first (see
    the module docstring)."""
    if len(eligible) < 2:
        return list(eligible)
    routes = snapshot.routes
    top = routes[eligible[0]]
    taken = {value for value, _ in _keys(top, query)}
    if not taken:
        return list(eligible)
    for route_id in eligible[1:READ_DEPTH]:
        route = routes[route_id]
        if (
            route.provider.id != top.provider.id
            or route.endpoint.effect is not top.endpoint.effect
            or verb_of_route(route) != verb_of_route(top)
        ):
            continue
        more = {value for value, _ in _keys(route, query)}
        if taken < more:
            written = ", ".join(repr(v) for v in sorted(more - taken))
            why = f"the request writes {written}, which {eligible[0]} does not take, so {route_id}"
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)
