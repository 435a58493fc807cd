"""How a typed Python callable reads: its signature and type hints (from the function, a
``functools.partial``'s function or a callable object's ``__call__``), each parameter's
pydantic ``TypeAdapter`` and JSON Schema, its defaults as JSON data, and the
:class:`~schemarouter.execution.invokers.python.CallShape` a call passes its arguments by.

One ``TypeAdapter`` per parameter, built once here, makes both the parameter's schema and,
at each call, the value of the annotated type from the JSON argument.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import json
import math
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import PydanticUndefined, core_schema

from schemarouter.contracts import schema_validator
from schemarouter.errors import DocumentError
from schemarouter.execution.invokers.python import CallShape

__all__ = [
    "NO_DEFAULT",
    "PER_CALL",
    "Signature",
    "call_shape",
    "call_shape_of",
    "closed_objects",
    "dropped_parameters",
    "json_default",
    "json_schema",
    "module_of",
    "name_of",
    "qualname",
    "read_signature",
    "type_adapter",
    "typed_parameters",
    "underlying",
]


def _named(fn: Any) -> Any:
    """What names ``fn``: a partial's function, a callable object's class, else ``fn``."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn if hasattr(fn, "__qualname__") else type(fn)


def qualname(fn: Callable[..., Any]) -> str:
    named = _named(fn)
    return f"{getattr(named, '__module__', '?')}.{getattr(named, '__qualname__', repr(fn))}"


def module_of(fn: Callable[..., Any]) -> str:
    return str(getattr(_named(fn), "__module__", None) or "?")


def name_of(fn: Callable[..., Any]) -> str:
    return str(getattr(_named(fn), "__name__", None) or "callable")


#: Where :class:`_NamedEnums` leaves an Enum's names for :func:`_enum_names` (pydantic sets
#: an Enum's description from its docstring after ``enum_schema`` returns).
_NAMES_KEY = "x-schemarouter-enum-names"


class _NamedEnums(GenerateJsonSchema):
    """pydantic's JSON Schema, with the names of an Enum whose values are not text: ``{"enum":
    [1, 2, 3]}`` alone does not tell a model that "red" is 3."""

    def enum_schema(self, schema: core_schema.EnumSchema) -> JsonSchemaValue:
        out = super().enum_schema(schema)
        members = schema["members"]
        if any(not isinstance(member.value, str) for member in members):
            out[_NAMES_KEY] = ", ".join(f"{member.value!r} = {member.name}" for member in members)
        return out


