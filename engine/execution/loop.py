"""The execution loop, written once for sync and async: a generator of I/O operations.

:class:`Run` walks a gated plan step by step. Where it needs I/O it *yields* an operation
(:class:`~schemarouter.execution.invokers.http.HttpSend`,
:class:`~schemarouter.execution.invokers.mcp.McpCall`,
:class:`~schemarouter.execution.invokers.python.PythonCall`,
:class:`~schemarouter.execution.invokers.payload.Sleep`) and receives its result (or has its error
thrown in); :mod:`schemarouter.execution.drivers` drives it with blocking or awaiting I/O. Retries,
backoff, health, budgets, output validation, normalization and fallbacks all live here, once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterable
from typing import Any

from schemarouter.contracts import AccessKind, Effect, OutputField, Route
from schemarouter.errors import (
    BudgetExceededError,
    ExecutionError,
    InvocationError,
    OutputValidationError,
    PolicyError,
    SchemaRouterError,
)
from schemarouter.execution.bound_values import bound_from, bound_note
from schemarouter.execution.credentials import Redactor
from schemarouter.execution.gate import (
    ExecutionHost,
    Gated,
    Gatekeeper,
    Settings,
    check_base_url,
    redacted,
    with_path,
)
from schemarouter.execution.invokers import http, mcp, python
from schemarouter.execution.invokers.payload import (
    Payload,
    Sleep,
    clip,
    counts_for_health,
    is_retryable,
    outcome_unknown,
    retry_after,
)
from schemarouter.execution.outputs import (
    check_output_shape,
    document_issues,
    extract_field,
    json_path,
    missing_field,
    more_pages,
    output_hint,
    output_standing,
    present_values,
    project_output,
)
from schemarouter.execution.policy import BudgetMeter, approval, unhealthy_error
from schemarouter.execution.results import (
    Attempt,
    ErrorInfo,
    ExecutionResult,
    FallbackUse,
    FieldValue,
    StepResult,
)
from schemarouter.planning.body import bound_parameter, with_bound
from schemarouter.planning.fallbacks import fallback_changes, kept_to
from schemarouter.planning.planner import Plan, route_identity

__all__ = ["Op", "Run"]

logger = logging.getLogger(__name__)


#: What :class:`Run` yields: ``HttpSend | McpCall | PythonCall | Sleep``.
Op = Any
_Gen = Generator[Op, Any, Any]


def _unknown_write(exc: SchemaRouterError, route: Route) -> SchemaRouterError:
    """``exc`` of a write or destructive call whose outcome is unknown: not retryable, and
    saying so (a blind retry could create the order twice)."""
    effect = route.endpoint.effect.value
    clone = exc.hinting(
        f"The {effect} was sent once and not retried, and the server may have performed "
        "it: check whether it took effect before calling again (calling again blindly may "
        "perform it twice)"
    )
    clone.retryable = False  # type: ignore[attr-defined]
    return clone


def _info(error: SchemaRouterError) -> ErrorInfo:
    return ErrorInfo(code=error.code, type=type(error).__name__, message=str(error))


def _attempt(
    route: Route,
    number: int,
    started: float,
    status_code: int | None,
    *,
    error: ErrorInfo | None = None,
) -> Attempt:
    """One call's record: ok unless ``error`` is given."""
    return Attempt(
        route_id=route.route_id,
        number=number,
        ok=error is None,
        elapsed_s=round(time.monotonic() - started, 6),
        status_code=status_code,
        error=error,
    )


