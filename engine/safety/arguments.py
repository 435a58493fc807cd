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
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from schemarouter.safety import patterns

__all__ = ["READ_ONLY_KEY", "argument_validator"]

#: Keyword of a request schema's object: the ``readOnly`` property names it does not offer.
READ_ONLY_KEY = "x-schemarouter-read-only"

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
        {READ_ONLY_KEY: _read_only, "additionalProperties": _additional_properties},
    )
    return functools.partial(extended, format_checker=checker)


@functools.lru_cache(maxsize=4096)
def _argument_validator_for(schema_json: str) -> Any:
    return _argument_class()(patterns._plain(json.loads(schema_json)))


def argument_validator(schema: Mapping[str, Any]) -> Any:
    """A cached validator of arguments against ``schema``: the one outputs share
    (:func:`schemarouter.contracts.schema_validator`) with the checks above."""
    return _argument_validator_for(json.dumps(schema, sort_keys=True, default=str))