def _enum_names(schema: Any) -> Any:
    """``schema`` with each Enum's names (:class:`_NamedEnums`) added to its description."""
    if isinstance(schema, list):
        return [_enum_names(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _enum_names(value) for key, value in schema.items() if key != _NAMES_KEY}
    if _NAMES_KEY in schema:
        said = out.get("description")
        names = f"values: {schema[_NAMES_KEY]}"
        out["description"] = f"{said} ({names})" if said else names
    return out


def type_adapter(
    annotation: Any, *, where: str, mode: JsonSchemaMode = "validation"
) -> tuple[TypeAdapter[Any], dict[str, Any]]:
    """The ``TypeAdapter`` of a type hint and its JSON Schema (a type without one is refused
    here, not at the first call); ``mode="serialization"`` for a value the function returns,
    as it is dumped: computed fields in, excluded fields out, serialization aliases."""
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        schema = _enum_names(dict(adapter.json_schema(schema_generator=_NamedEnums, mode=mode)))
    except Exception as exc:
        raise DocumentError(
            f"type hint {annotation!r} has no JSON Schema: {exc}",
            where=where,
            hint="Use JSON-compatible types (str, int, float, bool, list, dict, pydantic models"
            "; on Python < 3.12 a TypedDict from typing_extensions)",
        ) from None
    return adapter, schema


def json_schema(
    annotation: Any, *, where: str, mode: JsonSchemaMode = "validation"
) -> dict[str, Any]:
    if annotation is inspect.Parameter.empty:
        return {}
    return type_adapter(annotation, where=where, mode=mode)[1]


@dataclass(frozen=True)
class Signature:
    """What a callable's signature says: its parameters with their hints, read from the
    function itself, a partial's function or a callable object's ``__call__``."""

    signature: inspect.Signature
    hints: Mapping[str, Any]
    doc: str | None
    where: str
    #: What a call passes for a parameter it gives no value, where the function's own
    #: default is pydantic's ``Field(...)`` (:func:`_field_defaults`).
    fills: Mapping[str, Callable[[], Any]] = field(default_factory=dict)


#: The default of a parameter whose ``Field(default_factory=...)`` makes a value per call:
#: the route offers no default and requires none.
PER_CALL = object()


def _field_defaults(
    signature: inspect.Signature, hints: Mapping[str, Any], where: str
) -> tuple[inspect.Signature, dict[str, Any], dict[str, Callable[[], Any]]]:
    """A parameter whose default is pydantic's ``Field(...)`` (``month: int = Field(ge=1,
    le=12)``) read as ``validate_call`` reads it: its constraints and description join its
    type hint (``Annotated``), a ``Field`` without a default is required, and a call that
    gives no value passes the ``Field``'s default (a copy) or its factory's value, never the
    ``FieldInfo`` object, which is the function's own default. Read as a plain default, the
    constraints were dropped (month 13 reached the function) and a call without the value
    passed it the ``FieldInfo``."""
    out: dict[str, Any] = dict(hints)
    fills: dict[str, Callable[[], Any]] = {}
    parameters = []
    for param in signature.parameters.values():
        info = param.default
        if not isinstance(info, FieldInfo):
            parameters.append(param)
            continue
        bare = copy.copy(info)  # its default is the parameter's, given below
        bare.default, bare.default_factory = PydanticUndefined, None
        if param.name in out:
            out[param.name] = Annotated[out[param.name], bare]
        default: Any
        if info.default_factory is not None and info.default_factory_takes_validated_data:
            raise DocumentError(  # it raised TypeError out of every call that left it out
                f"parameter {param.name!r}: its Field(default_factory=...) takes the validated "
                "data of a model, which a function's call does not have",
                where=where,
                hint="Use a factory without arguments (default_factory=list) or a default",
            )
        if info.default_factory is not None:
            default = PER_CALL
            fills[param.name] = typing.cast(Callable[[], Any], info.default_factory)
        elif info.default is PydanticUndefined:
            default = inspect.Parameter.empty
        else:
            default = info.default
            fills[param.name] = functools.partial(copy.deepcopy, info.default)
        parameters.append(param.replace(default=default))
    return signature.replace(parameters=parameters), out, fills


def dropped_parameters(read: Signature) -> str | None:
    """The registration's warning for the ``*args`` / ``**kwargs`` of a signature, which the
    route leaves out (:func:`typed_parameters`); ``None`` where it has neither."""
    kinds = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    dropped = [
        f"{kinds[p.kind]}{p.name}" for p in read.signature.parameters.values() if p.kind in kinds
    ]
    if not dropped:
        return None
    alone = len(dropped) == len(read.signature.parameters)
    return (
        f"{read.where}: {' and '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} left out "
        f"of the route{' (it takes no arguments)' if alone else ''}: a call passes nothing to "
        "*args or **kwargs; declare each value the function takes as a named parameter"
    )


def underlying(fn: Callable[..., Any]) -> Any:
    """The function whose hints and docstring describe ``fn``: a partial's function (of a
    partial ...), a callable object's ``__call__``, else ``fn`` itself."""
    target: Any = fn
    while isinstance(target, functools.partial):
        target = target.func
    if not inspect.isroutine(target) and not inspect.isclass(target):
        target = type(target).__call__
    return target


def _defines_call(cls: type) -> bool:
    """Whether a class's instances are callable: it (or a base other than ``object``)
    defines ``__call__``."""
    return any("__call__" in vars(base) for base in cls.__mro__ if base is not object)


def _base(fn: Callable[..., Any]) -> Any:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _bound_keywords(fn: Callable[..., Any]) -> frozenset[str]:
    """The names a ``functools.partial`` (of a partial ...) binds by keyword."""
    names: set[str] = set()
    while isinstance(fn, functools.partial):
        names.update(fn.keywords)
        fn = fn.func
    return frozenset(names)


def _refuse_class(fn: Callable[..., Any], *, where: str) -> None:
    """Refuse a class whose instances are the callables (``Lab`` for ``Lab()``): registered,
    it would take its constructor's parameters and each call would return a new object."""
    base = _base(fn)
    if inspect.isclass(base) and _defines_call(base):
        name = base.__name__
        raise DocumentError(
            f"{name} is a class: registering it would make each call construct a {name}, "
            f"not run its __call__",
            where=where,
            hint=f"Pass an instance, {name}(), to register its __call__ (a class registers "
            "as a constructor only when it defines no __call__)",
        )


def _refuse_unbound(
    fn: Callable[..., Any], signature: inspect.Signature, hints: Any, *, where: str
) -> None:
    """Refuse an unbound method (``Lab.density``), whose ``self`` would otherwise be blamed
    for its missing type hint."""
    base = _base(fn)
    first = next(iter(signature.parameters.values()), None)
    if (
        inspect.isfunction(base)
        and first is not None
        and first.name == "self"
        and first.kind in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD)
        and "self" not in hints
    ):
        owner, _, method = base.__qualname__.rpartition(".")
        owner = owner.rpartition(".")[2]
        if owner and owner != "<locals>":
            what, instead = f"{owner}.{method}", f"{owner}().{method}"
        else:
            what, instead = method, f"instance.{method}"
        raise DocumentError(
            f"{what} is an unbound method: its first parameter, self, is the instance it "
            "runs on, which a call cannot pass",
            where=where,
            hint=f"Pass an instance's method, {instead} (or make it a @staticmethod if it "
            "does not use self)",
        )


