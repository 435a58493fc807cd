"""A value stated as an entry's new state: "parcel P-22 weighs 12 lb now" asks the change.

Trial 15's "parcel P-22 weighs 12 lb now" names no verb of change, so the read ranked first
(``getParcel``) was planned and the update of the parcel's weight, ranked second, was not:
the new weight was reported to a read. A statement that gives an entry a number "now" ("12 lb
now", "is now 12 kg") and asks no question states the entry's new value, which only a change
records.

Where the best eligible route reads, the request is no question, and it writes a number with
"now" beside it (:func:`stated_number`), the first of the
:data:`~schemarouter.planning.refusals.READ_DEPTH` best routes that writes (no create, no
delete), takes an id the request names, and takes a number in the stated unit's dimension (or
any number, where none is written) is planned first (:func:`stated_change_first`). The number
itself is filled by the usual rules: a unit the parameter is not in ("12 lb" for
``weight_kg``) is converted (:mod:`.stated_units`), one of another dimension left for the
caller, and the change then says what it is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from schemarouter.contracts import Effect, Parameter, Route
from schemarouter.errors import UnitError
from schemarouter.planning.body import body_fields
from schemarouter.planning.links import created
from schemarouter.planning.questions import asks_whether
from schemarouter.planning.refusals import READ_DEPTH, planned_first, unquoted
from schemarouter.planning.unit_words import NAME_UNITS
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.identifiers import names_identifier
from schemarouter.retrieval.values import value_schema
from schemarouter.units import dimension_of

__all__ = ["stated_change_first", "stated_number"]

_NUMBER = r"(?<![\w.-])\d+(?:\.\d+)?"
#: "12 lb now", "12 now", "now 12 kg", "is now 12 kg", "weighs now 12": a number and its unit
#: (a word or a sign) right before or after "now".
_STATED = re.compile(
    rf"({_NUMBER})\s*([A-Za-z°%]+\b)?\s+now\b"
    rf"|\bnow\s+(?:[a-z]+\s+)?({_NUMBER})\s*([A-Za-z°%]+\b)?",
    re.IGNORECASE,
)
#: A question written as one ("... now?", "what ... now").
_QUESTION = re.compile(r"\?\s*$|^\W*(?:what|which|how|who|where|when|is|are|does|do)\b", re.I)


def stated_number(query: str) -> tuple[str, str] | None:
    """The number (and the unit written with it, or ``""``) ``query`` states as a new value:
    one number with "now" beside it, in a request that asks no question; ``None`` else."""
    text = unquoted(query)
    if _QUESTION.search(text) or asks_whether(text):
        return None
    found = {
        (m.group(1) or m.group(3), (m.group(2) or m.group(4) or "").lower())
        for m in _STATED.finditer(text)
    }
    return next(iter(found)) if len(found) == 1 else None


def _dimension(unit: str) -> str | None:
    try:
        return dimension_of(unit)
    except (UnitError, ValueError):
        return None


def _unit_of(parameter: Parameter) -> str | None:
    """The unit ``parameter`` is declared in (``x-unit``) or its name ends with (``_kg``)."""
    declared = parameter.json_schema.get("x-unit")
    if isinstance(declared, str):
        return declared
    tail = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower().rsplit("_", 1)
    return tail[1] if len(tail) == 2 and tail[1] in NAME_UNITS else None


def _takes_number(route: Route, unit: str) -> bool:
    """Whether ``route`` takes a number (no id) in ``unit``'s dimension (any, for ``""``)."""
    body = body_fields(route)
    taken = [*route.endpoint.parameters, *(body.properties if body is not None else ())]
    numbers = [
        p
        for p in taken
        if value_schema(p.json_schema).get("type") in ("number", "integer")
        and not names_identifier(p.name)
    ]
    if not unit or not numbers:
        return bool(numbers)
    wanted = _dimension(unit)
    if wanted is None:
        return False
    return any((of := _unit_of(p)) is not None and _dimension(of) == wanted for p in numbers)


def stated_change_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    warnings: list[str],
    takes_named: Callable[[Route], bool],
) -> list[str]:
    """``eligible`` (best first), with the change that records a stated new value first where
    the best reads (module docstring); ``takes_named``: whether a route takes an id the
    request names."""
    if not eligible or snapshot.routes[eligible[0]].endpoint.effect is not Effect.READ:
        return list(eligible)
    stated = stated_number(query)
    if stated is None:
        return list(eligible)
    number, unit = stated
    for route_id in eligible[1:READ_DEPTH]:
        route = snapshot.routes[route_id]
        if route.endpoint.effect is not Effect.WRITE or created(route) is not None:
            continue
        if takes_named(route) and _takes_number(route, unit):
            said = f"{number} {unit}".strip()
            why = (
                f"the request states a new value ({said!r} now) and asks no question, so "
                f"{route_id}, a change that takes it,"
            )
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)
