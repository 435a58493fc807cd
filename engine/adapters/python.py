"""Typed Python callables -> routes.

Type hints (and pydantic models) become the input and output JSON Schemas through pydantic's
``TypeAdapter``, the same one that turns each JSON argument into the annotated type at call
time; the docstring's summary becomes the description and its ``Args:`` / ``Keyword Args:``
/ ``Parameters`` sections (or Sphinx ``:param name:`` fields) the parameter descriptions. A
return type that is a pydantic model (or a TypedDict: ``typing_extensions.TypedDict`` on
Python < 3.12, which pydantic requires) becomes output fields, one per property.

>>> def band_gap(formula: str, *, functional: str = "PBE") -> float:
...     '''Band gap of a material.
...
...     Args:
...         formula: Reduced chemical formula, e.g. "Si".
...     '''
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

import typing_extensions
from pydantic import BaseModel, TypeAdapter, ValidationError

from schemarouter import contracts
from schemarouter.adapters._fields import (
    FieldRow,
    check_parameter_unit,
    declared_meaning,
    declared_semantic_id,
    declared_unit,
    flatten_fields,
)
from schemarouter.adapters._schema import SchemaResolver, as_object_schema
from schemarouter.adapters._signatures import (
    NO_DEFAULT,
    call_shape,
    call_shape_of,
    dropped_parameters,
    json_default,
    json_schema,
    module_of,
    name_of,
    qualname,
    read_signature,
    typed_parameters,
    underlying,
)
from schemarouter.checks import check_instance, check_keywords, enum_value
from schemarouter.errors import ArgumentError, DocumentError, RegistrationError, UnitError
from schemarouter.execution.invokers.python import CallShape, remember
from schemarouter.registry.compile import (
    RouteSpec,
    build_registration,
    named_provider,
    parameters_schema,
    slugify,
)

__all__ = [
    "CallableOptions",
    "CallableSpec",
    "call_shape",
    "callable_registration",
    "capability",
    "compile_callables",
    "describe_callable",
    "keep_call_shape",
]

_CAPABILITY_ATTR = "__schemarouter_capability__"


@dataclass(frozen=True)
class CallableSpec:
    """Route metadata attached to a function by :func:`capability`."""

    name: str | None = None
    effect: contracts.Effect = contracts.Effect.READ
    description: str | None = None
    fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    intents: tuple[str, ...] = ()
    policy_tags: tuple[str, ...] = ()


def capability(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    effect: contracts.Effect | str = contracts.Effect.READ,
    description: str | None = None,
    fields: Mapping[str, Mapping[str, Any]] | None = None,
    intents: Sequence[str] = (),
    policy_tags: Sequence[str] = (),
) -> Any:
    """Decorator that declares a function's route metadata for ``add_callable``.

    ``fields`` maps an output property name to extra :class:`OutputField` keys (``unit``,
    ``semantic_id``, ``normalization``, ``qualifiers`` ...). A wrong effect, an unknown key
    or a value of the wrong type is refused here, at decoration, with the function and the
    field named; whether the fields exist and the units parse is checked at registration.
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        where = f"callable {qualname(func)}, "
        try:
            checked = enum_value(effect, contracts.Effect, method="capability", name="effect")
            check_instance(fields, Mapping, method="capability", name="fields", optional=True)
        except ArgumentError as exc:
            raise exc.located(where) from None
        overrides = {
            key: _field_overrides(key, extra, where=where) for key, extra in (fields or {}).items()
        }
        setattr(
            func,
            _CAPABILITY_ATTR,
            CallableSpec(
                name=name,
                effect=checked,
                description=description,
                fields=overrides,
                intents=tuple(intents),
                policy_tags=tuple(policy_tags),
            ),
        )
        return func

    return mark(fn) if fn is not None else mark