def read_signature(fn: Callable[..., Any]) -> Signature:
    where = f"callable {qualname(fn)}"
    _refuse_class(fn, where=where)
    target = underlying(fn)
    if inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target):
        kind = "an async generator" if inspect.isasyncgenfunction(target) else "a generator"
        raise DocumentError(
            f"{kind} yields its values one at a time; a route returns one JSON value",
            where=where,
            hint="Return a list (or a model) of what it yields, e.g. list(...) or "
            "[x async for x in ...] in a wrapper",
        )
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(target, include_extras=True)
    except NameError as exc:
        raise DocumentError(
            f"cannot read the signature: {exc}: an annotation is text naming something the "
            "module does not define at its top level (with `from __future__ import "
            "annotations` every annotation is text, so a class defined inside a function "
            "cannot be found)",
            where=where,
            hint="Define the class at module level, or leave out `from __future__ import "
            "annotations` in the module that defines the function",
        ) from None
    except (TypeError, ValueError) as exc:
        raise DocumentError(
            f"cannot read the signature: {exc}", where=where, hint="Pass a plain typed function"
        ) from None
    except Exception as exc:  # an annotation's own code raised (a __class_getitem__)
        said = str(exc)
        said = said if len(said) <= 200 else f"{said[:200]} ... ({len(said)} chars)"
        raise DocumentError(
            f"cannot read the signature: evaluating its annotations raised "
            f"{type(exc).__name__}: {said}",
            where=where,
            hint="Annotate with types whose evaluation does not raise (plain classes, "
            "typing's generics, pydantic models)",
        ) from None
    _refuse_unbound(fn, signature, hints, where=where)
    if bound := _bound_keywords(fn):
        # a partial's keyword arguments are fixed by the developer (a tenant id, a client):
        # inspect.signature offers them as overridable defaults, so a call could replace them
        signature = signature.replace(
            parameters=[p for p in signature.parameters.values() if p.name not in bound]
        )
    signature, hints, fills = _field_defaults(signature, hints, where)
    doc = fn.__doc__ if target is fn else target.__doc__
    if doc is None and not isinstance(fn, functools.partial) and target is not fn:
        doc = type(fn).__doc__  # a callable object: its class's docstring
    return Signature(signature, hints, doc, where, fills)


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
        yield param, annotation, adapter, closed_objects(schema)


