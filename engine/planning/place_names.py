"""A place a parameter names, written after its preposition: "to Lyon, FR", "in Dijon".

Trial 15: "Create a reefer shipment from warehouse WH-3 to Lyon, FR, ..." left
``destination_city`` open (the create was refused), and "Record a delay event for shipment
S-310 in Dijon" sent ``{"event_type": "delay"}``, the optional ``location`` dropped. A text
parameter named for a place (``city``, ``town``, ``location``, ``place``, with a side's word
before it or not: ``destination_city``) takes the place name the request writes after a
preposition: one to three capitalized words ("Lyon", "New York"), ended by a comma, a stop,
a conjunction or the request's end, never a month's or a weekday's name nor a word of an id
("to warehouse WH-7" names no place). A side's parameter (:func:`~.sided_ids.name_side`)
reads its side's preposition ("to" / "into" for ``destination_city``, "from" for
``origin_city``); one with none reads "in", "at" and "near" (a location), and a city "to"
and "from" as well. Only one place so written fills it (two name no one place), outside a
clause that says not to use it, and the value still has to pass the parameter's schema.
"""

from __future__ import annotations

import re

from schemarouter.contracts import Parameter
from schemarouter.planning.named_values import valid
from schemarouter.planning.sided_ids import name_side
from schemarouter.retrieval.clauses import Clauses
from schemarouter.retrieval.values import value_schema

__all__ = ["place_value"]

_NAME = re.compile(r"(?:^|_)(city|town|location|place|locality)(?:_?name)?$", re.IGNORECASE)
_WORD = r"[A-Z][a-zà-öø-ÿ'’]+"
_WRITTEN = re.compile(
    rf"\b(to|into|from|in|at|near)\s+({_WORD}(?:[ -]{_WORD}){{0,2}})"
    r"(?=\s*(?:[,.;!?]|$|\s(?:and|or|then|on|by|for|with|at|before|after|because)\b))"
)
_NOT_PLACES = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "today",
        "tomorrow",
    ]
)
_READS = {
    "to": ("to", "into"),
    "from": ("from",),
    None: ("in", "at", "near"),
}


def place_value(parameter: Parameter, query: str, clauses: Clauses) -> str | None:
    """The one place ``query`` writes for ``parameter`` (module docstring); else ``None``."""
    named = _NAME.search(re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name))
    schema = value_schema(parameter.json_schema)
    if (
        named is None
        or schema.get("type", "string") != "string"
        or {"enum", "format"} & set(schema)
    ):
        return None
    side = name_side(parameter.name)
    reads = _READS[side]
    if side is None and named.group(1).lower() in ("city", "town"):
        reads = (*reads, "to", "into", "from")
    places = {
        m.group(2)
        for m in _WRITTEN.finditer(query)
        if m.group(1) in reads
        and m.group(2).lower() not in _NOT_PLACES
        and not clauses.against_span(m.start(2), m.end(2))
    }
    if len(places) != 1:
        return None
    place = next(iter(places))
    return place if valid(parameter, place) else None
