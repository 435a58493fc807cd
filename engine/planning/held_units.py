"""What a plan says of the units a request states, and the numbers it holds back for them.

:mod:`.stated_units` converts a quantity stated in another unit into the unit a parameter
declares; this pass, over the plan's steps, says each conversion ("68 degF -> 20 degC"), says
why a parameter left missing took no quantity the request states ("12 kg" for a temperature,
a word no unit pint reads, a whole number off by more than a tenth), and holds back a number
sent as written where the request states it in another unit: "set thermostat T-1 to 68, in
Fahrenheit" (a bare 68 in a request that states its unit) or "target: 68 °F" (taken by its
name, unconverted) no longer send 68 to a parameter in °C; the parameter is listed missing,
so nothing is sent until it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Parameter, Route
from schemarouter.planning.asked_units import asked_units
from schemarouter.planning.body import body_fields, body_key, held_back
from schemarouter.planning.quantities import numeric
from schemarouter.planning.stated_units import (
    Stated,
    converted,
    declared_in,
    dimension,
    shown,
    stated_quantities,
)
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.units import parse_unit

__all__ = ["held_units"]


def _numbers(route: Route, arguments: Mapping[str, Any]) -> list[tuple[Parameter, str, Any]]:
    """``(parameter, key, value)`` of each number ``route`` takes that declares a unit, its
    value ``None`` where ``arguments`` give none (a body property keyed ``body.name``)."""
    fields = body_fields(route)
    body = fields.parameter if fields is not None else None
    held = arguments.get(body.name) if body is not None else None
    held = held if isinstance(held, Mapping) else {}
    found = [(p, p.name, arguments.get(p.name)) for p in route.endpoint.parameters if p != body]
    if fields is not None and body is not None:
        found += [(p, body_key(body, p.name), held.get(p.name)) for p in fields.properties]
    return [(p, k, v) for p, k, v in found if numeric(p) and declared_in(p) is not None]


def _same(unit: str | None, declared: str) -> bool:
    return unit is not None and parse_unit(unit) == parse_unit(declared)


def _said(stated: Stated) -> str:
    return f"{stated.text} {stated.spelled}".strip()


def held_units(
    snapshot: RegistrySnapshot, steps: Sequence[Any], query: str, warnings: list[str]
) -> list[Any]:
    """``steps`` (plan steps), each number held back where the request states it in another
    unit, said in ``warnings`` with each conversion and each refusal (module docstring)."""
    stated = stated_quantities(query)
    asked = asked_units(query)
    out = []
    for step in steps:
        route = snapshot.routes.get(step.route_id)
        if route is None:
            out.append(step)
            continue
        numbers = _numbers(route, step.arguments)
        dimensions = {dimension(declared_in(p) or "") for p, _, _ in numbers}
        held: list[tuple[Parameter, str]] = []
        for parameter, key, value in numbers:
            unit = declared_in(parameter) or ""
            want = dimension(unit)
            where = f"{key} of {step.route_id} (declared in {unit})"
            if value is not None and not isinstance(value, bool):
                froms = [
                    s
                    for s in stated
                    if s.unit and not _same(s.unit, unit) and converted(parameter, s, unit) == value
                ]
                if froms:
                    source = froms[0]
                    warnings.append(
                        f"converted {shown(source.number)} {source.unit} -> {value} {unit} "
                        f"({_said(source)!r} in the request) for {where}"
                    )
                    continue
                why = _unconverted(value, stated, asked, unit, want)
                if why:
                    warnings.append(
                        f"{why}, and {where} takes it as written: it is held back, so the "
                        f"step is not sent; give it with Plan.with_arguments("
                        f"{step.route_id!r}, {{{key!r}: ...}}) in {unit}"
                    )
                    held.append((parameter, key))
                continue
            if key not in step.missing_parameters:
                continue
            others = dimensions - {want}  # a quantity another number of the route takes
            refused = [
                reason
                for s in stated
                if s.spelled
                and dimension(s.unit or "") not in others
                and isinstance(reason := converted(parameter, s, unit), str)
            ]
            if refused:
                reasons = "; ".join(refused[:3])
                warnings.append(
                    f"{where} takes no quantity the request states: {reasons}; nothing is "
                    "converted or sent for it; give it with Plan.with_arguments("
                    f"{step.route_id!r}, {{{key!r}: ...}}) in {unit}"
                )
        out.append(held_back(step, [key for _, key in held]) if held else step)
    return out


def _unconverted(
    value: Any, stated: Sequence[Stated], asked: Sequence[str], unit: str, want: Any
) -> str | None:
    """Why ``value`` (a number taken as written) is not in ``unit``, where the request states
    it so: written only with another unit of its dimension ("target: 68 °F"), or bare beside
    another unit of its dimension that the request states ("to 68, in Fahrenheit"); ``None``
    else."""
    same = [s for s in stated if s.number == value]
    if not same:
        return None
    if all(s.unit and dimension(s.unit) == want and not _same(s.unit, unit) for s in same):
        return f"the request writes {_said(same[0])}, not in {unit}"  # "30m" is no length
    others = [u for u in asked if dimension(u) == want and not _same(u, unit)]
    others += [
        s.unit for s in stated if s.unit and dimension(s.unit) == want and not _same(s.unit, unit)
    ]
    if others and any(not s.spelled for s in same):
        return f"the request writes {shown(value)} with no unit and states {others[0]}"
    return None