def closed_objects(schema: Any) -> Any:
    """``schema`` with every object that lists its properties and says nothing of others
    (a pydantic model, dataclass or TypedDict with pydantic's default ``extra="ignore"``)
    closed to them: ``additionalProperties: false``. pydantic would drop such a key without
    a word; the gate refuses it instead, as it refuses an unknown argument, so a model's
    ``{"sku": ..., "gift": true}`` on a write is not run without the gift it asked for. A
    model that allows extras (``additionalProperties: true``) or forbids them keeps its word;
    a ``dict[str, X]`` declares its values and is left as it is."""
    if isinstance(schema, list):
        return [closed_objects(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: closed_objects(value) for key, value in schema.items()}
    if (
        out.get("type") == "object"
        and isinstance(out.get("properties"), dict)
        and not {"additionalProperties", "patternProperties"} & set(out)
    ):
        out["additionalProperties"] = False
    return out


def call_shape_of(read: Signature, adapters: Mapping[str, TypeAdapter[Any]]) -> CallShape:
    positional = tuple(
        (name, param.default)
        for name, param in read.signature.parameters.items()
        if param.kind is param.POSITIONAL_ONLY
    )
    returns = read.hints.get("return", inspect.Parameter.empty)
    adapter = None
    if returns is not inspect.Parameter.empty:
        with contextlib.suppress(Exception):  # no adapter: dumped as the value's own type
            adapter = TypeAdapter(returns)
    return CallShape(
        adapters=dict(adapters), positional=positional, fills=dict(read.fills), returns=adapter
    )


def call_shape(fn: Callable[..., Any]) -> CallShape:
    """How ``fn`` takes its JSON arguments (see :class:`CallShape`)."""
    read = read_signature(fn)
    return call_shape_of(
        read, {param.name: adapter for param, _, adapter, _ in typed_parameters(read)}
    )


#: What :func:`json_default` gives for a default that is not JSON data.
NO_DEFAULT = object()


def json_default(
    param: inspect.Parameter,
    annotation: Any,
    adapter: TypeAdapter[Any],
    schema: dict[str, Any],
    *,
    where: str,
) -> Any:
    """A parameter's default as JSON data (a copy: the function's own default object never
    enters the registered contract), or ``NO_DEFAULT`` for one that is not JSON data (a
    sentinel object, NaN). A default the parameter's schema refuses is a
    :class:`DocumentError`; ``None`` passes (``x: str = None``, read as optional)."""
    if param.default is PER_CALL or (
        isinstance(param.default, float) and not math.isfinite(param.default)
    ):
        return NO_DEFAULT
    try:
        value = adapter.dump_python(param.default, mode="json", by_alias=True, warnings=False)
        value = json.loads(json.dumps(value, allow_nan=False))
    except Exception:  # a default that is not JSON stays out of the schema
        return NO_DEFAULT
    if param.default is not None:
        error = next(iter(schema_validator(schema).iter_errors(value)), None)
        if error is not None:
            raise DocumentError(
                f"parameter {param.name!r} has the default {repr(param.default)[:80]}, which "
                f"its type hint {annotation!r} refuses: {error.message[:200]}",
                where=where,
                hint="Give a default of the parameter's type, or widen the hint (e.g. int | str)",
            )
    return value
