"""What execution hands back: typed values with unit, provenance and license.

Pydantic at the edge: an :class:`ExecutionResult` holds one :class:`StepResult` per plan step;
a step holds one :class:`FieldValue` per planned field (keyed by the planned field's name),
whether it was delivered, came from a fallback route, or is missing. Nothing is dropped
silently: a field that could not be delivered is present with ``status`` ``missing`` or
``invalid`` and the issues that say why.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Attempt",
    "CallResult",
    "ErrorInfo",
    "ExecutionResult",
    "FallbackUse",
    "FieldIssue",
    "FieldStatus",
    "FieldValue",
    "StepResult",
    "StepStatus",
]

FieldStatus = Literal["ok", "partial", "missing", "invalid"]
StepStatus = Literal["ok", "partial", "fallback", "failed"]


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldIssue(_Result):
    """One problem with a field's raw value, located by a JSON path into the raw output."""

    #: ``missing`` (absent in the output), ``invalid`` (breaks the field's or the output's
    #: declared schema), ``not_normalized`` (a declared spec could not apply: not a number),
    #: ``route_failed`` (the route failed and no fallback supplied the field).
    kind: Literal["missing", "invalid", "not_normalized", "route_failed"]
    path: str
    message: str


class FieldValue(_Result):
    """One planned field: the value (normalized where a spec is declared) and its evidence.

    ``value`` and ``raw_value`` have the shape of the field's path: a scalar for a plain path,
    a list per ``*`` (``None`` where an element is missing or invalid).
    """

    field: str
    semantic_id: str | None
    value: Any
    raw_value: Any
    #: Unit of ``value``: the canonical unit when normalized, else the source unit.
    unit: str | None
    source_unit: str | None
    canonical_unit: str | None
    dimension: str | None
    normalized: bool
    qualifiers: dict[str, str]
    #: Provenance: the kind of evidence (``calculated``, ``experimental`` ...).
    source_type: str
    license: str | None
    license_url: str | None
    provider: str
    route_id: str
    fingerprint: str
    #: Path of the field in the raw output (``data.*.band_gap``).
    path: str
    status: FieldStatus
    issues: tuple[FieldIssue, ...] = ()
    #: Set when a fallback route supplied this field: the planned route it stands in for.
    fallback_for: str | None = None


class ErrorInfo(_Result):
    """An error as data: its stable code, type and message (credential values redacted)."""

    code: str
    type: str
    message: str


class Attempt(_Result):
    """One call of one route (a retry is another attempt)."""

    route_id: str
    number: int
    ok: bool
    elapsed_s: float
    status_code: int | None = None
    error: ErrorInfo | None = None


class FallbackUse(_Result):
    """A fallback tried for a failed step: which fields, from which route, and why."""

    from_route: str
    to_route: str
    to_fingerprint: str
    #: planned field (on ``from_route``) -> field on ``to_route``
    fields: dict[str, str]
    semantic_ids: tuple[str, ...]
    #: Why the planned route was left (its error).
    reason: str
    used: bool
    #: Why the fallback was not used (``None`` when it was).
    skipped: str | None = None
    #: Identifier fields of the fallback route, to tell which records the values belong to.
    identifiers: dict[str, FieldValue] = {}
    #: What standing in changed beside the route (source type, licence), where it did.
    changes: tuple[str, ...] = ()


class _RouteRun(_Result):
    """What a plan's step and a single call record alike: the route, its status, the
    typed fields and the arguments sent."""

    route_id: str
    fingerprint: str
    provider: str
    endpoint: str
    status: StepStatus
    #: planned (or requested) field name -> its value (every one is here, delivered or not).
    fields: dict[str, FieldValue]
    #: Arguments sent (the plan's, plus a filled server-side projection parameter).
    arguments: dict[str, Any]
    #: Where the server says the created thing is: the ``Location`` header of a ``201
    #: Created`` (or ``202 Accepted``) answer, absolute; ``None`` for any other answer.
    location: str | None = None
    #: The licences and source types the route's output is under, each once: each output
    #: field's own, else its provider's (the provider's alone where the route declares no
    #: fields); a typed value's own is on its :class:`FieldValue`. A raw output carries
    #: no other (an output with no typed field carried none: user trial U4).
    licenses: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()


