"""The things a read asks for, of the thing whose id it names.

"What appointments does patient P-100 have?" and "List the employees in department D-10" ask
for appointments and employees, those of one patient and one department. The id's thing ranks
high (its get takes the id the request names: the HR trial's `get_department`, the clinic
trial's `get_patient` planned first), but its get answers with the patient, not the
appointments. :func:`asked_list_first` plans, in its place, the list of the things the request
names in the plural that filters by that id (``list_appointments(patient_id=P-100)``), where
one is among the :data:`~.refusals.READ_DEPTH` best, and says so.

Read narrowly: a read request (it asks no change), one id of a named thing, the best route a
read that takes that thing's id, a plural noun of another thing written in the request, and a
read of that thing (its name's last word, or its path's last segment) that takes the id's thing
as a parameter of its own (``patient_id``, ``departmentId``), never the request's words alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemarouter.contracts import Effect, Route
from schemarouter.planning.asked_changes import asked_verbs
from schemarouter.planning.refusals import READ_DEPTH, planned_first
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import name_words
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.identifiers import (
    identifier_thing,
    is_plural,
    is_template,
    path_segments,
    stem,
)

__all__ = ["asked_list_first", "read_thing"]

_WORD = re.compile(r"[A-Za-z]+")


def _thing(route: Route) -> str:
    """The stem of what ``route`` reads: its path's last segment that is no template, else
    its name's last word."""
    segments = [s for s in path_segments(route) if not is_template(s)]
    if segments and not is_template(path_segments(route)[-1]):
        return stem(re.sub(r"[^a-z]", "", segments[-1].lower()))
    words = name_words(route.endpoint.name)
    return stem(words[-1]) if words else ""


#: The stem of what a route reads (``get_order`` and ``list_orders``: "order").
read_thing = _thing


def _takes_id_of(route: Route, owner: str) -> bool:
    return any(identifier_thing(p.name) == owner for p in route.endpoint.parameters)


def asked_list_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[str]:
    """``eligible`` (best first), with the list of the things the request asks for, of the
    thing whose id it names, first (see the module's notes)."""
    named = [v for v in values if v.kind == NAMED_IDENTIFIER and v.of]
    if not eligible or len(named) != 1 or asked_verbs(query):
        return list(eligible)
    owner = stem(named[0].of or "")
    top = snapshot.routes[eligible[0]]
    if top.endpoint.effect is not Effect.READ or not _takes_id_of(top, owner):
        return list(eligible)
    asked = {stem(w) for w in _WORD.findall(query) if is_plural(w)} - {owner, _thing(top)}
    if not asked:
        return list(eligible)
    for route_id in eligible[1:READ_DEPTH]:
        route = snapshot.routes[route_id]
        if route.endpoint.effect is not Effect.READ or route.provider.id != top.provider.id:
            continue
        if _thing(route) in asked and _takes_id_of(route, owner):
            why = (
                f"the request asks for the {_thing(route)}s of {named[0].of} "
                f"{named[0].value!r}: {route_id}, which lists them by it,"
            )
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)
