"""A value the request states that its parameter's schema refuses holds the change back.

Trial 19's shop takes ``create_coupon(expires_on, discount_percent: 1..90 = None,
discount_krw: > 0 = None)``. "내일까지 유효한 120% 쿠폰 만들어줘" (a 120% coupon valid until
tomorrow) read 120 for ``discount_percent``, the schema refused it, and the value dropped out:
the coupon was created with ``expires_on`` alone, a coupon of no discount (so were "0.5%" and
"₩-5000 할인 쿠폰"; nineteenth security review). A change is asked with what the request says;
without one of its values it is another change.

For each step of a change, the arguments are read again with every parameter's bounds
lifted (``minimum``, ``maximum``, their exclusive forms, ``multipleOf``, lengths, item counts;
an integer read as any number: :func:`_lifted`), and for a step nothing else holds, its
``pattern`` and ``enum`` too (a step already held keeps the reasons it has). The
twentieth review: with bounds lifted only, "set the priority of AMP-0009 to urgent and the
price to 20 EUR" (``low`` / ``normal`` / ``high``) sent the price alone, and "open a ticket
'amp hums' with fault code XY12" (``^[A-Z]{2}[0-9]{3}$``) opened it with no code. A
parameter the step leaves out that the lifted reading fills with a value the real schema
refuses is what the request states and the call cannot carry: it is listed missing, so
``execute`` sends nothing until it is given, and the plan says which value, where, and why
(:func:`held_out_of_schema`). Reads keep their steps: a filter the schema refuses narrows
nothing it would not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.planning.arguments import fill_arguments
from schemarouter.planning.body import given_arguments, held_back
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.analysis import BoundValue
from schemarouter.retrieval.gate import value_refusal
from schemarouter.retrieval.values import value_schema

__all__ = ["held_out_of_schema"]

#: What bounds a value within its type; lifted for the second reading.
_BOUNDS = frozenset(
    (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
    )
)
#: Lifted too for a step complete but for them: a value an enum or a pattern refuses.
_SHAPES = _BOUNDS | {"pattern", "enum"}


def _lifted(schema: Any, lifted: frozenset[str] = _BOUNDS) -> Any:
    """``schema`` with its ``lifted`` keywords lifted, here and in what it nests (module
    docstring)."""
    if isinstance(schema, list):
        return [_lifted(item, lifted) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {k: _lifted(v, lifted) for k, v in schema.items() if k not in lifted}
    for key in ("properties", "patternProperties", "$defs", "definitions"):  # names, no keywords
        if isinstance(schema.get(key), Mapping):
            out[key] = {name: _lifted(sub, lifted) for name, sub in schema[key].items()}
    kind = out.get("type")
    if kind == "integer":
        out["type"] = "number"
    elif isinstance(kind, list) and "integer" in kind:
        out["type"] = [k for k in kind if k != "integer"] + (
            ["number"] if "number" not in kind else []
        )
    return out


def _lifted_route(route: Route, lifted: frozenset[str]) -> Route:
    parameters = tuple(
        p.model_copy(update={"json_schema": _lifted(p.json_schema, lifted)})
        for p in route.endpoint.parameters
    )
    return route.model_copy(
        update={"endpoint": route.endpoint.model_copy(update={"parameters": parameters})}
    )


def held_out_of_schema(
    snapshot: RegistrySnapshot,
    steps: Sequence[Any],
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[Any]:
    """``steps`` (plan steps), a change's parameter listed missing where the request states a
    value for it that its schema refuses, said in ``warnings`` (module docstring)."""
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        if route is None or route.endpoint.effect is Effect.READ:
            out.append(step)
            continue
        held = _held(route, step, query, values, warnings, _BOUNDS)
        if not held and not step.missing_parameters:  # "to urgent" of low / normal / high
            held = _held(route, step, query, values, warnings, _SHAPES)
        out.append(held_back(step, held) if held else step)
    return out


def _held(
    route: Route,
    step: Any,
    query: str,
    values: Sequence[BoundValue],
    warnings: list[str],
    lifted_keys: frozenset[str],
) -> list[str]:
    """The keys of ``step`` left out that a reading with ``lifted_keys`` lifted fills with a
    value the real schema refuses, each said in ``warnings``."""
    given = given_arguments(route, step.arguments)
    lifted = given_arguments(
        route, fill_arguments(_lifted_route(route, lifted_keys), query, values)
    )
    held: list[str] = []
    for key, (parameter, value) in lifted.items():  # each parameter as declared
        if key in given or key in step.missing_parameters:
            continue
        why = value_refusal(parameter, value)
        if why:  # an optional's own schema says it best ("greater than the maximum of 90")
            member = parameter.model_copy(
                update={"json_schema": value_schema(parameter.json_schema)}
            )
            why = value_refusal(member, value) or why
            held.append(key)
            warnings.append(
                f"{step.route_id}: the request's {value!r} for {key!r} {why}; the change "
                "is not sent without it: give a value it takes with Plan.with_arguments("
                f"{step.route_id!r}, {{{key!r}: ...}})"
            )
    return held
