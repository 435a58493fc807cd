"""A type cell of human API docs read: its JSON type, whether it is required, its unit and a
string's format (``number, kg``, ``string (date-time)``, ``integer, required``)."""

from __future__ import annotations

import re

from schemarouter.errors import UnitError
from schemarouter.units import parse_unit

__all__ = ["UNIT", "doc_format", "doc_type", "unit_word"]

#: A type word of the docs, as a JSON type.
_TYPES = {
    "string": "string",
    "str": "string",
    "text": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "object": "object",
    "dict": "object",
}
#: ``unit: eV`` in a type cell or a bullet's words.
UNIT = re.compile(r"\bunits?\s*[:=]\s*`?([^\s,;)`]+)", re.IGNORECASE)
#: Words in a type cell or a bullet's parentheses that are never its unit (pint reads some).
_NOT_UNIT = re.compile(r"\b(required|optional|nullable|default|in|array|list|of)\b", re.I)


def _required(words: str) -> bool:
    """Whether a bullet's words say the parameter is required: "required", but not "not
    required", "required: no", "optional", nor a condition ("required when z is set")."""
    words = words.lower()
    if re.search(
        r"\b(optional|not\s+required|non-required|required\s*[:=]\s*(no|false|n)\b)"
        r"|\brequired\s+(when|if|unless|only)\b",
        words,
    ):
        return False
    return bool(re.search(r"\brequired\b", words))


_FORMAT = re.compile(r"\b(date-?time|date)\b", re.IGNORECASE)


def doc_format(words: str) -> str | None:
    """The format a type cell or a bullet's parentheses give a string: ``string (date-time)``,
    ``datetime``, ``date``."""
    found = _FORMAT.search(words)
    return None if not found else "date" if found.group(1).lower() == "date" else "date-time"


def doc_type(words: str) -> tuple[str | None, bool, str | None]:
    """(JSON type, required, unit) from the words in a bullet's parentheses: the unit as
    ``unit: eV`` or as a part of its own beside the type (``number, kg``)."""
    kind = None
    for word in re.split(r"[\s,;/]+", words.lower()):
        if word in _TYPES and kind is None:
            kind = _TYPES[word]
    required = _required(words)
    unit = UNIT.search(words)
    if unit:
        return kind, required, unit.group(1)
    parts = [p.strip() for p in re.split(r"[,;]", words)] if kind else []
    parts = [re.sub(r"^in\s+", "", p) for p in parts[1:]]  # "number, in K"
    return kind, required, next((p for p in parts if unit_word(p)), None)


def unit_word(text: str) -> bool:
    """Whether ``text`` (a part of a bullet's parentheses: ``kg``, ``eV/atom``, ``%``) is a
    unit pint reads, and nothing else: not a type, not "required" / "optional", not a
    dimensionless word other than a percentage."""
    if not 0 < len(text) <= 16 or text.lower() in _TYPES or _NOT_UNIT.search(text):
        return False
    if text in ("C", "F", "a", "c", "f"):  # pint's coulomb, farad, annum...: docs mean °C
        return False
    try:
        parsed = parse_unit(text)
    except UnitError:
        return False
    return not parsed.dimensionless or text.lower() in ("%", "percent")
