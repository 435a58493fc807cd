"""The execution gate: what may run, checked against one registry snapshot before any call.

:class:`Gatekeeper` checks every step of a plan before the first call: the route is
registered with the step's fingerprint and bound to an invoker at that fingerprint, its
fields are registered, its arguments validate against the registered input schema
(:func:`check_arguments`, a :class:`~schemarouter.errors.ParameterValidationError` with the
JSON path), its effect is allowed, and an HTTP request can be built from it (path, header
and credential problems surface here). It fills a server-side projection parameter the plan
left unset, and re-checks fallbacks against the registry when a step fails. A step's
bindings (:class:`~schemarouter.planning.planner.Binding`: a parameter filled from an earlier step's
output) must name a registered parameter it does not also set and a registered field of an
earlier step (:func:`check_bindings`); such a step is gated again with the values before it
runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypedDict, Unpack

from schemarouter.checks import check_callable, check_flag, check_instance, enum_values
from schemarouter.contracts import (
    PROJECTION_PARAMETERS,
    Effect,
    OutputField,
    Route,
    _licence_key,
    schema_validator,
)
from schemarouter.errors import (
    ArgumentError,
    GateError,
    ParameterValidationError,
    PolicyError,
    SchemaRouterError,
)
from schemarouter.execution.argument_check import check_arguments, with_path
from schemarouter.execution.credentials import (
    CredentialProvider,
    EnvironmentCredentials,
    Redactor,
    redacted_exception,
)
from schemarouter.execution.invokers import http
from schemarouter.execution.invokers.mcp_session import closed_by_owner
from schemarouter.execution.outputs import json_path, projection_names
from schemarouter.execution.policy import (
    Approver,
    Budget,
    ExecutionPolicy,
    Health,
    HealthMonitor,
    check_effect,
    monitor_for,
    unhealthy_error,
)
from schemarouter.planning.arguments import is_given
from schemarouter.planning.body import bound_parameter, holds
from schemarouter.planning.empty_changes import refuse_empty
from schemarouter.planning.fallbacks import fallback_compatible
from schemarouter.planning.planner import PlanStep
from schemarouter.registry.registry import RegistrySnapshot

__all__ = [
    "ExecutionHost",
    "ExecutionOptions",
    "Gated",
    "Gatekeeper",
    "Settings",
    "check_arguments",
    "check_base_url",
    "redacted",
    "removed",
    "with_path",
]


@dataclass(frozen=True)
class ExecutionHost:
    """What execution needs from a router: one registry snapshot, the bindings
    (route id -> (fingerprint, invoker)), health, and the failure counter."""

    snapshot: RegistrySnapshot
    bindings: Mapping[str, tuple[str, Any]]
    health: Health
    monitor: HealthMonitor = field(default_factory=HealthMonitor)
    #: the router itself, asked again before each call (:meth:`recheck`); ``None`` for a
    #: host built by hand, which only has its snapshot
    live: Any = None

    @classmethod
    def of(cls, router: Any) -> ExecutionHost:
        if isinstance(router, ExecutionHost):
            return router
        bindings = router.bindings()
        return cls(
            snapshot=router.snapshot(),
            bindings=MappingProxyType(dict(bindings)),
            health=router,
            monitor=monitor_for(router),
            live=router,
        )

    def recheck(self, route: Route, invoker: Any, where: str) -> None:
        """Refuse a call whose route was removed, changed or unbound since the plan was
        gated (an earlier step may take seconds; the registry may change meanwhile)."""
        if self.live is None:
            return
        now = self.live.snapshot().routes.get(route.route_id)
        if now is None or now.fingerprint != route.fingerprint:
            raise GateError(
                f"{route.route_id} was {'removed' if now is None else 'changed'} while the "
                "plan ran",
                where=where,
                hint="Plan again against the current registry",
            )
        binding = self.live.bindings().get(route.route_id)
        if (
            binding is None
            or binding[0] != route.fingerprint
            or (binding[1] is not invoker and binding[1] != invoker)
        ):
            raise PolicyError(
                f"{route.route_id} was unbound (or bound to another invoker) while the plan ran",
                where=where,
                hint="Bind it again and plan again",
            )

    def invoker(self, route: Route) -> Any | None:
        """The invoker bound to ``route`` at its current fingerprint (``None``: unbound)."""
        binding = self.bindings.get(route.route_id)
        if binding is None or binding[0] != route.fingerprint:
            return None
        return binding[1]


class ExecutionOptions(TypedDict, total=False):
    """The options ``execute``, ``call`` and their async twins take as keywords, each
    checked by :meth:`Settings.of` (which holds their defaults):

    - ``credentials``: a :class:`~schemarouter.execution.credentials.CredentialProvider`
      (default: the environment);
    - ``allow_effects``: the effects that may run (default: read only);
    - ``approve``: a function asked, before any call, whether a write may run;
    - ``policy``: an :class:`~schemarouter.execution.policy.ExecutionPolicy` (default:
      retries, timeouts and the circuit breaker as documented there);
    - ``budget``: a :class:`~schemarouter.execution.policy.Budget` bounding calls and time;
    - ``partial``: keep what a route delivered where a planned field is missing or broken
      (default ``False``: such an output is an error);
    - ``allow_licenses``: the licences a route's output may be under to run, as a step or a
      fallback (default: any; a plan made with ``PlanRequest(licenses=...)`` runs under
      those too).
    """

    credentials: CredentialProvider | None
    allow_effects: Iterable[Effect | str]
    approve: Approver | None
    policy: ExecutionPolicy | None
    budget: Budget | None
    partial: bool
    allow_licenses: Iterable[str] | None


@dataclass(frozen=True)
class Settings:
    """How one run executes: the options of ``execute`` / ``call`` and their async twins,
    checked once (:meth:`of`) and handed down as one value."""

    credentials: CredentialProvider
    allow_effects: frozenset[Effect]
    approve: Approver | None
    policy: ExecutionPolicy
    budget: Budget
    partial: bool
    #: a direct ``call`` / ``acall`` (no plan): its errors say ``call (ROUTE)``, not ``plan
    #: step 0 (ROUTE)``
    call: bool = False
    allow_licenses: frozenset[str] | None = None

    def under(self, request: Any) -> Settings:
        """These settings for a plan of ``request``: its ``licenses`` (where it gives any)
        bound what runs too, with ``allow_licenses`` (both: the licences both allow)."""
        asked = getattr(request, "licenses", ())
        if not asked:
            return self
        mine = frozenset(asked)
        if self.allow_licenses is None:
            return replace(self, allow_licenses=mine)
        # compared as the policy compares them, case, spaces and _ aside (trial X1: "CC BY
        # 4.0" asked of a run allowing "CC-BY-4.0" left it allowing none)
        held = {_licence_key(a) for a in self.allow_licenses}
        return replace(self, allow_licenses=frozenset(a for a in mine if _licence_key(a) in held))

    def check_license(self, route: Route, where: str) -> None:
        """Refuse ``route`` where its output is under a licence :attr:`allow_licenses` does
        not hold (a licence not declared is none it holds)."""
        if self.allow_licenses is None:
            return
        off = route.licenses_outside(self.allow_licenses)
        if off:
            allowed = ", ".join(sorted(self.allow_licenses)) or "none"
            raise PolicyError(
                f"{route.route_id}'s output is under {', '.join(off)}, which this run does not "
                f"allow (it allows {allowed})",
                where=where,
                hint="Use a route under an allowed license, or allow its license "
                "(allow_licenses=..., PlanRequest(licenses=...))",
            )

    @classmethod
    def of(cls, method: str, **options: Unpack[ExecutionOptions]) -> Settings:
        """The options of one ``method`` call, each checked (a wrong one is an
        :class:`~schemarouter.errors.ArgumentError` naming ``method`` and the option):
        credentials from the environment, the default policy and budget where none given."""
        unknown = sorted(set(options) - ExecutionOptions.__optional_keys__)
        if unknown:
            raise TypeError(f"{method}() got an unexpected keyword argument {unknown[0]!r}")
        credentials = options.get("credentials")
        approve = options.get("approve")
        policy = options.get("policy")
        budget = options.get("budget")
        check_instance(
            credentials, CredentialProvider, method=method, name="credentials", optional=True
        )
        check_callable(approve, method=method, name="approve", optional=True)
        if inspect.iscoroutinefunction(approve) and method not in ("acall", "aexecute"):
            raise ArgumentError(
                f"approve is an async function, which {method} cannot await",
                where=f"{method}(approve=...)",
                hint="Pass a plain function returning True or False, or call acall / "
                "aexecute, which await an async approval",
            )
        check_instance(policy, ExecutionPolicy, method=method, name="policy", optional=True)
        check_instance(budget, Budget, method=method, name="budget", optional=True)
        return cls(
            credentials=credentials if credentials is not None else EnvironmentCredentials(),
            allow_effects=enum_values(
                options.get("allow_effects", (Effect.READ,)),
                Effect,
                method=method,
                name="allow_effects",
            ),
            approve=approve,
            policy=policy or ExecutionPolicy(),
            budget=budget or Budget(),
            partial=check_flag(options.get("partial", False), method=method, name="partial"),
            call=method in ("call", "acall"),
            allow_licenses=_licenses(options.get("allow_licenses"), method),
        )


def _licenses(given: Any, method: str) -> frozenset[str] | None:
    """``allow_licenses`` checked: ``None``, or licence names (a text alone is refused: its
    letters are no licences)."""
    if given is None:
        return None
    if not isinstance(given, str) and isinstance(given, Iterable):
        given = list(given)  # read once: a generator checked first gave no licence after
    if isinstance(given, str) or not all(isinstance(x, str) for x in given):
        raise ArgumentError(
            f"allow_licenses must be a list of license names, not {type(given).__name__}",
            where=f"{method}(allow_licenses=...)",
            hint='Pass e.g. allow_licenses=["CC-BY-4.0", "CC0-1.0"]',
        )
    return frozenset(given)


def removed(snapshot: RegistrySnapshot, route_id: object) -> str:
    """What a refusal of an unregistered ``route_id`` adds where it was registered before:
    when it was removed, and to look again (so an agent retrieves anew rather than retry it
    or take a look-alike route)."""
    gone = snapshot.removed_at(route_id) if isinstance(route_id, str) else None
    if gone is None:
        return ""
    return (
        f": it was removed at registry version {gone} (its provider was registered again "
        "without it, or removed); retrieve again for the routes that serve the request now"
    )


@dataclass(frozen=True)
class Gated:
    """A step that passed the gate: its route, invoker, fields and final arguments."""

    index: int
    step: PlanStep
    route: Route
    invoker: Any
    fields: tuple[OutputField, ...]
    arguments: dict[str, Any]
    projection: tuple[str, ...] | None
    where: str


_REPLAN = "plan with router.plan() against the current registry"


def check_bindings(
    snapshot: RegistrySnapshot,
    route: Route,
    step: PlanStep,
    earlier: Sequence[PlanStep],
    where: str,
) -> None:
    """Each binding of ``step`` fills a registered parameter (or a declared property of its
    JSON body, ``body.customer_id``) the step does not also set, from a registered output
    field of an earlier step of the same plan."""
    params = {p.name for p in route.endpoint.parameters}
    for name, binding in step.bindings.items():
        at = f"{where} bindings {json_path([str(name)])}"
        if not isinstance(name, str) or bound_parameter(route, name) is None:
            raise GateError(
                f"{route.route_id} has no parameter {str(name)[:80]!r} to bind",
                where=at,
                hint=f"Registered parameters: {', '.join(sorted(params)) or 'none'} (a JSON "
                "body's property as body.<property>)",
            )
        if holds(route, step.arguments, name):
            raise GateError(
                f"{name!r} is both given and bound to step {binding.step}'s output",
                where=at,
                hint="Keep one: the argument, or the binding",
            )
        if not (isinstance(binding.field, str) and isinstance(binding.path, str)):
            raise GateError(
                f"the binding of {name!r} names no output field", where=at, hint=_REPLAN
            )
        step_index = binding.step
        if not isinstance(step_index, int) or isinstance(step_index, bool) or step_index < 0:
            # Python would read step -1 as the last step: a forged plan's back door
            raise GateError(
                f"{name!r} is bound to step {str(step_index)[:20]!r}, which is no step number",
                where=at,
                hint="A binding names an earlier step by its index from 0; " + _REPLAN,
            )
        if step_index >= len(earlier):
            raise GateError(
                f"{name!r} is bound to step {binding.step}, which does not run before this one",
                where=at,
                hint="A step binds only the output of an earlier step; plan with router.plan()",
            )
        source = snapshot.routes.get(earlier[binding.step].route_id)
        if source is None or binding.field not in {f.name for f in source.endpoint.output_fields}:
            raise GateError(
                f"step {binding.step} has no registered output field {binding.field[:80]!r} "
                f"to fill {name!r}",
                where=at,
                hint="Bind only registered output fields; plan with router.plan()",
            )
        if (source.endpoint.field(binding.field).path or binding.field) != binding.path:
            raise GateError(
                f"the binding's path {binding.path[:80]!r} is not the registered path of "
                f"{source.route_id}'s field {binding.field!r}",
                where=at,
                hint="Plan again against the current registry",
            )


def redacted(error: SchemaRouterError, redactor: Redactor) -> SchemaRouterError:
    """A copy of ``error`` with every credential value redacted from its text."""
    clone = type(error).__new__(type(error))
    clone.__dict__.update(error.__dict__)
    clone.what = redactor(error.what)
    clone.where = redactor(error.where) if error.where else error.where
    clone.hint = redactor(error.hint) if error.hint else error.hint
    path = getattr(error, "json_path", None)
    if isinstance(path, str):
        clone.json_path = redactor(path)  # type: ignore[attr-defined]
    if getattr(error, "body", None) is not None:  # an HTTP error answer's JSON
        clone.body = redactor.scrub(error.body)  # type: ignore[attr-defined]
    raised = getattr(error, "raised", None)  # what a Python function raised, for its developer
    if isinstance(raised, BaseException):
        clone.raised = redacted_exception(raised, redactor)  # type: ignore[attr-defined]
    Exception.__init__(clone, clone._render())
    return clone


def refuse_missing(step: PlanStep, where: str) -> None:
    """Raise :class:`ParameterValidationError` where ``step`` lists a missing argument its
    arguments and bindings do not give, one its schema may not require: the amount a
    partial refund was asked for (:mod:`schemarouter.planning.asked_amounts`; sent without
    it, an optional body's default refunds in full)."""
    given = {**step.arguments, **dict.fromkeys(step.bindings, True)}
    left = [name for name in step.missing_parameters if not is_given(name, given)]
    if left:
        raise ParameterValidationError(
            f"{', '.join(repr(n) for n in left)} is missing: the plan lists it as the "
            "request's to give, so the step is not sent without it",
            where=f"{where} arguments",
            hint=f"Give it before executing: plan = plan.with_arguments({step.route_id!r}, ...)",
        )


class Gatekeeper:
    """Gates the steps of one execution (see the module docstring)."""

    def __init__(self, host: ExecutionHost, settings: Settings, redactor: Redactor) -> None:
        self.host = host
        self.s = settings
        self.policy = settings.policy
        self.snapshot = host.snapshot
        self.redactor = redactor
        self.warnings: list[str] = []

    def step(
        self,
        index: int,
        step: PlanStep,
        *,
        dry_run: bool = True,
        earlier: Sequence[PlanStep] = (),
    ) -> Gated:
        """Gate one step; ``dry_run=False`` skips building its HTTP request ahead (a plan of
        one step builds it at once anyway, with the same checks). ``earlier`` are the plan's
        steps before this one, which its :attr:`~PlanStep.bindings` may read from; a step
        with bindings is gated again with their values before it runs."""
        where = "call" if self.s.call else f"plan step {index}"
        route = self.snapshot.routes.get(step.route_id) if isinstance(step.route_id, str) else None
        if route is None:
            gone = removed(self.snapshot, step.route_id)
            raise GateError(
                f"route {str(step.route_id)[:120]!r} is not registered{gone}",
                where=where,
                hint="Plan with router.plan(); only registered routes execute",
            )
        where = f"{where} ({route.route_id})"
        if step.fingerprint != route.fingerprint:
            raise GateError(
                f"stale fingerprint {str(step.fingerprint)[:80]!r}: {route.route_id} is now "
                f"{route.fingerprint}",
                where=where,
                hint="Plan again against the current registry",
            )
        names = {f.name for f in route.endpoint.output_fields}
        fields: list[OutputField] = []
        for name in step.fields:
            if name not in names:
                raise GateError(
                    f"{route.route_id} has no output field {str(name)[:80]!r}",
                    where=f"{where} fields",
                    hint="Plan only registered fields",
                )
            if all(f.name != name for f in fields):
                fields.append(route.endpoint.field(name))
        if step.bindings:
            check_bindings(self.snapshot, route, step, earlier, where)
        try:
            arguments = check_arguments(
                route, step.arguments, where, pending=step.bindings, notes=self.warnings
            )
        except ParameterValidationError:
            self.learn_credentials(route)  # the refusal quotes the arguments: one may be one
            raise
        if not self.s.call:  # a plan's update of nothing is never sent (router.call's is asked)
            refuse_empty(route, arguments, step.bindings, where)
            refuse_missing(step, where)
        invoker = self.invoker(route, where)
        self.s.check_license(route, where)
        if route.endpoint.effect not in self.s.allow_effects:
            check_effect(
                route, arguments, allow_effects=self.s.allow_effects, approve=None, where=where
            )
        arguments, projection = self.project(route, fields, arguments)
        if dry_run and not step.bindings:  # a bound path parameter is not known yet
            self.dry_run(route, arguments, where)
        return Gated(index, step, route, invoker, tuple(fields), arguments, projection, where)

    def learn_credentials(self, route: Route) -> None:
        """Teach the redactor the values of ``route``'s credentials before any is handed
        out (a provider that fails or gives no text teaches nothing)."""
        for name in route.access.auth.credentials:
            try:
                value = self.s.credentials.get(name)
            except Exception:  # the call would say so; here only redaction is at stake
                continue
            if isinstance(value, str):
                self.redactor.add(value)

    def invoker(self, route: Route, where: str) -> Any:
        """The route's bound invoker; an HTTP route must be bound to its registered base."""
        invoker = self.host.invoker(route)
        if invoker is None:
            raise PolicyError(
                f"{route.route_id} is not bound to an invoker at its current fingerprint",
                where=where,
                hint=http.not_bound_hint(route),
            )
        if closed_by_owner(invoker):
            raise PolicyError(  # refused here: no call, and no failure of the route
                f"{route.route_id} is bound to an MCP session that was closed (router.close())",
                where=where,
                hint="Connect its server again with router.add_mcp_server(<server>, "
                "provider=..., replace=True)",
            )
        if route.access.kind in http.HTTP_KINDS:
            check_base_url(route, invoker, where)
        return invoker

    def dry_run(self, route: Route, arguments: Mapping[str, Any], where: str) -> None:
        """Build an HTTP request without sending it: path, header and credential problems
        surface before any step calls anything."""
        if route.access.kind in http.HTTP_KINDS:
            http.build_request(
                route,
                arguments,
                credentials=self.s.credentials,
                redactor=self.redactor,
                timeout=self.policy.timeout,
                where=where,
            )

    def project(
        self, route: Route, fields: Iterable[OutputField], arguments: dict[str, Any]
    ) -> tuple[dict[str, Any], tuple[str, ...] | None]:
        """Fill the route's server-side projection parameter where the plan left it unset."""
        if not self.policy.server_projection:
            return arguments, None
        params = {p.name: p for p in route.endpoint.parameters}
        name = next((n for n in PROJECTION_PARAMETERS if n in params), None)
        if name is None or name in arguments:
            return arguments, None
        names = projection_names(route, [f.name for f in fields])
        if not names:
            return arguments, None
        value = ",".join(names)
        filled = {**arguments, name: value}
        if not (
            schema_validator(params[name].json_schema).is_valid(value)
            and schema_validator(route.endpoint.input_schema).is_valid(filled)
        ):
            self.warnings.append(
                f"{route.route_id}: {name}={value!r} breaks its schema; projected locally"
            )
            return arguments, None
        return filled, names

    def fallback(
        self, g: Gated, other_id: str, claimed: str, wanted: Mapping[str, str]
    ) -> tuple[Route, Any, dict[str, Any]]:
        """Re-check a fallback against the registry now: (route, invoker, arguments)."""
        where = f"{g.where} fallback {other_id}"
        other = self.snapshot.routes.get(other_id)
        if other is None or other.fingerprint != claimed:
            raise GateError("not registered with the planned fingerprint", where=where)
        for mine, theirs in wanted.items():
            names = {f.name for f in other.endpoint.output_fields}
            if theirs not in names:
                raise GateError(f"has no field {theirs!r}", where=where)
            ok, why = fallback_compatible(
                g.route, g.route.endpoint.field(mine), other, other.endpoint.field(theirs)
            )
            if not ok:
                raise GateError(f"not compatible for {mine!r}: {why}", where=where)
        invoker = self.invoker(other, where)
        self.s.check_license(other, where)
        self.host.recheck(other, invoker, where)
        if not self.host.health.is_healthy(other_id):
            raise unhealthy_error(self.host.health, other_id, where=where)
        source = {k: v for k, v in g.step.arguments.items() if k not in PROJECTION_PARAMETERS}
        semantic = {
            p.semantic_id: (p.name, source[p.name])
            for p in g.route.endpoint.parameters
            if p.semantic_id and p.name in source
        }
        arguments: dict[str, Any] = {}
        for p in other.endpoint.parameters:
            if p.semantic_id and p.semantic_id in semantic:
                arguments[p.name] = semantic[p.semantic_id][1]
            elif (
                p.name in source
                and p.semantic_id is None
                and g.route.endpoint.parameter(p.name).semantic_id is None
            ):
                arguments[p.name] = source[p.name]
        arguments = check_arguments(other, arguments, where)
        self.dry_run(other, arguments, where)
        check_effect(
            other, arguments, allow_effects=self.s.allow_effects, approve=None, where=where
        )
        return other, invoker, arguments


def check_base_url(route: Route, invoker: Any, where: str) -> None:
    """An HTTP route's invoker must be bound to the route's registered base URL."""
    base = getattr(invoker, "base_url", None)
    if not isinstance(base, str) or base.rstrip("/") != route.access.base_url:
        raise PolicyError(
            f"{route.route_id} is bound to another base URL than the registered one",
            where=where,
            hint="Bind HTTP routes to HttpTarget(route.access.base_url)",
        )
