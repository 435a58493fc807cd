"""OpenAPI's ``discriminator``, which JSON Schema does not read, written as JSON Schema.

A ``oneOf`` / ``anyOf`` of ``$ref`` members told apart by a property (``petType``) has each
member's property held to the values that name it (:func:`discriminated`); a base schema
whose subschemas extend it with ``allOf`` and which maps the property's values to them has
an ``if`` / ``then`` per value (:func:`mapped_refs`, :func:`when`), so an answer declared as
``Pet`` with ``petType: cat`` is held to ``Cat``. A base without a ``mapping`` (and Swagger 2's
``discriminator: petType``, a property name alone) maps each schema that extends it by its
own name, the implicit mapping (:func:`subtype_refs`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from schemarouter.adapters._json import as_object_schema

__all__ = ["discriminated", "mapped_refs", "subtype_refs", "when"]


#: What a component's name may hold (OpenAPI 3): any other ``mapping`` target is a reference.
_NAME = re.compile(r"[A-Za-z0-9._-]+")


def _ref(target: str) -> str:
    """A ``mapping`` target as a pointer: a component's bare name is under schemas; a
    reference is kept as written (``other.yaml#/Cat`` was read as a component named so)."""
    return f"#/components/schemas/{target}" if _NAME.fullmatch(target) else target


def mapped_refs(discriminator: Any) -> list[tuple[str, str, str]]:
    """``(property, value, pointer)`` per entry of a discriminator's ``mapping``; none where
    it has no property name or no mapping."""
    if not isinstance(discriminator, Mapping):
        return []
    prop, mapping = discriminator.get("propertyName"), discriminator.get("mapping")
    if not isinstance(prop, str) or not isinstance(mapping, Mapping):
        return []
    return [(prop, str(v), _ref(t)) for v, t in mapping.items() if isinstance(t, str)]


def subtype_refs(discriminator: Any, base: Any, document: Any) -> list[tuple[str, str, str]]:
    """``(property, name, pointer)`` per schema of ``document`` that extends ``base`` (a
    ``$ref`` to it among its ``allOf``): the implicit mapping, where ``discriminator`` is
    Swagger 2's property name or an OpenAPI 3 one without ``mapping`` (trial M: a Swagger 2
    ``Pet`` answered as a ``cat`` missing ``Cat``'s required keys passed). ``base`` is the
    base schema itself, found among the components by identity."""
    prop: Any
    folder: tuple[str, ...]
    if isinstance(discriminator, str):
        prop, folder, prefix = discriminator, ("definitions",), "#/definitions/"
    elif isinstance(discriminator, Mapping) and not discriminator.get("mapping"):
        prop = discriminator.get("propertyName")
        folder, prefix = ("components", "schemas"), "#/components/schemas/"
    else:
        return []
    schemas: Any = document
    for key in folder:
        schemas = schemas.get(key) if isinstance(schemas, Mapping) else None
    if not isinstance(prop, str) or not isinstance(schemas, Mapping):
        return []
    names = [name for name, schema in schemas.items() if schema is base]
    if len(names) != 1:
        return []
    pointer = prefix + str(names[0])
    return [
        (prop, str(name), prefix + str(name))
        for name, schema in schemas.items()
        if isinstance(schema, Mapping)
        and isinstance(schema.get("allOf"), list)
        and any(isinstance(m, Mapping) and m.get("$ref") == pointer for m in schema["allOf"])
    ]


def when(prop: str, value: str, then: Any) -> dict[str, Any]:
    """``then`` applied where ``prop`` holds ``value``."""
    return {"if": {"properties": {prop: {"const": value}}, "required": [prop]}, "then": then}


def discriminated(
    discriminator: Any,
    raw: list[Any],
    members: list[Any],
    chain: Callable[[str], list[str]] = lambda pointer: [pointer],
) -> list[Any]:
    """``oneOf`` / ``anyOf`` ``members`` (inlined from ``raw``) told apart by an OpenAPI 3
    ``discriminator``.

    JSON Schema does not read ``discriminator``: a ``Cat`` answer that breaks ``Cat`` passed
    as a ``Dog`` (an open schema it also matches), and a ``Dog`` that ``Cat`` also accepts
    broke ``oneOf`` (valid under both). Each member whose value the discriminator names (a
    ``mapping`` entry pointing at its ``$ref``, and its own component name, the implicit
    mapping) gets that property held to those values, so the value picks the member. Where
    a member has no value (an inline schema no ``mapping`` entry names), the members are
    left as written. ``chain`` gives the pointers a member's ``$ref`` follows (an alias
    ``DogAlias: {$ref: Dog}``): a mapping entry pointing at any of them, and each one's
    name, name the member (trial X3: a ``dog`` whose member was written as an alias of
    ``Dog`` was refused).
    """
    if not isinstance(discriminator, Mapping):
        return members
    prop = discriminator.get("propertyName")
    mapping = discriminator.get("mapping") or {}
    if not isinstance(prop, str) or not isinstance(mapping, Mapping):
        return members
    targets: dict[str, list[str]] = {}
    for _, value, ref in mapped_refs({"propertyName": prop, "mapping": mapping}):
        targets.setdefault(ref, []).append(value)
    values: list[list[str]] = []
    for node in raw:
        pointer = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(pointer, str) or not pointer.startswith("#/"):
            return members
        pointers = chain(pointer)
        named = [value for p in pointers for value in targets.get(p, [])]
        values.append(list(dict.fromkeys([*named, *(p.rsplit("/", 1)[-1] for p in pointers)])))
    out = []
    for member, allowed in zip(members, values, strict=True):
        schema = as_object_schema(member)
        properties = schema.get("properties")
        properties = dict(properties) if isinstance(properties, Mapping) else {}
        own = properties.get(prop)
        held: dict[str, Any] = {"enum": allowed}
        if isinstance(own, Mapping) and "enum" not in own and "const" not in own:
            held = {**own, "enum": allowed}
        elif own is not None:
            held = {"allOf": [own, held]}
        out.append({**schema, "properties": {**properties, prop: held}})
    return out
