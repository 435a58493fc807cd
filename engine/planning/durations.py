"""A duration the request writes in another unit than the one a parameter's name ends with.

``silence_alert(alert_id, duration_minutes)`` asked "for 2 hours" or "for 30m" stayed missing
(trial 16): a number binds to ``duration_minutes`` only when written in minutes
(:data:`~schemarouter.planning.unit_words.NAME_UNITS`). A parameter whose name ends with a unit
of time (``_seconds``, ``_secs``, ``_minutes``, ``_mins``, ``_hours``, ``_days``) takes the one
duration the request writes in any unit of time, converted ("2 hours": 120 minutes; "1h30m":
90; "30m" is minutes here, as an operator writes it), where the schema takes the result (an
integer parameter takes no 1.5 minutes).

A duration that tells when ("raised 3 days ago", "2 hours from now") is no length, an id is
no duration ("A-90m"), and a parameter so named takes no number by its unit alone: "for 2
hours and 30 minutes" is 150 minutes, never the 30 written in minutes, and "2 hours or 30
minutes" fills nothing (review 17: both sent 30; "3 days ago" sent 4320).
"""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter
from schemarouter.errors import UnitError
from schemarouter.planning.quantities import declared_unit
from schemarouter.retrieval.values import value_schema
from schemarouter.units import dimension_of

#: Seconds per unit a parameter's name may end with.
_NAMED = {
    "seconds": 1, "secs": 1, "sec": 1, "s": 1,
    "minutes": 60, "mins": 60, "min": 60,
    "hours": 3600, "hrs": 3600, "h": 3600,
    "days": 86400,
}  # fmt: skip
#: How a request writes a unit of time after a number, and its seconds.
_WRITTEN = (
    (r"s|secs?|seconds?|초", 1),
    (r"m|mins?|minutes?|분", 60),
    (r"h|hrs?|hours?|시간", 3600),
    (r"d|days?|일", 86400),
)
_UNIT = "|".join(f"(?:{spelled})" for spelled, _ in _WRITTEN)
#: A duration: one or more number-unit pairs written together ("1h30m", "1 hour 30 minutes"),
#: a word of its own: never a piece of a name or an id ("checkout-5d9f-x2" is no 5 days).
_DURATION = re.compile(
    rf"(?<![\w.-])(?:\d+(?:\.\d+)?\s?(?:{_UNIT})(?![A-Za-z])(?:\s?(?:and\s)?)?)+(?![A-Za-z0-9_-])",
    re.IGNORECASE,
)
#: What makes a duration a point in time, not a length: "raised 3 days ago".
_WHEN = re.compile(
    r"\s*(?:ago|earlier|before|back|old|late|later|after|since|from\s+now|behind)\b", re.IGNORECASE
)
_PAIR = re.compile(rf"(\d+(?:\.\d+)?)\s?({_UNIT})(?![A-Za-z])", re.IGNORECASE)


def timed_name(parameter: Parameter) -> bool:
    """Whether ``parameter``'s name ends with a unit of time (``duration_minutes``): its number
    is :func:`duration_value`'s to read, in any unit the request writes."""
    return _per(parameter) is not None


def _per(parameter: Parameter) -> int | None:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", parameter.name).lower()
    return _NAMED.get(name.rsplit("_", 1)[-1]) if "_" in name else None


def _seconds(unit: str) -> int:
    return next(s for spelled, s in _WRITTEN if re.fullmatch(spelled, unit, re.IGNORECASE))


def duration_value(parameter: Parameter, query: str) -> Any:
    """The one duration ``query`` writes, in the unit ``parameter``'s name ends with."""
    schema = value_schema(parameter.json_schema)
    kind = schema.get("type")
    per = _per(parameter)
    if kind not in ("integer", "number") or per is None or not _in_time(parameter):
        return None
    totals = {
        sum(float(n) * _seconds(u) for n, u in _PAIR.findall(m.group(0)))
        for m in _DURATION.finditer(query)
        if not _WHEN.match(query, m.end())  # "3 days ago" is when, not how long
    }
    if len(totals) != 1:
        return None
    value = totals.pop() / per
    if kind == "integer":
        return int(value) if value.is_integer() else None
    return value


def _in_time(parameter: Parameter) -> bool:
    """Whether ``parameter`` declares no unit, or one of time: ``pressure_min`` "(unit: kPa)"
    is a lower bound, never minutes (trial 17: "open valve V-8 for 45 minutes" sent
    ``pressure_min=45``)."""
    declared = declared_unit(parameter)
    if declared is None:
        return True
    try:
        return dimension_of(declared) == "[time]"
    except UnitError:
        return True