class StepResult(_RouteRun):
    #: Field names sent to the server's projection parameter (``None``: projected locally).
    server_projection: tuple[str, ...] | None = None
    attempts: tuple[Attempt, ...] = ()
    fallbacks: tuple[FallbackUse, ...] = ()
    error: ErrorInfo | None = None
    #: Problems of the raw output outside any planned field (output-schema violations).
    issues: tuple[FieldIssue, ...] = ()
    #: The raw output, validated against the declared output schema: whole where the step
    #: asked for it (``PlanStep.whole_output``), else projected to the planned fields'
    #: paths (``None`` where the step failed, or the route answered with no body).
    output: Any = None
    bytes: int = 0
    elapsed_s: float = 0.0
    attribution: str | None = None


class ExecutionResult(_Result):
    """Everything one execution produced."""

    registry_version: int
    steps: tuple[StepResult, ...]
    calls: int
    bytes: int
    elapsed_s: float
    partial: bool
    warnings: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Every planned field of every step delivered without issue (never for a plan of
        no steps: nothing was delivered; ``warnings`` says why)."""
        return bool(self.steps) and all(
            v.status == "ok" for step in self.steps for v in step.fields.values()
        )

    def values(self) -> Iterator[FieldValue]:
        for step in self.steps:
            yield from step.fields.values()

    def by_semantic_id(self, semantic_id: str) -> list[FieldValue]:
        return [v for v in self.values() if v.semantic_id == semantic_id]

    def field(self, name: str) -> FieldValue:
        """The planned field ``name`` (the first step that planned it)."""
        for step in self.steps:
            if name in step.fields:
                return step.fields[name]
        raise KeyError(name)

    @property
    def fallbacks(self) -> tuple[FallbackUse, ...]:
        return tuple(f for step in self.steps for f in step.fallbacks)


class CallResult(_RouteRun):
    """What :meth:`SchemaRouter.call` hands back for one route: the validated raw output
    and the typed fields, with the call's record.

    ``output`` is the raw output validated against the route's declared output schema:
    projected to the paths of the requested ``fields`` where some were given, else whole.
    ``fields`` holds a :class:`FieldValue` per requested field, or (with none requested) per
    declared field that carries meaning: a semantic id, a unit or an identifier flag.
    """

    output: Any
    #: True where ``output`` is projected to the requested fields (False: the whole output).
    projected: bool
    registry_version: int
    attempts: tuple[Attempt, ...] = ()
    error: ErrorInfo | None = None
    issues: tuple[FieldIssue, ...] = ()
    calls: int = 0
    bytes: int = 0
    elapsed_s: float = 0.0
    warnings: tuple[str, ...] = ()
    attribution: str | None = None

    @property
    def ok(self) -> bool:
        """The call succeeded and its output validated (every typed field delivered or
        absent from an output that does not carry it)."""
        return self.status == "ok"

    def value(self, name: str) -> Any:
        """The (normalized) value of typed field ``name``."""
        return self.fields[name].value

    @classmethod
    def of(cls, result: ExecutionResult, *, projected: bool) -> CallResult:
        """The one step of a single-call execution."""
        (step,) = result.steps
        return cls(
            **{name: getattr(step, name) for name in _RouteRun.model_fields},
            output=step.output,
            projected=projected,
            registry_version=result.registry_version,
            attempts=step.attempts,
            error=step.error,
            issues=step.issues,
            calls=result.calls,
            bytes=result.bytes,
            elapsed_s=result.elapsed_s,
            warnings=result.warnings,
            attribution=step.attribution,
        )
