"""A part of a request whose best route does the very change the part opens with, planned
though the encoder finds the two far apart.

A part is planned by its best route only where the encoder's cosine to it reaches the part
floor (:data:`~schemarouter.retrieval.intents.DEFAULT_MIN_SIMILARITY`): "it's for four
people" moves nothing. A terse change of ids and names is far from any route's words by that
measure though its verb says which route does it: "close WO-1182 and also assign WO-1190 to
Lena" planned the close only, "assign WO-1190 to Lena" under the floor with
``assign_work_order`` its best; "acknowledge AL-81 and shelve it for 2 hours" likewise
(user trial 21: each write was dropped, with a warning). A part under the floor whose first
word (past "please" ...) is a change verb, one no table knows too, that its best route,
a write, does (:func:`~.asked_changes.does_change`: its name leads with the verb) is planned
as if its best were close enough, where the part's words fill every argument that route
requires; a read, a route doing another change, or one left wanting ("Change task T-1 due
date to next Friday" on an update whose body nothing fills: planned, it stopped the refund
beside it from being sent) still is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.arguments import fill_arguments, missing_parameters
from schemarouter.planning.asked_changes import does_change
from schemarouter.planning.parts import Request, own_part
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import is_read_verb, verb_of
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.intents import past_polite
from schemarouter.retrieval.sequence import where_written

__all__ = ["doing_parts"]


def _opening_verb(text: str) -> str | None:
    """The change ``text`` opens with: its first word past "please" ..., as a write verb's
    canonical change, or the word itself where no table knows it; ``None`` for a read verb."""
    words = past_polite(re.findall(r"[A-Za-z][\w-]*", text))
    if not words or not words[0].isalpha() or is_read_verb(words[0].lower()):
        return None
    return verb_of(words[0]) or words[0].lower()


def doing_parts(
    request: Request,
    values: Sequence[BoundValue],
    parts: Sequence[tuple[str, str]],
    misses: Sequence[tuple[str, str, str]],
    snapshot: RegistrySnapshot,
) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """``parts`` (``(words, route id)``) and ``misses`` (``(words, best route, why)``) with
    each "weak" miss whose best route does the change its words open with, its words filling
    every argument the route requires, moved to the parts, in the order the request writes
    them."""
    query = request.query

    def complete(route: Route, text: str) -> bool:
        own, kept = own_part(request, values, text)
        return not missing_parameters(route, fill_arguments(route, own.query, kept))

    taken = {route_id for _, route_id in parts}
    added: list[tuple[str, str]] = []
    left: list[tuple[str, str, str]] = []
    for text, route_id, why in misses:
        route = snapshot.routes.get(route_id)
        verb = _opening_verb(text) if why == "weak" and text else None
        if (
            verb is not None
            and route is not None
            and route.endpoint.effect is not Effect.READ
            and route_id not in taken
            and does_change(route, verb, text)
            and complete(route, text)
        ):
            added.append((text, route_id))
            taken.add(route_id)
        else:
            left.append((text, route_id, why))
    if not added:
        return list(parts), list(misses)
    ordered = sorted([*parts, *added], key=lambda part: where_written(query, part[0]))
    return ordered, left