class Run:
    """One execution of one plan (a generator of I/O operations)."""

    def __init__(self, host: ExecutionHost, plan: Plan, settings: Settings) -> None:
        self.host = host
        self.plan = plan
        self.s = settings
        self.policy = settings.policy
        self.snapshot = host.snapshot
        self.meter = BudgetMeter(settings.budget)
        self.redactor = Redactor()
        self.gate = Gatekeeper(host, settings.under(plan.request), self.redactor)
        #: the steps a later step's bindings read from, and their raw outputs once run
        self.sources = {b.step for step in plan.steps for b in step.bindings.values()}
        self.raw: dict[int, Any] = {}
        #: the budget error that stopped a ``partial=True`` run: later steps are not called
        self.spent: SchemaRouterError | None = None

    def safe(self, error: SchemaRouterError) -> SchemaRouterError:
        """``error`` with every credential value handed out so far redacted."""
        return redacted(error, self.redactor)

    # -- the run ---------------------------------------------------------------------------

    def run(self) -> _Gen:
        steps = self.plan.steps
        # requests are built ahead only where a later step could fail after an earlier ran
        ahead = len(steps) > 1
        gated = [
            self.gate.step(i, step, dry_run=ahead, earlier=steps[:i])
            for i, step in enumerate(steps)
        ]
        if not steps:  # an ok-looking empty result told a caller nothing went wrong
            self.gate.warnings.append(
                "the plan has no steps, so nothing ran: "
                + (self.plan.reason or "it planned no route for the request")
            )
        if self.plan.registry_version != self.snapshot.version:
            self.gate.warnings.append(
                f"the plan was made at registry version {self.plan.registry_version}; executed "
                f"at version {self.snapshot.version} (fingerprints checked)"
            )
        results = []
        for item in gated:
            if self.spent is not None:  # partial=True after a budget ran out: never called
                results.append(self.unrun(item, self.spent))
                continue
            results.append((yield from self.step(item)))
        if self.spent is not None:
            self.gate.warnings.append(
                f"{self.spent.what} ({self.spent.where}): the steps that ran are kept and the "
                "rest were not called (partial=True); raise the Budget to run them"
            )
        return ExecutionResult(
            registry_version=self.snapshot.version,
            steps=tuple(results),
            calls=self.meter.calls,
            bytes=self.meter.bytes,
            elapsed_s=round(self.meter.elapsed(), 6),
            partial=self.s.partial,
            warnings=tuple(self.gate.warnings),
        )

    def step(self, g: Gated) -> _Gen:
        route, started = g.route, self.meter.elapsed()
        bytes_before = self.meter.bytes
        attempts: list[Attempt] = []
        error: SchemaRouterError | None = None
        values: dict[str, FieldValue] = {}
        issues: tuple[Any, ...] = ()
        self.host.recheck(route, g.invoker, g.where)
        output: Any = None
        location: str | None = None
        whole = g.step.whole_output
        if g.step.bindings:
            try:
                g = self.bound(g)
            except ExecutionError as exc:
                error = self.safe(exc)
        if error is None and not self.host.health.is_healthy(route.route_id):
            error = unhealthy_error(self.host.health, route.route_id, where=g.where)
        elif error is None:
            try:  # an approver's own message may quote what it saw: redacted like the rest
                yield from approval(
                    route,
                    g.arguments,
                    allow_effects=self.s.allow_effects,
                    approve=self.s.approve,
                    where=g.where,
                    bound=bound_from(self.plan, g.index),
                )
            except PolicyError as exc:
                self.gate.learn_credentials(route)  # it may quote one not handed out yet
                raise self.safe(exc) from None
            try:
                payload = yield from self.call(route, g.invoker, g.arguments, attempts, g.where)
                location = self.redactor(payload.location) if payload.location else None
                values, issues = self.outputs(
                    route,
                    g.fields,
                    payload.data,
                    g.where,
                    required=not whole,
                    status_code=payload.status_code,
                )
                output = self.redactor.scrub(
                    payload.data if whole else project_output(payload.data, self._paths(g))
                )
                paged = more_pages(route, payload.data)
                if paged is not None:
                    self.gate.warnings.append(paged)
            except BudgetExceededError as exc:
                if not self.s.partial:
                    raise
                error = self.spent = self.safe(exc)
            except (InvocationError, OutputValidationError) as exc:
                error = self.safe(exc)
                if location is not None:  # a 201 whose body breaks its schema still says where
                    error = error.noting(f"the server gave Location: {location}")
        uses: list[FallbackUse] = []
        # a whole-output step types its fields without requiring them: one the output does
        # not carry leaves the step ok (the field says "missing")
        clean = not issues and all(
            v.status == "ok" or (whole and v.status != "invalid") for v in values.values()
        )
        status = "ok" if clean else "partial"
        if g.index in self.sources and error is None and clean:
            self.raw[g.index] = payload.data  # what later steps bind from: valid output only
        invalid = sorted(n for n, v in values.items() if v.status == "invalid")
        if error is None and invalid and not whole:  # partial=True: fallbacks serve them
            why = "; ".join(i.message for n in invalid for i in values[n].issues)
            broken = OutputValidationError(f"invalid {', '.join(invalid)}: {why}", where=g.where)
            served, uses = yield from self.fallbacks(g, broken, attempts, only=invalid)
            values = {**values, **served}
            if served and all(values[n].status == "ok" for n in invalid):
                status = "fallback"
        if error is not None:
            logger.warning("%s failed: %s", route.route_id, error.summary())
            logger.debug("%s failed: %s", route.route_id, clip(error.what))
            delivered: dict[str, FieldValue] = {}
            if error is not self.spent:  # a fallback would spend the budget that ran out
                delivered, uses = yield from self.fallbacks(g, error, attempts)
            reason = f"{route.route_id} failed: {error.what}"
            values = {
                f.name: delivered.get(f.name) or missing_field(route, f, reason=reason)
                for f in g.fields
            }
            needed = [f.name for f in g.fields if f.semantic_id in g.step.covers]
            if not self.s.partial and (not needed or any(values[n].status != "ok" for n in needed)):
                served = [f"{u.to_route} served {', '.join(u.fields)}" for u in uses if u.used]
                lacking = [n for n in needed if values[n].status != "ok"] or ["the rest"]
                note = f"{'; '.join(served)}, not {', '.join(lacking)}: partial=True keeps those"
                raise error.noting(note) if served else error
            status = "fallback" if delivered else "failed"
        return StepResult(
            **route_identity(route),
            status=status,
            fields=values,
            arguments=g.arguments,
            location=location,
            server_projection=g.projection,
            attempts=tuple(attempts),
            fallbacks=tuple(uses),
            error=_info(error) if error is not None else None,
            issues=issues,
            output=output,
            bytes=self.meter.bytes - bytes_before,
            elapsed_s=round(self.meter.elapsed() - started, 6),
            **output_standing(route),
        )

    def unrun(self, g: Gated, spent: SchemaRouterError) -> StepResult:
        """A step a spent budget kept from being called (``partial=True``): failed, its
        fields missing, the budget's error as its own."""
        reason = f"not called: {spent.what}"
        return StepResult(
            **route_identity(g.route),
            status="failed",
            fields={f.name: missing_field(g.route, f, reason=reason) for f in g.fields},
            arguments=g.arguments,
            server_projection=g.projection,
            attempts=(),
            fallbacks=(),
            error=ErrorInfo(code=spent.code, type=type(spent).__name__, message=reason),
            issues=(),
            output=None,
            bytes=0,
            elapsed_s=0.0,
            **output_standing(g.route),
        )

    def bound(self, g: Gated) -> Gated:
        """``g`` with its bound parameters (and JSON body properties) filled from the earlier
        steps' raw outputs (the first value at each binding's path, an integer read as text
        where the parameter takes text), gated again with them: a value the parameter's schema
        refuses is refused."""
        values: dict[str, Any] = {}
        for name, binding in g.step.bindings.items():
            source = self.plan.steps[binding.step].route_id
            if binding.step not in self.raw:
                raise ExecutionError(
                    f"{name!r} comes from step {binding.step} ({source}), which returned no "
                    "output that validates",
                    where=f"{g.where} bindings {json_path([name])}",
                    hint="See that step's error; supply the argument yourself to run this step",
                )
            found = present_values(self.raw[binding.step], binding.path)
            if not found:
                raise ExecutionError(
                    f"step {binding.step} ({source}) returned no {binding.path!r} to fill {name!r}",
                    where=f"{g.where} bindings {json_path([name])}",
                    hint="The lookup found nothing: change its arguments, or supply the "
                    "argument yourself",
                )
            value, at = found[0]
            raw = self.raw[binding.step]  # several matched, or not as filtered: say, or refuse
            if note := bound_note(g.route, name, raw, binding, self.plan, g.where):
                self.gate.warnings.append(note)
            target = bound_parameter(g.route, name)  # a parameter, or a body property
            kind = target.json_schema.get("type") if target is not None else None
            if kind == "string" and isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            elif kind == "integer" and isinstance(value, str) and value.isdigit():
                value = int(value)
            values[name] = value
            logger.debug("%s: %s = %r from step %d %s", g.where, name, value, binding.step, at)
        filled = with_bound(g.route, g.step.arguments, values)
        step = g.step.model_copy(update={"arguments": filled, "bindings": {}})
        return self.gate.step(g.index, step, dry_run=False)

    # -- calls -----------------------------------------------------------------------------

    def call(
        self,
        route: Route,
        invoker: Any,
        arguments: dict[str, Any],
        attempts: list[Attempt],
        where: str,
    ) -> _Gen:
        """One route, with retries and backoff for reads; returns a :class:`Payload`."""
        tries = self.policy.max_attempts if route.endpoint.effect is Effect.READ else 1
        first = time.monotonic()
        for number in range(1, tries + 1):
            started = time.monotonic()
            try:
                payload = yield from self.invoke(route, invoker, arguments, where)
            except InvocationError as raw:
                exc = self.safe(raw)
                status = getattr(raw, "status_code", None)
                attempts.append(_attempt(route, number, started, status, error=_info(exc)))
                logger.info("%s attempt %d failed: %s", route.route_id, number, exc.summary())
                counts = counts_for_health(raw) and not self.meter.cut_short()  # budget, not route
                unhealthy = counts and self.host.monitor.failure(
                    route.route_id,
                    self.host.health,
                    threshold=self.policy.failure_threshold,
                    cooldown=self.policy.cooldown,
                    detail=f"HTTP {status}" if status else clip(exc.what, 80),
                    started=started,
                )
                left = self.meter.time_left()
                if left is not None and left <= 0:
                    raise BudgetExceededError(
                        f"time budget of {self.s.budget.max_seconds:g} s spent (last error: "
                        f"{exc.what})",
                        where=where,
                    ) from None
                delay = self.policy.delay(number)
                wait = retry_after(raw)
                last = number == tries or unhealthy or not is_retryable(raw)
                if wait is not None and not last:
                    # the server said when: wait that long, or fail now where it is too long
                    why = self._too_long(wait, left)
                    if why is not None:
                        raise exc.noting(f"not retried: {why}") from None
                    delay = max(delay, wait)
                if last or (left is not None and delay >= left):
                    if route.endpoint.effect is not Effect.READ and outcome_unknown(raw):
                        exc = _unknown_write(exc, route)
                    if number > 1:  # "timed out after 5 s" is one attempt's time, not the call's
                        spent = time.monotonic() - first
                        exc = exc.noting(f"after {number} attempts, {spent:.1f} s in all")
                    raise exc from None
                yield Sleep(delay)
                if not self.host.health.is_healthy(route.route_id):  # another call took it out
                    spent = time.monotonic() - first
                    raise exc.noting(
                        f"after {number} attempt{'s' if number > 1 else ''}, {spent:.1f} s in "
                        "all; not retried: the route was marked unhealthy meanwhile"
                    ) from None
                continue
            self.host.monitor.success(route.route_id)
            attempts.append(_attempt(route, number, started, payload.status_code))
            return payload
        raise AssertionError("unreachable")  # pragma: no cover

    def _too_long(self, wait: float, left: float | None) -> str | None:
        """Why a ``Retry-After`` wait of ``wait`` seconds is not waited for, if it is not."""
        cap = self.policy.max_retry_after
        if wait > cap:
            return f"the wait passes ExecutionPolicy.max_retry_after ({cap:g} s)"
        if left is not None and wait >= left:
            return f"the wait passes the time budget left ({left:.1f} s)"
        return None

    def invoke(self, route: Route, invoker: Any, arguments: dict[str, Any], where: str) -> _Gen:
        kind = route.access.kind
        if kind in http.HTTP_KINDS:
            check_base_url(route, invoker, where)
            return (
                yield from http.exchange(
                    route,
                    arguments,
                    credentials=self.s.credentials,
                    redactor=self.redactor,
                    policy=self.policy,
                    meter=self.meter,
                    where=where,
                )
            )
        timeout = self.meter.call_timeout(self.policy.timeout)
        self.meter.spend_call(where)
        if kind is AccessKind.MCP and route.endpoint.operation.tool:
            payload: Payload = yield mcp.McpCall(
                invoker, route.endpoint.operation.tool, arguments, timeout, where
            )
        elif kind is AccessKind.PYTHON and callable(invoker):
            payload = yield python.PythonCall(invoker, arguments, timeout, where)
        else:
            raise PolicyError(f"no invoker for {kind.value} route {route.route_id}", where=where)
        self.meter.spend_bytes(payload.nbytes, where)
        if payload.nbytes > self.policy.max_response_bytes:
            raise InvocationError(
                f"the output is larger than the cap of {self.policy.max_response_bytes} bytes",
                where=where,
            )
        return payload

    # -- outputs ---------------------------------------------------------------------------

    @staticmethod
    def _paths(g: Gated) -> list[str]:
        """Where the planned fields sit in the raw output (what a projected output keeps)."""
        return [f.path for f in g.fields]

    def outputs(
        self,
        route: Route,
        fields: Iterable[OutputField],
        data: Any,
        where: str,
        *,
        required: bool = True,
        status_code: int | None = None,
    ) -> tuple[dict[str, FieldValue], tuple[Any, ...]]:
        """The fields' values out of ``data``; strict unless ``partial``: an output that breaks
        its declared schema, or a field that is invalid (or, where ``required``, missing),
        raises (after a write, the error says it ran: :func:`output_hint`). A whole-output
        step types its fields without requiring them."""
        check_output_shape(data, where, route=route, status_code=status_code)
        hint = output_hint(
            route,
            status_code,
            "Pass partial=True to keep what validates",
            "on a later call, partial=True keeps what validates",
        )
        # a server may echo a key back (in a value, a key, an error): every message, path
        # and value below is made from the redacted output
        data = self.redactor.scrub(data)
        doc = document_issues(route, data)
        values = {f.name: extract_field(route, f, data, doc=doc) for f in fields}
        if not self.s.partial:
            for _, issue in doc:
                raise with_path(
                    OutputValidationError(
                        f"the raw output breaks the declared output schema: {issue.message}",
                        where=f"{where} output {issue.path}",
                        hint=hint,
                    ),
                    issue.path,
                )
            for name, value in values.items():
                for issue in value.issues:
                    if issue.kind == "invalid" or (required and issue.kind == "missing"):
                        raise with_path(
                            OutputValidationError(
                                f"field {name!r} is {issue.kind}: {issue.message}",
                                where=f"{where} output {issue.path}",
                                hint=hint,
                            ),
                            issue.path,
                        )
        return values, tuple(issue for _, issue in doc)

    # -- fallbacks -------------------------------------------------------------------------

    def fallbacks(
        self, g: Gated, error: SchemaRouterError, attempts: list[Attempt], only: Any = None
    ) -> _Gen:
        """Call the step's fallbacks for its fields (``only`` those named, where given);
        returns (delivered values, uses)."""
        route = g.route
        delivered: dict[str, FieldValue] = {}
        uses: list[FallbackUse] = []
        if not self.policy.fallbacks or route.endpoint.effect is not Effect.READ:
            return delivered, uses
        fields = [f for f in g.fields if only is None or f.name in only]
        planned = {f.semantic_id: f.name for f in reversed(fields) if f.semantic_id}
        order: dict[str, dict[str, str]] = {}
        prints: dict[str, str] = {}
        for fb in g.step.fallbacks:
            if fb.semantic_id in planned:
                order.setdefault(fb.route_id, {}).setdefault(planned[fb.semantic_id], fb.field)
                prints[fb.route_id] = fb.fingerprint
        reason = f"{type(error).__name__}: {error.what}"
        for other_id, pairs in order.items():
            wanted = {k: v for k, v in pairs.items() if k not in delivered}
            if not wanted:
                continue
            use: dict[str, Any] = {
                "from_route": route.route_id,
                "to_route": other_id,
                "to_fingerprint": prints[other_id],
                "fields": wanted,
                "semantic_ids": tuple(route.endpoint.field(k).semantic_id or "" for k in wanted),
                "reason": reason,
            }
            try:
                other, invoker, arguments = self.gate.fallback(
                    g, other_id, prints[other_id], wanted
                )
            except SchemaRouterError as exc:
                uses.append(FallbackUse(**use, used=False, skipped=self.safe(exc).what))
                continue
            kept = kept_to(other, wanted.values(), self.plan.request)
            if kept is not None:  # a fallback forged or planned outside the request's filter
                uses.append(FallbackUse(**use, used=False, skipped=kept))
                continue
            use["changes"] = tuple(
                dict.fromkeys(
                    change
                    for mine, theirs in wanted.items()
                    for change in fallback_changes(
                        route, route.endpoint.field(mine), other, other.endpoint.field(theirs)
                    )
                )
            )
            idents = [f for f in other.endpoint.output_fields if f.identifier]
            fields = [other.endpoint.field(n) for n in wanted.values()]
            fields += [f for f in idents if f.name not in wanted.values()]
            arguments, _ = self.gate.project(other, fields, arguments)
            where = f"{g.where} fallback {other_id}"
            try:
                payload = yield from self.call(other, invoker, arguments, attempts, where)
                values, _ = self.outputs(other, fields, payload.data, where)
            except BudgetExceededError as exc:
                if not self.s.partial:
                    raise
                self.spent = self.safe(exc)
                uses.append(FallbackUse(**use, used=False, skipped=f"not called: {exc.what}"))
                break
            except (InvocationError, OutputValidationError) as exc:
                skipped = f"failed: {self.safe(exc).what}"
                uses.append(FallbackUse(**use, used=False, skipped=skipped))
                continue
            for mine, theirs in wanted.items():
                delivered[mine] = values[theirs].model_copy(update={"fallback_for": route.route_id})
            identifiers = {f.name: values[f.name] for f in idents if f.name not in wanted.values()}
            uses.append(FallbackUse(**use, used=True, identifiers=identifiers))
            logger.warning(
                "%s failed; %s supplied %s", route.route_id, other_id, ", ".join(sorted(wanted))
            )
            if use["changes"]:
                self.gate.warnings.append(
                    f"{other_id} stood in for {route.route_id} ({', '.join(sorted(wanted))}) "
                    f"with {'; '.join(use['changes'])}: check the values' source_type and "
                    "license before you use them"
                )
        return delivered, uses
