"""The registry gate: nothing unregistered leaves ``retrieve`` / ``plan`` or enters execution.

Two uses:

- :func:`validate_selection` checks an *external* proposal (say, an LLM's choice of routes,
  fields and arguments) against a registry snapshot. Invented routes, fields and parameters,
  stale fingerprints and schema-invalid values are dropped and reported; only registered
  parts pass. It never raises on bad input: a proposal is untrusted data.
- :func:`check_candidates` asserts the library's own output: every candidate's route id,
  fingerprint, matched fields and bound parameters exist in the snapshot it came from.
  A failure there is a bug, raised as :class:`~schemarouter.errors.GateError`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from schemarouter.contracts import Parameter, ParameterLocation, Route
from schemarouter.errors import GateError
from schemarouter.placement import HEADER_TEXT, dot_segment
from schemarouter.registry.bounds import MAX_OUTPUT_DEPTH, dotted, json_problem
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.results import Candidate
from schemarouter.safety.arguments import argument_validator

__all__ = [
    "GateReport",
    "Rejection",
    "Selection",
    "check_candidates",
    "validate_selection",
    "value_refusal",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Selection(_Frozen):
    """A gated selection: a registered route, its registered fields, valid arguments."""

    route_id: str
    fingerprint: str
    fields: tuple[str, ...] = ()
    arguments: dict[str, Any] = {}


class Rejection(_Frozen):
    """One invented or invalid part of a proposal, and why it was dropped."""

    index: int
    part: str  # "proposal", "route", "fingerprint", "field", "parameter", "value"
    value: str
    reason: str


class GateReport(_Frozen):
    accepted: tuple[Selection, ...]
    rejected: tuple[Rejection, ...]

    @property
    def clean(self) -> bool:
        return not self.rejected


#: How a rejected value is quoted: a few levels and items of it, each string cut, so that
#: neither a value nested past ``repr``'s recursion limit nor a 5 MB one is written whole.
_QUOTE = reprlib.Repr()
_QUOTE.maxlevel, _QUOTE.maxstring, _QUOTE.maxother = 4, 80, 80


def _show(value: Any) -> str:
    try:
        text = _QUOTE.repr(value)
    except Exception:  # a proposal's own object whose __repr__ fails: untrusted data too
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _resolve_field(route: Route, name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    for item in route.endpoint.output_fields:
        if item.name == name:
            return item.name
    matches = [f.name for f in route.endpoint.output_fields if f.semantic_id == name]
    return matches[0] if len(matches) == 1 else None


def _texts(value: Any) -> Iterator[str]:
    """Every string in ``value``, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def value_refusal(parameter: Parameter, value: Any) -> str:
    """Why ``value`` cannot go to ``parameter`` in a call, or ``""``: what execution refuses
    before sending. No JSON value (nested past 100 levels, not finite, a lone surrogate);
    its schema refuses it, ``format`` and ``readOnly`` included
    (:func:`~schemarouter.safety.arguments.argument_validator`); a header or cookie value
    with a control or non-ASCII character (CR LF would start a header of its own); a path
    value that is empty or a dot segment (``..``, ``%2e%2e``: a server climbs out of the
    route's path)."""
    name = parameter.name
    problem = json_problem(value, max_depth=MAX_OUTPUT_DEPTH, unicode=True)
    if problem is not None:  # the validator would recurse, or pass NaN
        return (
            f"{name!r} is no JSON value a call can carry: "
            f"{problem.message} at {dotted((name, *problem.location))}"
        )
    errors = sorted(
        argument_validator(parameter.json_schema).iter_errors(value), key=lambda e: e.path
    )
    if errors:
        return f"breaks the schema of {name!r}: {errors[0].message}"
    place = parameter.location
    if place in (ParameterLocation.HEADER, ParameterLocation.COOKIE) and not all(
        HEADER_TEXT.fullmatch(text) for text in _texts(value)
    ):
        return f"{name!r} is a {place.value} value with control or non-ASCII characters"
    if (
        place is ParameterLocation.PATH
        and isinstance(value, str)
        and (not value or dot_segment(quote(value, safe="")))
    ):
        return f"{name!r} is a path value that is empty or a dot segment"
    return ""


