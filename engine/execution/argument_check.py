"""The gate's check of one call's arguments against its route's registered parameters.

Every problem is found in one pass and reported in one
:class:`~schemarouter.errors.ParameterValidationError`: a name the route does not register,
a value no request can carry, a value its schema refuses, a required parameter missing. An
agent that sent ``{"ticket_id": "4821", "status": "closed"}`` to a route with an integer
``ticket_id`` and no ``status`` learns both at once, not one per turn (a user trial). The
error's ``json_path`` is the first problem's; its message lists them all (up to
:data:`MAX_LISTED`).

A ``null`` given for an optional parameter whose schema takes no ``null`` is read as the
parameter left out (a language model writes ``"priority": null`` for "not given"): it is
dropped, nothing is sent for it, and ``notes`` says so. Nothing that is not registered is
ever kept.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from schemarouter.contracts import Route
from schemarouter.errors import ExecutionError, ParameterValidationError
from schemarouter.execution.outputs import json_path
from schemarouter.planning.body import pending_body, without_required
from schemarouter.registry.bounds import MAX_OUTPUT_DEPTH, json_problem
from schemarouter.safety.arguments import argument_validator

__all__ = ["MAX_LISTED", "check_arguments", "with_path"]

#: Problems one refusal lists (the rest are counted).
MAX_LISTED = 10


def with_path(error: ExecutionError, path: str) -> ExecutionError:
    error.json_path = path  # type: ignore[attr-defined]
    return error


def _argument_problem(value: Any, name: str) -> tuple[str, str] | None:
    """Why ``value`` is no argument a request can carry, and the hint, or ``None``: a JSON
    value, finite, not nested past the output limit, its text (keys too) valid Unicode
    (valid JSON text can decode to a lone surrogate, "\\ud800", which no request encodes)."""
    if json_problem(value, max_depth=MAX_OUTPUT_DEPTH) is not None:
        return "is not a JSON value", ""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return (
            "holds text that is not valid Unicode (a lone surrogate, such as \\ud800), which "
            "no request can carry",
            "Send the text as valid UTF-8",
        )
    except (TypeError, ValueError, RecursionError):
        found = _foreign(value, [name])
        if found is None:
            return "is not a JSON value", ""
        where, kind = found
        what = f"it is a {kind}" if len(where) == 1 else f"it holds a {kind} at {json_path(where)}"
        return f"is not a JSON value: {what}", _AS_JSON
    return None


#: What to pass for a Python value that is no JSON value (trial X3: a ``date`` and a model
#: given to ``router.call`` were refused with no hint).
_AS_JSON = (
    "Pass JSON data, as a model's tool call writes it: a date or datetime as its ISO text "
    "(.isoformat()), a pydantic model as .model_dump(mode='json'), an Enum as its .value"
)


def _foreign(value: Any, at: list[str | int]) -> tuple[list[str | int], str] | None:
    """The place (below the argument) and type of the first value in ``value`` that is no
    JSON type, or ``None``."""
    if value is None or isinstance(value, str | int | float):
        return None
    if isinstance(value, Mapping):
        items: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        kind = type(value)
        return at, kind.__qualname__ if kind.__module__ == "builtins" else (
            f"{kind.__module__}.{kind.__qualname__}"
        )
    for key, child in items:
        found = _foreign(child, [*at, key if isinstance(key, int) else str(key)])
        if found is not None:
            return found
    return None


def check_arguments(
    route: Route,
    arguments: Any,
    where: str,
    *,
    pending: Iterable[str] = (),
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """``arguments`` if they are registered parameters with schema-valid values; required
    parameters in ``pending`` (bound to an earlier step's output) may be absent yet, and so may
    the required properties of a JSON body it names (``body.customer_id``), the rest of the
    body checked as given. A
    ``null`` for an optional parameter that takes none is dropped (said in ``notes``)."""
    if not isinstance(arguments, Mapping):
        raise with_path(
            ParameterValidationError("arguments must be a mapping", where=f"{where} arguments"),
            "$",
        )
    params = {p.name: p for p in route.endpoint.parameters}
    problems: list[tuple[str, str, str]] = []  # (json path, what, hint)
    kept: dict[str, Any] = {}
    refused: set[str] = set()  # given, but no value a request carries: not also "missing"
    for name, value in arguments.items():
        path = json_path([str(name)])
        if not isinstance(name, str) or name not in params:
            hint = f"Registered parameters: {', '.join(sorted(params)) or 'none'}"
            what = f"{route.route_id} has no parameter {str(name)[:80]!r}"
            # a misspelled name ("citty"), among the parameters not given under their own
            close = difflib.get_close_matches(
                str(name), [p for p in params if p not in arguments], n=1, cutoff=0.75
            )
            if close:
                what += f" (did you mean {close[0]!r}?)"
            else:
                body = _body_holding(route, str(name))
                if body is not None:  # a body property given as a parameter of its own
                    what += f": it is a property of the request body {body!r}"
                    hint = f"{_IN_BODY}{body!r}: {{{body!r}: {{{str(name)[:80]!r}: ...}}}}"
            problems.append((path, what, hint))
            continue
        problem = _argument_problem(value, name)
        if problem is not None:
            problems.append((path, f"argument {name!r} {problem[0]}", problem[1]))
            refused.add(name)
            continue
        schema = params[name].json_schema
        if value is None and not params[name].required and not _takes(schema, None):
            if notes is not None:
                notes.append(
                    f"{where}: argument {name!r} is null, read as left out (the parameter is "
                    "optional and takes no null); nothing is sent for it"
                )
            continue
        kept[name] = value
    later = frozenset(pending) - set(kept)
    whole = route.endpoint.input_schema
    own = {name: params[name].json_schema for name in kept}
    waiting = pending_body(route, later)
    if waiting is not None:  # body properties bound to an earlier step: absent until then
        body, names = waiting
        later |= {body}
        if body in own:
            own[body] = without_required(own[body], names)
        inner = whole.get("properties", {}).get(body)
        if isinstance(inner, Mapping):
            inner = without_required(inner, names)
            whole = {**whole, "properties": {**whole["properties"], body: inner}}
    if later and isinstance(whole.get("required"), list):
        whole = {**whole, "required": [n for n in whole["required"] if n not in later]}
    # the whole schema sees the registered names only (an unknown one is reported above)
    schemas = [((), whole, kept)] + [((name,), own[name], value) for name, value in kept.items()]
    seen = {(path, what) for path, what, _ in problems}
    for prefix, schema, instance in schemas:
        for error in argument_validator(schema).iter_errors(instance):
            if not prefix and refused.intersection(_absent(error)):
                continue  # given, and refused above
            path = json_path([*prefix, *error.absolute_path, *_absent(error)])
            what = f"arguments break the registered input schema: {_message(error)}"
            if (path, what) not in seen:  # a property's error, from its own schema again
                seen.add((path, what))
                hint = _unfilled(route, where, prefix, error) or _retyped(error) or _SEE_SCHEMA
                problems.append((path, what, hint))
    missing = [
        p.name
        for p in route.endpoint.parameters
        if p.required and p.name not in kept and p.name not in later and p.name not in refused
    ]
    said = " ".join(w for _, w, _ in problems)
    if missing and not any(f"{m!r} is a required property" in said for m in missing):
        problems.append(
            (
                json_path([missing[0]]),
                f"required parameters missing: {', '.join(missing)}",
                "Bind them in the plan's arguments",
            )
        )
    if problems:
        raise _refusal(problems, where)
    # 5.0 is an integer to JSON Schema, but "limit=5.0" is not one to most servers
    return {name: _whole(value, params[name].json_schema) for name, value in kept.items()}


_SEE_SCHEMA = "Fix the value there; see the route's input schema"
_SENT_AS = "Send it as the "
_IN_BODY = "Send it inside "
_FILL = "Fill it before executing: "


def _body_holding(route: Route, name: str) -> str | None:
    """The request body parameter whose object schema has the property ``name``, or
    ``None``: ``{"city": ...}`` sent to a route that takes ``{"body": {"city": ...}}``."""
    for param in route.endpoint.parameters:
        properties = param.json_schema.get("properties")
        located = param.location.value == "body"
        if located and isinstance(properties, Mapping) and name in properties:
            return param.name
    return None


def _unfilled(route: Route, where: str, prefix: tuple[str, ...], error: Any) -> str | None:
    """The hint for a required parameter a plan's step leaves out (one the request did not
    give, which ``plan.missing_arguments`` lists): how to fill it before executing, rather
    than "fix the value there" for a value that is not there."""
    missing = _absent(error)
    if not where.startswith("plan step") or prefix or error.absolute_path or not missing:
        return None
    return (
        f"{_FILL}plan = plan.with_arguments({route.route_id!r}, "
        f"{{{missing[0]!r}: ...}}) (plan.missing_arguments lists what each step still needs)"
    )


def _retyped(error: Any) -> str | None:
    """The hint for a value of the wrong type that its right type would carry: an id sent as
    the number 1234 where the schema takes the string "1234" (models often write ids as
    numbers), or a count sent as the text "5" where it takes the number 5. The value is
    refused all the same (the schema is the contract); the hint says what to send."""
    if error.validator != "type":
        return None
    value, schema = error.instance, error.schema
    if isinstance(value, bool) or not isinstance(schema, Mapping):
        return None
    if isinstance(value, int | float):
        retyped: Any = json.dumps(value)
        what = f"string {json.dumps(retyped)}"
    elif isinstance(value, str) and len(value) <= 40:
        try:
            retyped = json.loads(value.strip())
        except ValueError:
            return None
        if isinstance(retyped, bool) or not isinstance(retyped, int | float):
            return None
        what = f"number {json.dumps(retyped)}"
    else:
        return None
    if not _takes(schema, retyped):
        return None
    return f"{_SENT_AS}{what}"


def _message(error: Any) -> str:
    """The error's message, and for an ``anyOf`` / ``oneOf`` what each alternative wanted:
    "'Network' is not valid under any of the given schemas" alone told an agent neither the
    values of an optional enum (``anyOf: [{enum}, {type: null}]``) nor that case matters,
    where a required enum's refusal lists them (user trial U2)."""
    said: str = error.message[:200]
    value = error.instance
    if (value is None or isinstance(value, bool)) and said.startswith(repr(value) + " "):
        said = json.dumps(value) + said[len(repr(value)) :]  # JSON's true, not Python's True
    if error.validator in ("anyOf", "oneOf") and error.context:
        first: dict[Any, str] = {}  # the first failure of each alternative
        for sub in error.context:
            first.setdefault(next(iter(sub.relative_schema_path), None), sub.message[:200])
        said = f"{said} ({'; '.join(first.values())})"
    return said[:400]


