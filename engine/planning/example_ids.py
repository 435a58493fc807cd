"""The shape of an identifier a parameter's description shows by example ("The contact, like
C-3."), read as the pattern a schema's ``pattern`` would give.

User trial 20 (a sales team's CRM as typed Python functions, their Google-style ``Args:``
the descriptions): "add a note to C-2: prefers calls after 2pm", "draft an email to C-1 about
the demo" and "send an email to C-5 ..." left ``contact_id`` open, as no thing's word was
written before the id, and nothing was sent; the description said what a contact's id looks
like all along. An example after "like", "e.g.", "for example", "such as" or "example:",
or a schema's ``example`` / ``examples``, that is letters, an optional ``-``, ``_`` or ``:``
and digits (``C-3``, ``ORD-1001``, ``cus_42``) gives ``^C-[0-9]+$``: the letters and the
separator every id of that parameter writes, then any digits. Examples of two shapes give
none. :func:`~.id_patterns.bind_by_pattern` binds by it as by a declared pattern: one token
of the request fits it, no other open parameter's shape takes that token, and the schema
takes the value.
"""

from __future__ import annotations

import re
from typing import Any

from schemarouter.contracts import Parameter

__all__ = ["documented_pattern"]

#: An id: letters, an optional separator, digits.
_ONE = r"([A-Za-z]{1,12})([-_:]?)([0-9]{1,12})(?![\w-])"
#: The example ids written after the words that introduce them in a description ("like C-3",
#: "e.g. C-3 or P-4", "such as ORD-1, ORD-2").
_SAID = re.compile(
    r"\b(?:like|e\.\s?g\.?|eg|for\s+example|such\s+as|example:?|i\.\s?e\.?)\s*,?\s*[\"'`(]?"
    r"((?:[A-Za-z]{1,12}[-_:]?[0-9]{1,12})(?:\s*(?:,|/|\bor\b|\band\b)\s*[\"'`]?"
    r"[A-Za-z]{1,12}[-_:]?[0-9]{1,12})*)(?![\w-])"
)
_IN_LIST = re.compile(_ONE)
#: An example id as a schema's ``example`` holds it.
_ID = re.compile(r"([A-Za-z]{1,12})([-_:]?)([0-9]{1,12})")


def documented_pattern(parameter: Parameter) -> str | None:
    """``^PREFIX-[0-9]+$`` for the one shape of id ``parameter``'s description and schema
    examples show (module docstring), else ``None`` (none shown, or two shapes)."""
    shapes: set[tuple[str, str]] = set()
    for text in (parameter.description, str(parameter.json_schema.get("description") or "")):
        for said in _SAID.finditer(text):
            shapes.update((m.group(1), m.group(2)) for m in _IN_LIST.finditer(said.group(1)))
    for example in _examples(parameter.json_schema):
        if isinstance(example, str) and (m := _ID.fullmatch(example)):
            shapes.add((m.group(1), m.group(2)))
    if len(shapes) != 1:
        return None
    prefix, separator = shapes.pop()
    return f"^{re.escape(prefix)}{re.escape(separator)}[0-9]+$"


def _examples(schema: dict[str, Any]) -> list[Any]:
    found = schema.get("examples")
    examples = list(found) if isinstance(found, list) else []
    return [*examples, schema["example"]] if "example" in schema else examples
