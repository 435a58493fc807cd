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

__all__ = ["shared", "shared_json"]


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


def shared_json(node: Any, strings: dict[str, str]) -> Any:
    """The parsed JSON ``node`` with each string of more than 64 characters the one object
    ``strings`` holds for it (adding those it lacks), and each dict or list equal to one
    before it in ``node`` (same keys in the same order, same values) that very object, as
    an adapter shares a schema it resolves from a ``$ref``; changed in place, returned
    (the shared one where ``node`` itself repeats). Shorter strings the parser shares
    itself (:func:`~.saved_registry._parsed`). Read back from JSON, each description,
    path and fingerprint, and each schema a document reuses, was a copy per place (992
    OpenAPI documents: the restored routes held 1.23 GiB, 0.87 GiB registered; trial W3).
    Containers are shared within one ``node`` (one provider), as registering it shares
    them; strings across every node given the same ``strings``."""
    kind = type(node)
    if kind is not dict and kind is not list:
        return node
    return _shared_json(node, strings, {})


def _shared_json(node: Any, strings: dict[str, str], seen: dict[tuple[Any, ...], Any]) -> Any:
    """:func:`shared_json` of a dict or list ``node``; ``seen``: each container already
    met, by its contents (a key made of its strings and scalars, and of the ids of its
    containers, each already the shared one)."""
    key: list[Any] = [type(node) is dict]
    pairs = node.items() if key[0] else enumerate(node)
    for at, value in pairs:
        kind = type(value)
        if kind is str:
            if len(value) > 64:
                same = strings.setdefault(value, value)
                if same is not value:
                    node[at] = same
            key.append((at, value))
        elif kind is dict or kind is list:
            same = _shared_json(value, strings, seen)
            if same is not value:
                node[at] = same
            key.append((at, None, id(same)))
        else:  # 1, 1.0 and True are equal: the type keeps them apart
            key.append((at, kind, value))
    return seen.setdefault(tuple(key), node)
