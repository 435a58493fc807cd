"""Turning a thing on or off changes a field of it: never a create, never a delete.

"turn off the new-checkout flag in production for project web" planned LaunchDarkly's
``post_feature_flag`` (a create), ranked first, with ``delete_feature_flag`` second (trial
16): the request's "turn off" names no route's verb, and the create's words matched best.
Where the request asks only to turn something on or off (:data:`SWITCHES`, read by
:func:`~schemarouter.retrieval.actions.request_verbs`: "turn off", "switch on", "enable",
"disable") and no word of it asks a creation or a deletion ("disable and delete the
flag"), :func:`switched_in_place` takes out of the eligible routes those that create or
delete (by their verb, or an HTTP POST or DELETE); the write of the same provider among the
:data:`~.refusals.READ_DEPTH` best that is left with the fewest arguments missing is planned
first (``patch_feature_flag``, which takes the project and the flag written, before
``put_flag_setting``, which needs a user's too). A route named for the switch itself
(``enable_feature``, ``disable_user``) is no create and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.arguments import fill_arguments, missing_parameters
from schemarouter.planning.refusals import READ_DEPTH
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import request_verbs, verb_of, verb_of_route
from schemarouter.retrieval.analysis import BoundValue

__all__ = ["SWITCHES", "switched_in_place"]

#: The changes that turn a thing on or off, as ``request_verbs`` names them.
SWITCHES = frozenset(("enable", "disable", "activate", "deactivate"))
#: The changes a switch never is.
_MADE_OR_GONE = frozenset(("create", "delete"))
_WORD = re.compile(r"(?<![\w-])[A-Za-z]+(?![\w-])")
#: The verbs of a route that creates (an HTTP POST's ``post_feature_flag`` reads as "post").
_MAKES = frozenset(("create", "add", "post"))


def _makes_or_removes(route: Route) -> bool:
    """Whether ``route`` creates a thing (its verb's, or an HTTP POST no other verb names) or
    deletes one (its verb's, or an HTTP DELETE)."""
    verb = verb_of_route(route)
    method = route.endpoint.operation.method
    if verb == "delete" or method == "DELETE":
        return True
    return (verb in _MAKES and method in (None, "POST")) or (verb is None and method == "POST")


def switched_in_place(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[str]:
    """``eligible`` (best first) without the creates and deletes, where the request only
    turns something on or off (see the module docstring), the best change left first."""
    verbs = request_verbs(query)
    # every word's change, not only the request's: "disable and delete the flag" deletes
    # (a word of a key is none: "the new-checkout flag" asks nothing new)
    written = {verb_of(word) for word in _WORD.findall(query) if word.lower() != "new"}
    if not verbs & SWITCHES or (verbs | written) & _MADE_OR_GONE or not eligible:
        return list(eligible)
    routes = snapshot.routes
    dropped = [r for r in eligible if _makes_or_removes(routes[r])]
    if not dropped:
        return list(eligible)
    kept = [r for r in eligible if r not in dropped]
    top = routes[eligible[0]]
    changes = [
        r
        for r in kept[:READ_DEPTH]
        if routes[r].endpoint.effect is not Effect.READ and routes[r].provider.id == top.provider.id
    ]
    if changes:
        rank = {r: i for i, r in enumerate(changes)}

        def missing(route_id: str) -> int:
            route = routes[route_id]
            return len(missing_parameters(route, fill_arguments(route, query, values)))

        best = min(changes, key=lambda r: (missing(r), rank[r]))
        kept = [best, *(r for r in kept if r != best)]
    shown = ", ".join(dropped[:3]) + (f" and {len(dropped) - 3} more" if len(dropped) > 3 else "")
    warnings.append(
        f"the request turns something on or off, which creates and deletes nothing: {shown} "
        f"passed over{f', {kept[0]} planned' if kept else ''}"
    )
    return kept