#: The OutputField keys a unit mistake is made in (refused as :class:`UnitError`).
_UNIT_KEYS = ("unit", "dimension", "normalization")
#: What each often-mistaken key takes, for the hint of a refusal.
_KEY_HINTS = {
    "unit": "unit takes a str pint understands, e.g. 'km', 'GPa', 'eV/atom'",
    "dimension": "dimension takes a str, e.g. 'length', 'pressure'",
    "normalization": "normalization takes a mapping of source_unit, canonical_unit, "
    "dimension, scale and offset (canonical = value * scale + offset), with source_unit "
    "equal to the field's unit",
    "semantic_id": "semantic_id takes dot-separated lowercase words, e.g. 'geo.distance'",
    "qualifiers": "qualifiers takes a mapping of str to str, e.g. {'temperature': '300 K'}",
    "identifier": "identifier takes True or False",
}


def _field_keys() -> str:
    return ", ".join(sorted(set(contracts.OutputField.model_fields) - {"name"}))


def _field_overrides(name: Any, extra: Any, *, where: str) -> dict[str, Any]:
    """One entry of ``capability(fields=...)`` checked as an :class:`OutputField` would take
    it (the field's place and schema come from the return type at registration)."""
    at = f"{where}capability(fields={{{name!r}: ...}})"
    if not isinstance(name, str) or not isinstance(extra, Mapping):
        raise ArgumentError(
            f"fields must map an output field's name to a mapping of its keys, got "
            f"{type(name).__name__} {name!r}: {type(extra).__name__}",
            where=at,
            hint=f"Write fields={{'result': {{'unit': 'km'}}}}; the keys: {_field_keys()}",
        )
    _output_field({"name": name, **extra}, where=at)
    return dict(extra)


def _output_field(values: Mapping[str, Any], *, where: str) -> contracts.OutputField:
    """``OutputField(**values)``; a refusal names the field and its key, as a
    :class:`UnitError` for a unit, dimension or normalization, else a :class:`DocumentError`."""
    try:
        return contracts.OutputField.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [str(part) for part in error["loc"]]
        key = loc[0] if loc else ""
        name = values.get("name")
        if error["type"] == "extra_forbidden" and len(loc) == 1:
            close = difflib.get_close_matches(key, list(contracts.OutputField.model_fields), n=1)
            raise DocumentError(
                f"output field {name!r} has the unknown key {key!r}"
                + (f" (did you mean {close[0]!r}?)" if close else ""),
                where=where,
                hint=f"Use the keys an output field takes: {_field_keys()}",
            ) from None
        message = error["msg"].removeprefix("Value error, ")
        if loc:
            shown = repr(error["input"])[:60]
            what = f"output field {name!r} has an invalid {'.'.join(loc)} {shown}: {message}"
        else:  # the model's own check: unit, dimension and normalization disagree
            key = "normalization"
            what = message if repr(name) in message else f"output field {name!r}: {message}"
        raise (UnitError if key in _UNIT_KEYS else DocumentError)(
            what,
            where=where,
            hint=_KEY_HINTS.get(key) or f"Use the keys an output field takes: {_field_keys()}",
        ) from None