def _absent(error: Any) -> list[str]:
    """The property a ``required`` error misses, as its place (``$.name``, where the object
    holding it was ``$``): where a parameter was left out, as the parameter list says it."""
    if error.validator != "required" or not isinstance(error.validator_value, list):
        return []
    return [n for n in error.validator_value if f"{n!r} is a required property" == error.message][
        :1
    ]


def _refusal(problems: list[tuple[str, str, str]], where: str) -> ExecutionError:
    """One error for every problem: the first's place and hint; each listed where several."""
    path, what, hint = problems[0]
    if len(problems) > 1:
        listed = "; ".join(f"{p}: {w}" for p, w, _ in problems[:MAX_LISTED])
        more = len(problems) - MAX_LISTED
        what = f"{len(problems)} problems with the arguments: {listed}" + (
            f"; and {more} more" if more > 0 else ""
        )
        hint = "Fix each value named; see the route's input schema" + "".join(
            f". At {p}: {h[0].lower()}{h[1:]}"
            for p, _, h in problems[:MAX_LISTED]
            if h.startswith((_SENT_AS, _IN_BODY, _FILL))
        )
    error = ParameterValidationError(what, where=f"{where} arguments {path}", hint=hint or None)
    return with_path(error, path)


def _takes(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``schema`` accepts ``value``."""
    return not any(True for _ in argument_validator(schema).iter_errors(value))


def _whole(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with a float that is a whole number made an ``int`` where ``schema`` (or
    its array's items) says integer."""
    kinds = schema.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds or ())
    if isinstance(value, float) and value.is_integer() and "integer" in kinds:
        return int(value)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        return [_whole(item, items) for item in value]
    return value