def _gate_one(
    index: int, proposal: Any, snapshot: RegistrySnapshot, rejected: list[Rejection]
) -> Selection | None:
    def reject(part: str, value: Any, reason: str) -> None:
        rejected.append(Rejection(index=index, part=part, value=_show(value), reason=reason))

    if not isinstance(proposal, Mapping):
        reject("proposal", proposal, "a proposal must be a mapping with a route_id")
        return None
    route_id = proposal.get("route_id")
    if not isinstance(route_id, str) or route_id not in snapshot.routes:
        reject("route", route_id, "no such route is registered")
        return None
    route = snapshot.routes[route_id]
    claimed = proposal.get("fingerprint")
    if claimed is not None and claimed != route.fingerprint:
        reject("fingerprint", claimed, f"stale: {route_id} is now {route.fingerprint}")
        return None
    for key in proposal:
        if key not in {"route_id", "fingerprint", "fields", "arguments", "parameters"}:
            reject("proposal", key, "unknown key in a proposal")
    fields: list[str] = []
    raw_fields = proposal.get("fields") or ()
    if isinstance(raw_fields, str | bytes) or not isinstance(raw_fields, Iterable):
        reject("field", raw_fields, "fields must be a list of field names")
        raw_fields = ()
    for name in raw_fields:
        resolved = _resolve_field(route, name)
        if resolved is None:
            reject("field", name, f"{route_id} has no such output field")
        elif resolved not in fields:
            fields.append(resolved)
    arguments: dict[str, Any] = {}
    raw_args = proposal.get("arguments", proposal.get("parameters")) or {}
    if "arguments" in proposal and "parameters" in proposal:  # one was read, never both
        reject("parameter", "parameters", "give arguments or parameters, not both: read arguments")
    if not isinstance(raw_args, Mapping):
        reject("parameter", raw_args, "arguments must be a mapping of parameter names")
        raw_args = {}
    params = {p.name: p for p in route.endpoint.parameters}
    for name, value in raw_args.items():
        parameter = params.get(name) if isinstance(name, str) else None
        if parameter is None:
            reject("parameter", name, f"{route_id} has no such parameter")
            continue
        refusal = value_refusal(parameter, value)
        if refusal:
            reject("value", {name: value}, refusal)
            continue
        arguments[name] = value
    return Selection(
        route_id=route_id, fingerprint=route.fingerprint, fields=tuple(fields), arguments=arguments
    )


def validate_selection(snapshot: RegistrySnapshot, proposals: Any) -> GateReport:
    """Keep the registered parts of ``proposals``; report every invented one."""
    rejected: list[Rejection] = []
    accepted: list[Selection] = []
    if isinstance(proposals, Mapping):
        proposals = [proposals]
    if isinstance(proposals, str | bytes) or not isinstance(proposals, Iterable):
        rejected.append(
            Rejection(
                index=0,
                part="proposal",
                value=_show(proposals),
                reason="expected a list of proposals",
            )
        )
        return GateReport(accepted=(), rejected=tuple(rejected))
    for index, proposal in enumerate(proposals):
        selection = _gate_one(index, proposal, snapshot, rejected)
        if selection is not None:
            accepted.append(selection)
    return GateReport(accepted=tuple(accepted), rejected=tuple(rejected))


def check_candidates(snapshot: RegistrySnapshot, candidates: Iterable[Candidate]) -> None:
    """Raise :class:`GateError` if any candidate is not exactly what the snapshot holds."""
    for candidate in candidates:
        route = snapshot.routes.get(candidate.route_id)
        if route is None or route.fingerprint != candidate.fingerprint:
            raise GateError(
                f"candidate {candidate.route_id!r} is not registered with fingerprint "
                f"{candidate.fingerprint}",
                where=f"registry version {snapshot.version}",
                hint="This is a bug: report it with the query",
            )
        names = {f.name for f in route.endpoint.output_fields}
        extra = set(candidate.matched_fields) - names
        params = {p.name for p in route.endpoint.parameters}
        extra_params = set(candidate.bound_parameters) - params
        if extra or extra_params:
            raise GateError(
                f"candidate {candidate.route_id!r} carries unregistered fields {sorted(extra)} "
                f"or parameters {sorted(extra_params)}",
                where=f"registry version {snapshot.version}",
                hint="This is a bug: report it with the query",
            )
