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

An identifier-named parameter whose description shows no shape takes the one its provider's
other routes show for a parameter of the same name (:func:`shared_pattern`): trial 20's
``create_task(title, due_date, contact_id=None, deal_id=None)`` ("The contact it is
about.") left C-4 of "create a task to follow up with C-4 due 2026-12-12" unbound, though
every other ``contact_id`` of the CRM says "like C-3", and ``add_note``, which took C-4, was
planned in the task's place. Two shapes shown for one name give none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar

from schemarouter.contracts import Parameter
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.identifiers import names_identifier

__all__ = ["documented_pattern", "shared_pattern", "sharing_shapes"]

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


#: ``(provider id, parameter name)`` -> the one shape its routes show (:func:`sharing_shapes`).
_SHARED: ContextVar[Mapping[tuple[str, str], str] | None] = ContextVar(
    "schemarouter_shared_id_shapes", default=None
)
_F = TypeVar("_F", bound=Callable[..., Any])


def _shapes(snapshot: RegistrySnapshot) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], set[str]] = {}
    for route in snapshot.routes.values():
        for parameter in route.endpoint.parameters:
            if names_identifier(parameter.name) and (shown := documented_pattern(parameter)):
                found.setdefault((route.provider.id, parameter.name), set()).add(shown)
    return {key: next(iter(shown)) for key, shown in found.items() if len(shown) == 1}


def sharing_shapes(plan: _F) -> _F:
    """``plan`` (called with a ``PlanRequest`` and a snapshot first) reading, for every rule
    it runs, the id shapes each provider's routes show by parameter name."""

    @wraps(plan)
    def planned(request: Any, snapshot: RegistrySnapshot, *args: Any, **kwargs: Any) -> Any:
        token = _SHARED.set(snapshot.derived("planning.shared_id_shapes", _shapes))
        try:
            return plan(request, snapshot, *args, **kwargs)
        finally:
            _SHARED.reset(token)

    return planned  # type: ignore[return-value]


def shared_pattern(provider: str, parameter: Parameter) -> str | None:
    """The shape the other routes of ``provider`` show for a parameter named as
    ``parameter`` is (module docstring), else ``None``."""
    shapes = _SHARED.get()
    return shapes.get((provider, parameter.name)) if shapes else None
