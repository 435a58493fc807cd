"""Schemas a restored endpoint holds twice, shared again as the adapter shared them.

An adapter builds an endpoint's parameters from its input schema's properties and its
output fields from subtrees of its output schema: one object each, held twice. A registry
read back from JSON (:mod:`.saved_registry`) has a copy of each; at 33,376 OpenAPI routes
the routes took 2.3 GiB instead of about 1.2 (trial Z2). :func:`shared` gives the endpoint
whose parameters and output fields hold the very dicts of its input and output schema where
they are equal: the same contract (equal, the same fingerprint), less memory. Nothing is
changed in place: the parameters, fields and endpoint are copies (``model_copy``, values
not copied).
"""

from __future__ import annotations

from typing import Any

from schemarouter.contracts import Endpoint

__all__ = ["share_strings", "shared"]


def _subtree(schema: Any, path: str) -> Any:
    """The subschema of ``schema`` at an output field's ``path`` (``a.*.b``: property ``a``,
    its ``items``, property ``b``); ``None`` where the path does not walk so."""
    node = schema
    for part in path.split(".") if path else ():
        if not isinstance(node, dict):
            return None
        if part == "*":
            node = node.get("items")
            continue
        properties = node.get("properties")
        if not isinstance(properties, dict) or part not in properties:
            return None
        node = properties[part]
    return node


def shared(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with each parameter's and output field's schema the equal dict of its
    input or output schema, where there is one (see the module's docstring)."""
    properties = endpoint.input_schema.get("properties")
    parameters = endpoint.parameters
    if isinstance(properties, dict):
        parameters = tuple(
            p.model_copy(update={"json_schema": same})
            if (same := properties.get(p.name)) is not None
            and same is not p.json_schema
            and same == p.json_schema
            else p
            for p in parameters
        )
    fields = endpoint.output_fields
    if endpoint.output_schema is not None:
        fields = tuple(
            f.model_copy(update={"json_schema": same})
            if isinstance(same := _subtree(endpoint.output_schema, f.path or ""), dict)
            and same is not f.json_schema
            and same == f.json_schema
            else f
            for f in fields
        )
    before = (*endpoint.parameters, *endpoint.output_fields)
    if all(a is b for a, b in zip((*parameters, *fields), before, strict=True)):
        return endpoint
    return endpoint.model_copy(update={"parameters": parameters, "output_fields": fields})


def share_strings(node: Any, strings: dict[str, str]) -> None:
    """Make each string of more than 64 characters in the parsed JSON ``node`` (dict and
    list values, in place) the one object ``strings`` holds for it, adding those it lacks.
    Shorter strings the parser shares itself (:func:`~.saved_registry._parsed`); these are
    descriptions, paths and fingerprints, which a registry read back from JSON held once
    per place (992 OpenAPI documents: 90 MiB; trial W3)."""
    stack = [node] if type(node) is dict or type(node) is list else []
    while stack:
        item = stack.pop()
        pairs = item.items() if type(item) is dict else enumerate(item)
        for key, value in pairs:
            kind = type(value)
            if kind is str:
                if len(value) > 64:
                    item[key] = strings.setdefault(value, value)
            elif kind is dict or kind is list:
                stack.append(value)
