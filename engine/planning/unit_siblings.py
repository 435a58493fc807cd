"""Which of a route's numbers in one unit a quantity the request writes is for.

"Set the length of parcel P-9 to 60 cm" on ``PATCH /parcels/{parcel_id}`` with ``length_cm``,
``width_cm`` and ``height_cm`` sent all three as 60 (trial 15): each name ends with ``cm``, the
request writes one number in cm, and :func:`schemarouter.planning.arguments.fill_arguments`
gave that number to every parameter whose name ends with the unit. Where several numbers of
the route (its parameters, its body's properties) end with one unit, the quantity is the one
whose other words the request writes ("length"), and no other's; where it writes none of them,
or several, none takes it: which dimension is meant is unsaid.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.body import body_fields
from schemarouter.planning.quantities import numeric

__all__ = ["unit_named_for"]


def _words(name: str) -> list[str]:
    """``name``'s words, lower case (``heightCm`` and ``height_cm``: ``["height", "cm"]``)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return [w for w in re.split(r"[^a-z0-9]+", spaced) if w]


def unit_named_for(parameter: Parameter, route: Route, query: str) -> bool:
    """Whether a number ``query`` writes in the unit ``parameter``'s name ends with is its: it
    is the route's one number in that unit, or the one of several whose other words
    ("length" of ``length_cm``) the request writes, the others' not."""
    unit = _words(parameter.name)[-1:]
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    siblings = [p for p in taken if numeric(p) and _words(p.name)[-1:] == unit]
    if len(siblings) < 2:
        return True
    text = query.lower()

    def written(other: Parameter) -> bool:
        head = _words(other.name)[:-1]
        return bool(head) and all(re.search(rf"\b{re.escape(w)}\b", text) for w in head)

    named = [p.name for p in siblings if written(p)]
    return named == [parameter.name]
