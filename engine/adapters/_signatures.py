"""How a typed Python callable reads: its signature and type hints, each parameter's
pydantic ``TypeAdapter`` and JSON Schema, its defaults as JSON data, and the
:class:`~schemarouter.execution.invokers.python.CallShape` a call passes its arguments by.

One ``TypeAdapter`` per parameter, built once here, makes both the parameter's schema and,
at each call, the value of the annotated type from the JSON argument.
"""

from __future__ import annotations

import inspect
import json
import math
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from schemarouter.errors import DocumentError
from schemarouter.execution.invokers.python import CallShape

__all__ = [
    "NO_DEFAULT",
    "Signature",
    "call_shape",
    "call_shape_of",
    "json_default",
    "json_schema",
    "qualname",
    "read_signature",
    "type_adapter",
    "typed_parameters",
]


def qualname(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def type_adapter(annotation: Any, *, where: str) -> tuple[TypeAdapter[Any], dict[str, Any]]:
    """The ``TypeAdapter`` of a type hint and its JSON Schema (a type without one is refused
    here, not at the first call)."""
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        schema = dict(adapter.json_schema())
    except Exception as exc:
        raise DocumentError(
            f"type hint {annotation!r} has no JSON Schema: {exc}",
            where=where,
            hint="Use JSON-compatible types (str, int, float, bool, list, dict, pydantic models"
            "; on Python < 3.12 a TypedDict from typing_extensions)",
        ) from None
    return adapter, schema


def json_schema(annotation: Any, *, where: str) -> dict[str, Any]:
    if annotation is inspect.Parameter.empty:
        return {}
    return type_adapter(annotation, where=where)[1]


@dataclass(frozen=True)
class Signature:
    """What a callable's signature says: its parameters with their hints."""

    signature: inspect.Signature
    hints: Mapping[str, Any]
    where: str


def read_signature(fn: Callable[..., Any]) -> Signature:
    where = f"callable {qualname(fn)}"
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        raise DocumentError(
            f"cannot read the signature: {exc}", where=where, hint="Pass a plain typed function"
        ) from None
    return Signature(signature, hints, where)


def typed_parameters(
    read: Signature,
) -> Iterator[tuple[inspect.Parameter, Any, TypeAdapter[Any], dict[str, Any]]]:
    """Each parameter a call passes, with its hint, ``TypeAdapter`` and JSON Schema. ``*args``
    and ``**kwargs`` are left out: a call passes nothing to them."""
    for pname, param in read.signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = read.hints.get(pname, inspect.Parameter.empty)
        if annotation is inspect.Parameter.empty:
            raise DocumentError(
                f"parameter {pname!r} has no type hint",
                where=read.where,
                hint="Annotate every parameter so its JSON Schema is known",
            )
        adapter, schema = type_adapter(annotation, where=f"{read.where}, parameter {pname!r}")
        yield param, annotation, adapter, schema


def call_shape_of(read: Signature, adapters: Mapping[str, TypeAdapter[Any]]) -> CallShape:
    positional = tuple(
        (name, param.default)
        for name, param in read.signature.parameters.items()
        if param.kind is param.POSITIONAL_ONLY
    )
    return CallShape(adapters=dict(adapters), positional=positional)


def call_shape(fn: Callable[..., Any]) -> CallShape:
    """How ``fn`` takes its JSON arguments (see :class:`CallShape`)."""
    read = read_signature(fn)
    return call_shape_of(
        read, {param.name: adapter for param, _, adapter, _ in typed_parameters(read)}
    )


#: What :func:`json_default` gives for a default that is not JSON data.
NO_DEFAULT = object()


def json_default(param: inspect.Parameter, adapter: TypeAdapter[Any]) -> Any:
    """A parameter's default as JSON data (a copy: the function's own default object never
    enters the registered contract), or ``NO_DEFAULT`` for one that is not JSON data (a
    sentinel object, NaN)."""
    if isinstance(param.default, float) and not math.isfinite(param.default):
        return NO_DEFAULT
    try:
        value = adapter.dump_python(param.default, mode="json", by_alias=True, warnings=False)
        return json.loads(json.dumps(value, allow_nan=False))
    except Exception:  # a default that is not JSON stays out of the schema
        return NO_DEFAULT
