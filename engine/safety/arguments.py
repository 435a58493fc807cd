"""What the gate checks in an agent's arguments beyond the validator outputs share.

Two checks apply to arguments only (a server's answer is read as before):

- ``readOnly`` properties sent in a request body. A request schema leaves them out
  (:func:`schemarouter.adapters._read_write.request_schema`), so an open object let them pass
  as undeclared keys, and the server got a forged ``id`` or ``created_at``. The request schema
  names them under :data:`READ_ONLY_KEY` on the object that declared them; here a value under
  one of those names is refused, naming it and that it is read-only (and ``additionalProperties``
  leaves it to that message).
- ``format`` for ``date``, ``date-time``, ``uuid`` and ``email``: small checks of our own
  (no extra package, and the same on every machine), not ``jsonschema``'s ``FormatChecker``,
  whose ``date-time`` needs an optional package and whose ``email`` only looks for an ``@``.
  A ``date-time`` is an RFC 3339 date and time; its offset may be left out, as many servers
  take local time. Other formats stay annotations.
- property names inside a text argument a server reads as a query language: an OPTIMADE
  ``response_fields`` (:data:`FIELD_LIST_KEY`: comma-separated names) and ``filter``
  (:data:`FILTER_PROPERTIES_KEY`: the property names of a filter expression, string literals
  skipped) may name only the properties the route registers. A schema says nothing of what
  a string means, so ``response_fields="_secret"`` returned a property no registration
  declares, and ``filter='_secret="x"'`` asked the server about one (trial O).
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from schemarouter.safety import patterns

__all__ = [
    "FIELD_LIST_KEY",
    "FILTER_PROPERTIES_KEY",
    "FILTER_SEMANTIC_ID",
    "READ_ONLY_KEY",
    "argument_validator",
]

#: Keyword of a request schema's object: the ``readOnly`` property names it does not offer.
READ_ONLY_KEY = "x-schemarouter-read-only"
#: Keyword of a comma-separated list of property names (``response_fields``, ``sort``, where
#: a name may have a leading ``-``): the names it may hold.
FIELD_LIST_KEY = "x-schemarouter-field-names"
#: Keyword of an OPTIMADE filter expression (``filter``): the property names it may use.
FILTER_PROPERTIES_KEY = "x-schemarouter-filter-properties"
#: The semantic id of an OPTIMADE filter parameter (the adapter's and the catalogs').
FILTER_SEMANTIC_ID = "query.optimade_filter"

#: An OPTIMADE filter's tokens: a string literal, a number, a (dotted) name, anything else
#: (an unclosed quote is one character, and the names after it are read as names).
_FILTER_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"'
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    r"|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|.",
    re.DOTALL,
)
#: The OPTIMADE filter grammar's keywords (upper case), which name no property.
_FILTER_KEYWORDS = frozenset(
    {
        "AND",
        "OR",
        "NOT",
        "HAS",
        "ALL",
        "ANY",
        "ONLY",
        "IS",
        "KNOWN",
        "UNKNOWN",
        "CONTAINS",
        "STARTS",
        "ENDS",
        "WITH",
        "LENGTH",
        "TRUE",
        "FALSE",
    }
)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?$"
)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


def _is_date(text: str) -> bool:
    try:
        return bool(_DATE.match(text)) and bool(datetime.date.fromisoformat(text))
    except ValueError:
        return False


def _is_date_time(text: str) -> bool:
    match = _DATE_TIME.match(text)
    if match is None or not _is_date(match[1]):
        return False
    hour, minute, second = int(match[2]), int(match[3]), int(match[4])
    return hour < 24 and minute < 60 and second <= 60  # 60: a leap second


_FORMATS = {
    "date": _is_date,
    "date-time": _is_date_time,
    "uuid": lambda text: bool(_UUID.match(text)),
    "email": lambda text: bool(_EMAIL.match(text)),
}


def _read_only(validator: Any, names: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not (validator.is_type(instance, "object") and isinstance(names, list)):
        return
    for name in names:
        if name in instance:
            yield ValidationError(
                f"{name!r} is readOnly: the server sets it, a request does not send it",
                path=(name,),
            )


def _unregistered(names: list[str], allowed: Any) -> list[str]:
    known = set(allowed) if isinstance(allowed, list) else set()
    return list(dict.fromkeys(n for n in names if n not in known))


def _refused_names(what: str, unknown: list[str], allowed: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    listed = ", ".join(repr(n[:80]) for n in unknown[:5])
    offered = ", ".join(sorted(str(a) for a in allowed)) if isinstance(allowed, list) else ""
    return ValidationError(
        f"{what} names {listed}, which the route does not register (registered: "
        f"{offered or 'none'})"
    )


def _field_names(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not isinstance(instance, str):
        return
    names = [n.strip().removeprefix("-") for n in instance.split(",") if n.strip()]
    unknown = _unregistered(names, allowed)
    if unknown:
        yield _refused_names("the list", unknown, allowed)


def filter_properties(expression: str) -> list[str]:
    """The property names an OPTIMADE filter expression uses (its keywords and the text of
    its string literals are none), in order, each once."""
    names = []
    for match in _FILTER_TOKEN.finditer(expression):
        name = match.group(1)
        if name and name not in _FILTER_KEYWORDS:
            names.append(name)
    return list(dict.fromkeys(names))


def _filter_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not isinstance(instance, str):
        return
    unknown = _unregistered(filter_properties(instance), allowed)
    if unknown:
        yield _refused_names("the filter", unknown, allowed)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    names = schema.get(READ_ONLY_KEY)
    if isinstance(names, list) and validator.is_type(instance, "object"):
        instance = {k: v for k, v in instance.items() if k not in names}
    yield from patterns._additional_properties(validator, additional, instance, schema)


@functools.cache
def _argument_class() -> Any:
    from jsonschema import FormatChecker, validators

    checker = FormatChecker(formats=())
    for name, check in _FORMATS.items():
        checker.checks(name)(lambda value, check=check: not isinstance(value, str) or check(value))
    base = patterns._validator_class()
    extended = validators.extend(
        base,
        {
            READ_ONLY_KEY: _read_only,
            FIELD_LIST_KEY: _field_names,
            FILTER_PROPERTIES_KEY: _filter_properties,
            "additionalProperties": _additional_properties,
        },
    )
    return functools.partial(extended, format_checker=checker)


@functools.lru_cache(maxsize=4096)
def _argument_validator_for(schema_json: str) -> Any:
    return _argument_class()(patterns._plain(json.loads(schema_json)))


def argument_validator(schema: Mapping[str, Any]) -> Any:
    """A cached validator of arguments against ``schema``: the one outputs share
    (:func:`schemarouter.contracts.schema_validator`) with the checks above."""
    return _argument_validator_for(json.dumps(schema, sort_keys=True, default=str))
