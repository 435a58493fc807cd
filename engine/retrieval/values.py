"""How a value found in a request meets a route's parameter: the value kind a parameter takes,
the schema a non-null value of it meets, and the text read as that schema's type.

:mod:`.analysis` binds a request's values with these (:func:`~.analysis.bind_parameters`), and
:mod:`schemarouter.planning.arguments` fills the parameters a request names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.contracts import Parameter

__all__ = ["coerce_value", "parameter_kind", "value_schema"]

#: Parameter names that take a value kind when the parameter declares no semantic id.
_NAME_HINTS: Mapping[str, tuple[str, ...]] = {
    "chemical.formula": (
        "formula",
        "formula_pretty",
        "chemical_formula",
        "composition",
        "chemical_formula_reduced",
        "reduced_formula",
    ),
    "identifier.doi": ("doi",),
    "identifier.arxiv_id": ("id_list", "arxiv_id"),
    "identifier.cas": ("cas", "cas_number", "casrn"),
    "identifier.material_id": ("material_id", "material_ids", "entry_id", "jid"),
    "time.date": ("date", "from_date", "since"),
    "repository.owner": ("owner", "repo_owner", "repository_owner"),
    "repository.name": ("repo", "repo_name", "repository", "repository_name"),
}


def parameter_kind(parameter: Parameter) -> str | None:
    """The value kind ``parameter`` takes: its semantic id, else one its name hints at."""
    if parameter.semantic_id:
        return parameter.semantic_id
    name = parameter.name.lower()
    for kind, names in _NAME_HINTS.items():
        if name in names:
            return kind
    return None


def value_schema(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema a non-null value of ``schema`` meets, for reading its ``type``, ``format``
    and ``enum``: an optional's one non-null member (pydantic writes ``Optional[int]`` as
    ``{"anyOf": [{"type": "integer"}, {"type": "null"}]}``; a ``$ref`` to the schema's
    ``$defs`` resolved, there or alone: a model's Enum property; pydantic's ``Decimal``, a
    number or a string, as the number), ``type: [X, "null"]`` as ``type: X``; else ``schema``
    itself."""
    ref, defs = schema.get("$ref"), schema.get("$defs")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(defs, Mapping):
        found = defs.get(ref.removeprefix("#/$defs/"))  # a model's Enum field (trial 20)
        if isinstance(found, Mapping):
            return {**{k: v for k, v in schema.items() if k != "$ref"}, **found}
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        rest = [kind for kind in kinds if kind != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if not isinstance(members, list):
            continue
        others = [m for m in members if not (isinstance(m, Mapping) and m.get("type") == "null")]
        if _decimal(others):  # pydantic's ``Decimal``: a number, or one written as a string
            return {**{k: v for k, v in schema.items() if k != key}, **others[0]}
        if len(others) != 1 or len(others) == len(members) or not isinstance(others[0], Mapping):
            continue
        member = others[0]
        ref, defs = member.get("$ref"), schema.get("$defs")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(defs, Mapping):
            found = defs.get(ref.removeprefix("#/$defs/"))
            member = found if isinstance(found, Mapping) else member
        return {**{k: v for k, v in schema.items() if k != key}, **member}
    return schema


def _decimal(members: list[Any]) -> bool:
    """Whether ``members`` are pydantic's ``Decimal``: a number first, then a string (user
    trial 20: ``amount_eur: Decimal`` was read as no number, and "12,500 EUR" filled nothing)."""
    return (
        len(members) == 2
        and all(isinstance(m, Mapping) for m in members)
        and [m.get("type") for m in members] == ["number", "string"]
    )


def coerce_value(value: str, schema: Mapping[str, Any]) -> Any:
    """``value`` (text found in a request) as the type ``schema`` takes, where it reads as one
    (a number for ``integer`` / ``number``, a one-item list for ``array``); else unchanged."""
    schema = value_schema(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        return [coerce_value(value, items if isinstance(items, Mapping) else {})]
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    if kind == "number" and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return float(value)
    return value