_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword\s+Arg(ument)?s|Kwargs|Other\s+Parameters)"
    r"\s*+:?\s*+$",
    re.IGNORECASE,
)
_OTHER_SECTION = re.compile(
    r"^\s*(Returns?|Raises|Yields?|Warns|Warnings?|Attributes|Examples?|Notes?|See Also|"
    r"References|Todo)\s*+:?\s*+$",
    re.IGNORECASE,
)
#: A Sphinx (reST) field, ``:param limit: How many.`` / ``:param int limit: ...`` /
#: ``:returns: ...``: (kind, what it names, text).
_REST_FIELD = re.compile(r"^\s*:(\w+)((?:\s[^:]*)?):\s*(.*)$")
_REST_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*+(?:\(([^)]*)\))?\s*+:\s*(.*)$")
_NUMPY_ARG = re.compile(r"^\s*(\w+)\s*:\s*[^:]*$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(description, {parameter: description}) from Google- or NumPy-style docstrings."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    i = 0
    while i < len(lines) and not any(
        pattern.match(lines[i]) for pattern in (_SECTION, _OTHER_SECTION, _REST_FIELD)
    ):
        description.append(lines[i])
        i += 1
    current: str | None = None
    in_args = False
    numpy = False  # a NumPy section: its header underlined, ``name : type`` lines
    rest = False  # in reST fields: an indented line goes on the field above it
    while i < len(lines):
        line = lines[i]
        i += 1
        if field := _REST_FIELD.match(line):
            named = field.group(2).split()
            rest, in_args = True, False
            current = named[-1] if field.group(1).lower() in _REST_PARAMS and named else None
            if current is not None:
                params[current] = field.group(3).strip()
            continue
        if rest and not _SECTION.match(line) and not _OTHER_SECTION.match(line):
            if current is not None and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
            continue
        rest = False
        if _SECTION.match(line):
            in_args = True
            current = None
            numpy = i < len(lines) and set(lines[i].strip()) == {"-"}
            continue
        if _OTHER_SECTION.match(line):
            in_args = False
            continue
        if not in_args or set(line.strip()) <= {"-"}:
            continue
        match = _ARG_LINE.match(line)
        if numpy and not line.startswith((" ", "\t")):
            # ``name : type``: the text after the colon is the type, not a description; the
            # description is the indented lines below it
            current = match.group(1).lstrip("*") if match else None
            if current is not None:
                params[current] = ""
        elif numpy:
            if current is not None and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
        elif match and (len(line) - len(line.lstrip())) <= 4:
            current = match.group(1).lstrip("*")
            params[current] = match.group(3).strip()
        elif _NUMPY_ARG.match(line) and not line.startswith((" ", "\t")):
            current = line.split(":")[0].strip()
            params[current] = ""
        elif current is not None and line.strip():
            params[current] = (params[current] + " " + line.strip()).strip()
    text = " ".join(part.strip() for part in description).strip()
    return re.sub(r"\s+", " ", text), params


def _output_fields(
    return_type: Any,
    schema: dict[str, Any],
    overrides: Mapping[str, Mapping[str, Any]],
    *,
    where: str,
) -> tuple[contracts.OutputField, ...]:
    properties: Mapping[str, Any] = {}
    defs = schema.get("$defs", {})
    if _has_fields(return_type):
        properties = schema.get("properties", {})
    elif _has_fields(_optional_member(return_type)):
        # ``Optional[Model]``: the model's fields, none of them required (``None`` is a
        # lookup that found nothing: its fields are missing, never invalid)
        found: dict[str, Any] = next(
            (s for s in schema.get("anyOf", ()) if s.get("type") != "null"), {}
        )
        ref = str(found.get("$ref", ""))
        if ref.startswith("#/$defs/"):
            found = defs.get(ref.removeprefix("#/$defs/"), {})
        properties = found.get("properties", {})
    fields: list[contracts.OutputField] = []
    if properties:
        for name, prop in properties.items():
            prop = dict(prop)
            if defs and "$ref" in prop:
                prop["$defs"] = defs
            extra = _with_declared(prop, overrides.get(name, {}), where=where)
            extra.setdefault("description", prop.get("description", ""))
            fields.append(
                _output_field(
                    {"name": name, "path": name, "json_schema": prop, **extra}, where=where
                )
            )
    elif rows := _item_fields(schema):
        # a list of models or TypedDicts: one field per leaf of an item (``*.id``), as an MCP
        # tool's structured output is read, so a listing's ids and fields are its own
        for row in rows:
            extra = _with_declared(row.schema, overrides.get(row.name, {}), where=where)
            extra.setdefault("description", row.description)
            fields.append(
                _output_field(
                    {
                        "name": row.name,
                        "path": row.path,
                        "json_schema": as_object_schema(row.schema),
                        **extra,
                    },
                    where=where,
                )
            )
    elif schema:
        extra = dict(overrides.get("result", {}))
        fields.append(
            _output_field(
                {"name": "result", "path": "", "json_schema": schema, **extra}, where=where
            )
        )
    return tuple(fields)


def _with_declared(schema: Any, override: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """A field's ``capability(fields=...)`` keys over what its schema declares as an OpenAPI
    response property does: ``Field(json_schema_extra={"x-unit": "meV", "x-semantic-id":
    ...})`` (before, silently no unit and no meaning: user trial U4)."""
    declared: dict[str, Any] = dict(declared_semantic_id(schema, where=where, notes=None))
    if not {"unit", "dimension", "normalization"} & set(override):
        declared.update(declared_unit(schema))
    return {**declared, **override}


def _has_fields(kind: Any) -> bool:
    """Whether a return type gives one output field per property: a pydantic model or a
    TypedDict (typing_extensions' test knows both kinds of TypedDict; typing's alone misses
    the typing_extensions one on Python < 3.12, the only kind pydantic takes there)."""
    if inspect.isclass(kind) and issubclass(kind, BaseModel):
        return True
    return kind is not None and typing_extensions.is_typeddict(kind)


def _optional_member(kind: Any) -> Any:
    """``X`` of ``Optional[X]`` / ``X | None``; ``None`` for any other type."""
    if typing.get_origin(kind) not in (typing.Union, types.UnionType):
        return None
    members = [m for m in typing.get_args(kind) if m is not type(None)]
    return members[0] if len(members) == 1 else None


def _item_fields(schema: dict[str, Any]) -> list[FieldRow]:
    """The leaves of a list-of-objects return schema (``[]`` for any other shape, and for
    one the resolver refuses, such as a model that contains itself: it stays one field)."""
    items = schema.get("items") if schema.get("type") == "array" else None
    if not isinstance(items, dict):
        return []
    try:
        resolved = SchemaResolver(
            schema, source="return type", dialect="jsonschema", root="return"
        ).schema(schema, location="return")
    except RegistrationError:
        return []
    item = resolved.get("items") if isinstance(resolved, dict) else None
    if not isinstance(item, dict) or not isinstance(item.get("properties"), dict):
        return []
    return flatten_fields(resolved)


def endpoint_id(name: str) -> str:
    """A callable's endpoint id: the slug of its name (``getPrice``: ``get_price``); a name
    with no ASCII letter (``온도``), whose slug would be a bare ``x`` shared with every such
    name, gets ``fn_`` and eight hex digits of its SHA-256 instead (stable across runs)."""
    if re.search(r"[A-Za-z]", name):
        return slugify(name)
    return "fn_" + hashlib.sha256(name.encode()).hexdigest()[:8]


def describe_callable(
    fn: Callable[..., Any], *, name: str | None = None, effect: contracts.Effect | str | None = None
) -> contracts.Endpoint:
    """The endpoint contract of a typed callable (a function, a method, a
    ``functools.partial`` or an object with a typed ``__call__``)."""
    return _describe(fn, name=name, effect=effect)[0]


def _dropped(fn: Callable[..., Any]) -> str | None:
    """The warning for ``fn``'s ``*args`` / ``**kwargs`` (its signature read again: cheap)."""
    return dropped_parameters(read_signature(fn))


def _describe(
    fn: Callable[..., Any], *, name: str | None = None, effect: contracts.Effect | str | None = None
) -> tuple[contracts.Endpoint, CallShape]:
    """The endpoint contract of a typed callable, and how a call passes it its arguments."""
    spec: CallableSpec = (
        getattr(fn, _CAPABILITY_ATTR, None)
        or getattr(underlying(fn), _CAPABILITY_ATTR, None)
        or CallableSpec()
    )
    named = qualname(fn)
    read = read_signature(fn)
    where = read.where
    description, param_docs = _parse_docstring(read.doc)
    parameters: list[contracts.Parameter] = []
    adapters: dict[str, TypeAdapter[Any]] = {}
    for param, annotation, adapter, pschema in typed_parameters(read):
        pname = param.name
        adapters[pname] = adapter
        pschema.pop("title", None)
        if param_docs.get(pname):
            pschema.setdefault("description", param_docs[pname])
        check_parameter_unit(pschema, where=f"{where}, parameter {pname!r}")
        if param.default is not inspect.Parameter.empty:
            default = json_default(
                param, annotation, adapter, pschema, where=f"{where}, parameter {pname!r}"
            )
            if default is not NO_DEFAULT:
                pschema.setdefault("default", default)
        parameters.append(
            contracts.Parameter(
                name=pname,
                location=contracts.ParameterLocation.ARGUMENT,
                json_schema=pschema,
                required=param.default is inspect.Parameter.empty,
                description=param_docs.get(pname) or str(pschema.get("description", "")),
                # its Field(json_schema_extra=...)'s, as an OpenAPI parameter's (trial X3)
                **declared_meaning(pschema, where=f"{where}, parameter {pname!r}", notes=None),
            )
        )
    input_schema = parameters_schema(parameters)
    return_type = read.hints.get("return", inspect.Parameter.empty)
    # as the value is dumped (by alias, computed fields in, excluded fields out)
    output_schema = (
        json_schema(return_type, where=f"{where}, return type", mode="serialization") or None
    )
    endpoint_name = name or spec.name or name_of(fn)
    output_fields = _output_fields(
        return_type, output_schema or {}, spec.fields, where=f"{where}, return type"
    )
    unknown = sorted(set(spec.fields) - {f.name for f in output_fields})
    if unknown:
        known = ", ".join(f.name for f in output_fields) or "none"
        raise DocumentError(
            f"capability(fields=...) names {unknown[0]!r}, which is not an output field "
            f"(its fields: {known})",
            where=f"{where}, return type",
            hint="Name the fields the return type has: a model's or a TypedDict's keys, a "
            "list of models' item leaves (id, name), or 'result' for any other type",
        )
    endpoint = contracts.Endpoint(
        id=endpoint_id(endpoint_name),
        name=endpoint_name,
        operation=contracts.Operation(qualname=named),
        description=spec.description or description,
        input_schema=input_schema,
        parameters=tuple(parameters),
        output_schema=output_schema,
        output_fields=output_fields,
        effect=contracts.Effect(effect) if effect is not None else spec.effect,
        intents=spec.intents,
        policy_tags=spec.policy_tags,
    )
    return endpoint, call_shape_of(read, adapters)


def keep_call_shape(fn: Callable[..., Any]) -> None:
    """Keep ``fn``'s call shape for its calls (a function bound by hand to a Python route);
    one whose signature cannot be read takes its arguments as they are, by keyword."""
    with contextlib.suppress(DocumentError):
        remember(fn, call_shape(fn))


class CallableOptions(TypedDict, total=False):
    """The options of :func:`callable_registration` and :func:`compile_callables` after the
    provider, each a keyword and each optional (the default in brackets): ``effect``
    (``None``: each function's own, from :func:`capability`, else ``read``), ``license``
    (``None``), ``source_type`` (``unknown``) and ``access_id`` (``"python"``: the id of the
    routes' access path)."""

    effect: contracts.Effect | str | None
    license: str | None
    source_type: contracts.SourceType | str
    access_id: str


def callable_registration(
    functions: Sequence[Callable[..., Any]],
    *,
    provider: str | contracts.Provider,
    **options: Unpack[CallableOptions],
) -> contracts.Registration:
    """Compile typed callables of one provider into a Registration."""
    check_keywords(options, CallableOptions.__optional_keys__, callable_registration)
    return compile_callables(functions, provider=provider, **options)[0]


#: The first word of a function's name that says it changes something (``create_note``).
_CHANGE_VERB = re.compile(
    r"^_*(?:create|add|new|insert|post|put|patch|update|edit|modify|set|delete|remove|drop|"
    r"destroy|purge|clear|reset|cancel|refund|charge|pay|transfer|send|notify|publish|upload|"
    r"write|save|store|book|reserve|submit|approve|reject|archive|move|rename|assign|import|"
    r"revoke|terminate|kill|stop|start|restart|wipe|erase|disable|enable|deploy|rollback|"
    r"shutdown|suspend|ban|block|unblock|grant|deactivate|activate|lock|unlock|merge|close|"
    r"trigger|invite|subscribe|unsubscribe|mark|apply|sync|push|commit)"
    r"(?:_|[A-Z]|$)"
)


def _reads_like_a_change(fn: Callable[..., Any], endpoint: contracts.Endpoint) -> str | None:
    """A warning for a function registered as a read (no ``effect``, no :func:`capability`)
    whose name says it changes something: a plan or ``router.call`` runs a read with no
    approval (trial T7: ``create_note`` did)."""
    if hasattr(fn, _CAPABILITY_ATTR) or endpoint.effect is not contracts.Effect.READ:
        return None
    name = str(getattr(fn, "__name__", "") or endpoint.id)
    if not _CHANGE_VERB.match(name):
        return None
    return (
        f"callable {qualname(fn)}: registered as a read (no effect given), so a plan or "
        "router.call runs it without approval; if it changes anything, register it with "
        "effect='write' (or 'destructive'), or declare @capability(effect=...)"
    )


def compile_callables(
    functions: Sequence[Callable[..., Any]],
    *,
    provider: str | contracts.Provider,
    **options: Unpack[CallableOptions],
) -> tuple[contracts.Registration, dict[str, Callable[..., Any]]]:
    """Compile typed callables of one provider into a Registration, with the function each
    route runs (by route id: functions that share a name, closures of one factory, are each
    their own route's); each function's call shape is kept for its calls."""
    check_keywords(options, CallableOptions.__optional_keys__, compile_callables)
    effect = options.get("effect")
    license = options.get("license")
    source_type = options.get("source_type", contracts.SourceType.UNKNOWN)
    access_id = options.get("access_id", "python")
    method = "add_callable"
    if effect is not None:
        effect = enum_value(effect, contracts.Effect, method=method, name="effect")
    kind = enum_value(source_type, contracts.SourceType, method=method, name="source_type")
    check_instance(license, str, method=method, name="license", optional=True)
    check_instance(provider, (str, contracts.Provider), method=method, name="provider")
    provider_model = named_provider(
        provider,
        where=f"python: provider {str(provider)[:80]!r}",
        license=license,
        source_type=kind,
    )
    module = sorted({module_of(f) for f in functions})
    access = contracts.AccessPath(
        id=access_id, kind=contracts.AccessKind.PYTHON, server=",".join(module)
    )
    specs: list[RouteSpec] = []
    by_endpoint: dict[str, Callable[..., Any]] = {}
    warnings: list[str] = []
    for fn in functions:
        endpoint, shape = _describe(fn, effect=effect)
        specs.append(RouteSpec(provider_model, access, endpoint, f"callable {qualname(fn)}"))
        by_endpoint.setdefault(endpoint.id, fn)  # a second one is refused as a duplicate
        remember(fn, shape)
        if note := _dropped(fn):
            warnings.append(note)
        if effect is None and (note := _reads_like_a_change(fn, endpoint)):
            warnings.append(note)
    registration = build_registration(
        specs, source=f"python:{','.join(module)}", providers=[provider_model], warnings=warnings
    )
    return registration, {r.route_id: by_endpoint[r.endpoint.id] for r in registration.routes}
