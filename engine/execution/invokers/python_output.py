"""A Python tool's return value as JSON data (:func:`to_payload`): dumped as its declared
return type where it has one, so a subclass of the declared model, or a dict handed back where
a model is declared, gives the declared fields only (its undeclared ones, a token or a
password hash among them, went out); a value that is not JSON data is named by its type and
path. Used by :mod:`schemarouter.execution.invokers.python`."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, TypeAdapter

from schemarouter.execution.invokers.payload import Payload, clip, invocation_error
from schemarouter.execution.outputs import json_path

__all__ = ["to_payload"]

#: Return values as JSON data. ``NaN`` and infinities stay floats (pydantic's default writes
#: ``null``, so a sensor's fault read as "no reading", ``ok``): the output checks refuse them
#: at their path, as they refuse a server's ``NaN``.
_ANY: TypeAdapter[Any] = TypeAdapter(Any, config=ConfigDict(ser_json_inf_nan="constants"))


def to_payload(value: Any, where: str, returns: TypeAdapter[Any] | None = None) -> Payload:
    """The return value as JSON data, and its size in bytes: dumped as the return type
    ``returns`` where given, so a subclass of the declared model gives the declared fields
    only (dumped as its own type, its undeclared fields, a token among them, went out)."""
    try:
        # by alias: the output schema a return model gave names its fields so (pydantic's
        # JSON Schema does), and a model dumped by field name broke it on every call
        data = _declared(value, returns)
        size = len(json.dumps(data, default=str).encode())
    except Exception as exc:
        try:
            found = _not_json(value, [])
        except RecursionError:  # a value that contains itself (pydantic's error says so)
            found = None
        what = (
            f"{_type_name(found[1])} at {json_path(found[0])}"
            if found is not None
            else f"{type(exc).__name__}: {clip(str(exc), 120)}"
        )
        raise invocation_error(
            f"the callable returned a value that is not JSON data: {what}",
            where=where,
            hint="Return JSON-compatible values or pydantic models: convert it with int(), "
            "float(), str() or list() (a numpy value: .item() or .tolist())",
        ) from None
    return Payload(data, size)


def _declared(value: Any, returns: TypeAdapter[Any] | None) -> Any:
    if returns is not None:
        with contextlib.suppress(Exception):  # not the declared type: next
            return returns.dump_python(value, mode="json", by_alias=True, warnings="error")
        # a dict where a model is declared: its declared fields, where it strictly is one
        # (trial U1: a ``-> PublicUser`` returning a dict sent its password_hash out too)
        with contextlib.suppress(Exception):  # not one strictly: its declared keys, below
            declared = returns.validate_python(value, strict=True)
            return returns.dump_python(declared, mode="json", by_alias=True, warnings="error")
    # no warning of a value its model's own type refuses (set after validation): the output
    # schema names it at its place (trial X3: under ``-W error`` it read "not JSON data")
    data = _ANY.dump_python(value, mode="json", by_alias=True, warnings=False)
    schema = _return_schema(returns) if returns is not None else None
    # a dict that is not strictly the declared model (a date as text, an id as "7"): the
    # keys it declares, left for the output schema to judge (trial V1: its password_hash
    # went out, also under partial=True, which the refusal of a "7" asked for)
    return data if schema is None else _pruned(data, schema, schema.get("$defs", {}))


@functools.lru_cache(maxsize=512)
def _return_schema(returns: TypeAdapter[Any]) -> dict[str, Any] | None:
    """The JSON Schema of a return type as it is dumped (``None``: it has none)."""
    try:
        return returns.json_schema(mode="serialization", by_alias=True)
    except Exception:
        return None


def _pruned(data: Any, schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    """``data`` with only the object keys ``schema`` declares (where it declares them and
    allows no others), through lists, ``$ref`` and ``anyOf`` / ``oneOf`` (an optional model)."""
    schema = _resolved(schema, defs)
    if depth > 64 or not isinstance(data, dict | list) or schema is None:
        return data
    kind = "object" if isinstance(data, dict) else "array"
    alternatives = [
        _resolved(a, defs) for a in (*schema.get("anyOf", ()), *schema.get("oneOf", ()))
    ]
    if alternatives:  # the one alternative of the data's kind, if one
        of_kind = [a for a in alternatives if a is not None and a.get("type") == kind]
        return _pruned(data, of_kind[0], defs, depth + 1) if len(of_kind) == 1 else data
    if isinstance(data, list):
        return [_pruned(item, schema.get("items"), defs, depth + 1) for item in data]
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or schema.get("additionalProperties") not in (
        None,
        False,
    ):
        return data
    return {
        k: _pruned(v, properties[k], defs, depth + 1) for k, v in data.items() if k in properties
    }


def _resolved(schema: Any, defs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    ref = schema.get("$ref") if isinstance(schema, Mapping) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = defs.get(ref.removeprefix("#/$defs/"))
    return schema if isinstance(schema, Mapping) else None


def _not_json(value: Any, path: list[str | int]) -> tuple[list[str | int], Any] | None:
    """The path and value of the first part of ``value`` pydantic cannot dump as JSON,
    looking inside dicts, lists, tuples and sets; ``None`` where each part dumps alone."""
    if isinstance(value, Mapping):
        parts: list[tuple[str | int, Any]] = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list | tuple | set | frozenset):
        parts = list(enumerate(value))
    else:
        try:
            _ANY.dump_python(value, mode="json", by_alias=True)
        except Exception:
            return path, value
        return None
    for key, item in parts:
        if (found := _not_json(item, [*path, key])) is not None:
            return found
    return None


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
