"""Execution: gate, policy, health, trusted invocation, output validation, normalization.

:func:`execute` and :func:`aexecute` run a :class:`~schemarouter.planning.planner.Plan` against a
router (or an :class:`ExecutionHost`: a registry snapshot, bindings and health). Both drive
one implementation, :class:`_Run`, a generator that *yields* I/O operations (an HTTP
request, an MCP tool call, a Python call, a backoff sleep) and receives their results; the
sync driver performs them with an ``httpx.Client``, the async one with an
``httpx.AsyncClient``. Everything but the I/O is shared.

For each step, in order:

1. **gate** (every step, before any call): the route is registered with the step's
   fingerprint, bound to an invoker at that fingerprint, its fields are registered, and the
   arguments validate against the registered input schema
   (:class:`~schemarouter.errors.ParameterValidationError` with the JSON path);
   a server-side projection parameter (``response_fields``, ``_fields``) the plan left
   unset is filled from the planned fields;
2. **policy**: the effect is allowed (``read`` by default; ``write`` / ``destructive`` need
   ``allow_effects`` and ``approve(route, arguments) -> True``); an unhealthy route is
   skipped (its fields go to fallbacks);
3. **invocation** with retries and exponential backoff for reads, a per-call timeout and
   the budget (calls, bytes, seconds); a route failing ``failure_threshold`` attempts in a
   row is marked unhealthy for ``cooldown`` seconds;
4. **raw output**: validated against the declared output schema and each field's schema;
   strict by default (:class:`~schemarouter.errors.OutputValidationError` with the JSON
   path), or ``partial=True`` to keep what validates with every missing or invalid field
   marked;
5. **projection and normalization**: only the planned fields, by their paths; declared unit
   normalization only; unit, provenance and license on every value;
6. **fallback** (read routes only): when the step fails, the plan's conservative fallbacks
   are re-checked against the registry and called for the affected fields; the result
   records which fields came from which route and why.

``router.call`` / ``router.acall`` (:func:`call_route`, :func:`acall_route`) run one route by
id with exactly the caller's arguments (what an agent does once it picked a tool): a one-step plan
(:func:`call_plan`) through the same gate, policy, health and output validation. The
result (:class:`CallResult`) always carries the validated raw output, projected to the
requested ``fields`` where some are given, plus a typed :class:`FieldValue` per requested
field, or (with none requested) per field the route declares with a semantic id, a unit or
an identifier flag. No fallbacks: the caller named the route.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Unpack

import httpx

from schemarouter.checks import check_instance
from schemarouter.errors import (
    ArgumentError,
    GateError,
    ParameterValidationError,
    SchemaRouterError,
)
from schemarouter.execution.gate import (
    ExecutionHost,
    ExecutionOptions,
    Settings,
    removed,
    with_path,
)
from schemarouter.execution.invokers import http, mcp, python
from schemarouter.execution.invokers.payload import Sleep
from schemarouter.execution.loop import Op, Run
from schemarouter.execution.policy import Ask, monitor_for
from schemarouter.execution.results import CallResult, ExecutionResult
from schemarouter.planning.planner import (
    Coverage,
    Plan,
    PlanRequest,
    PlanStep,
    route_identity,
)
from schemarouter.planning.projection import typed_fields
from schemarouter.registry.http_body import FRESH_CONNECTIONS
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "ExecutionHost",
    "acall_route",
    "aexecute",
    "arun_plan",
    "call_plan",
    "call_route",
    "execute",
    "run_plan",
]


class _Stepper:
    """Walks a :class:`Run`'s generator: sends it the last operation's value or throws it
    the last operation's error, until it returns the result (shared by both drivers)."""

    #: the run's result, set when :meth:`next` returns ``None``
    result: ExecutionResult

    def __init__(self, run: Run) -> None:
        self.gen = run.run()
        self.value: Any = None
        self.error: BaseException | None = None

    def next(self) -> Op | None:
        """The next operation to perform, or ``None`` once :attr:`result` is set."""
        try:
            op = self.gen.throw(self.error) if self.error is not None else self.gen.send(self.value)
        except StopIteration as stop:
            self.result = stop.value
            return None
        self.value, self.error = None, None
        return op


def _drive(run: Run, perform: Callable[[Op], Any]) -> ExecutionResult:
    steps = _Stepper(run)
    try:
        while (op := steps.next()) is not None:
            try:
                steps.value = perform(op)
            except Exception as exc:
                steps.error = exc
    except SchemaRouterError as exc:
        raise run.safe(exc) from None
    finally:
        steps.gen.close()
    return steps.result


async def _adrive(run: Run, perform: Callable[[Op], Awaitable[Any]]) -> ExecutionResult:
    """:func:`_drive` with an awaited ``perform``."""
    steps = _Stepper(run)
    try:
        while (op := steps.next()) is not None:
            try:
                steps.value = await perform(op)
            except Exception as exc:
                steps.error = exc
    except SchemaRouterError as exc:
        raise run.safe(exc) from None
    finally:
        steps.gen.close()
    return steps.result


_TLS: Any = None
_TLS_LOCK = ForkSafeLock()


def _tls() -> Any:
    """One TLS context for the clients runs make, made once: loading the trusted
    certificates takes about 25 ms, which ``aexecute``/``acall`` spent on the event loop for
    every call without a ``client=`` (a user trial: 20 at once stalled it 390 ms)."""
    global _TLS
    with _TLS_LOCK:
        if _TLS is None:
            make = getattr(httpx, "create_ssl_context", None)
            _TLS = make() if make is not None else True  # older httpx: its own default
        return _TLS


def _perform_sync(client: httpx.Client | None, own: list[httpx.Client]) -> Callable[[Op], Any]:
    """Blocking I/O for a run: ``client`` for HTTP (one is made into ``own`` where none)."""

    def perform(op: Op) -> Any:
        if isinstance(op, http.HttpSend):
            if client is None and not own:
                own.append(
                    httpx.Client(follow_redirects=False, limits=FRESH_CONNECTIONS, verify=_tls())
                )
            return http.send_sync(client or own[0], op)
        if isinstance(op, mcp.McpCall):
            return mcp.call_sync(op)
        if isinstance(op, python.PythonCall):
            return python.call_sync(op)
        if isinstance(op, Sleep):
            time.sleep(op.seconds)
            return None
        if isinstance(op, Ask):
            return op.approve(op.route, op.arguments)
        raise TypeError(f"unknown operation {type(op).__name__}")  # pragma: no cover

    return perform


def _perform_async(
    client: httpx.AsyncClient | None, own: list[httpx.AsyncClient]
) -> Callable[[Op], Awaitable[Any]]:
    """:func:`_perform_sync` with awaited I/O."""

    async def perform(op: Op) -> Any:
        if isinstance(op, http.HttpSend):
            if client is None and not own:
                own.append(httpx.AsyncClient(follow_redirects=False, verify=_tls()))
            return await http.send_async(client or own[0], op)
        if isinstance(op, mcp.McpCall):
            return await mcp.call_async(op)
        if isinstance(op, python.PythonCall):
            return await python.call_async(op)
        if isinstance(op, Sleep):
            await asyncio.sleep(op.seconds)
            return None
        if isinstance(op, Ask):  # an async approval is awaited: the loop runs on meanwhile
            granted = op.approve(op.route, op.arguments)
            return await granted if inspect.isawaitable(granted) else granted
        raise TypeError(f"unknown operation {type(op).__name__}")  # pragma: no cover

    return perform


def _run_sync(run: Run, client: httpx.Client | None) -> ExecutionResult:
    own: list[httpx.Client] = []
    try:
        return _drive(run, _perform_sync(client, own))
    finally:
        for item in own:
            item.close()


async def _run_async(run: Run, client: httpx.AsyncClient | None) -> ExecutionResult:
    own: list[httpx.AsyncClient] = []
    try:
        return await _adrive(run, _perform_async(client, own))
    finally:
        for item in own:
            await item.aclose()


def execute(
    router: Any,
    plan: Plan,
    *,
    client: httpx.Client | None = None,
    **options: Unpack[ExecutionOptions],
) -> ExecutionResult:
    """Execute ``plan`` on ``router`` (see the module docstring). ``client`` is used for
    HTTP routes (one is made, and closed, where none is given); ``options`` are those of
    :meth:`Settings.of` (``credentials``, by default the environment; ``allow_effects``,
    ``approve``, ``policy``, ``budget``, ``partial``), as ``router.execute`` takes them."""
    check_instance(plan, Plan, method="execute", name="plan")
    return run_plan(router, plan, Settings.of("execute", **options), client=client)


def run_plan(
    router: Any, plan: Plan, settings: Settings, *, client: httpx.Client | None = None
) -> ExecutionResult:
    """Execute ``plan`` with ``settings`` already checked (:meth:`Settings.of`)."""
    check_instance(client, httpx.Client, method="execute", name="client", optional=True)
    return _run_sync(Run(ExecutionHost.of(router), plan, settings), client)


async def aexecute(
    router: Any,
    plan: Plan,
    *,
    client: httpx.AsyncClient | None = None,
    **options: Unpack[ExecutionOptions],
) -> ExecutionResult:
    """:func:`execute` with an ``httpx.AsyncClient``; MCP sessions and coroutine
    functions are awaited, sync functions run in a worker thread."""
    check_instance(plan, Plan, method="aexecute", name="plan")
    return await arun_plan(router, plan, Settings.of("aexecute", **options), client=client)


async def arun_plan(
    router: Any, plan: Plan, settings: Settings, *, client: httpx.AsyncClient | None = None
) -> ExecutionResult:
    """:func:`run_plan` with non-blocking I/O."""
    check_instance(client, httpx.AsyncClient, method="aexecute", name="client", optional=True)
    return await _run_async(Run(ExecutionHost.of(router), plan, settings), client)


# -- one route, by id -------------------------------------------------------------------------


def call_plan(
    snapshot: RegistrySnapshot,
    route_id: str,
    arguments: Mapping[str, Any],
    fields: Sequence[str] | None = None,
) -> Plan:
    """A one-step plan that runs ``route_id`` with exactly ``arguments``: projected to
    ``fields`` where given, else the whole output with the route's typed fields."""
    route = snapshot.routes.get(route_id) if isinstance(route_id, str) else None
    if route is None:
        gone = removed(snapshot, route_id)
        close = difflib.get_close_matches(str(route_id), list(snapshot.routes), n=3)
        raise GateError(
            f"route {str(route_id)[:120]!r} is not registered{gone}",
            where=f"registry version {snapshot.version}",
            hint=(f"Did you mean {', '.join(close)}? " if close and not gone else "")
            + "Call a route id that retrieve() returned (a tool name maps back with "
            "ToolSet.route_id(name))",
        )
    if not isinstance(arguments, Mapping):
        raise with_path(
            ParameterValidationError(
                f"arguments must be a mapping, got {type(arguments).__name__}",
                where=f"call ({route.route_id}) arguments $",
                hint="Pass the arguments as a dict of parameter name -> value (None: none)",
            ),
            "$",
        )
    for name in arguments:
        if not isinstance(name, str):  # pydantic would raise its own ValidationError
            raise with_path(
                ParameterValidationError(
                    f"argument names must be text, got {type(name).__name__} {str(name)[:40]!r}",
                    where=f"call ({route.route_id}) arguments $",
                    hint="Name each argument by its parameter (a string key)",
                ),
                "$",
            )
    if isinstance(fields, str):
        fields = [fields]
    whole = not fields
    names = typed_fields(route) if whole else tuple(dict.fromkeys(fields or ()))
    known = [f.name for f in route.endpoint.output_fields]
    unknown = [str(name)[:80] for name in names if name not in known]
    if unknown:
        raise GateError(
            f"{route.route_id} has no output field {unknown[0]!r}",
            where=f"call {route.route_id} fields",
            hint=f"Its fields: {', '.join(known[:40]) or 'none (call it without fields)'}",
        )
    step = PlanStep(
        **route_identity(route),
        fields=names,
        covers=(),
        arguments=dict(arguments),
        whole_output=whole,
    )
    return Plan(
        request=PlanRequest(),
        steps=(step,),
        coverage=Coverage(required=(), covered=(), uncovered=()),
        max_calls=1,
        registry_version=snapshot.version,
    )


def _host(router: Any, route_id: str) -> ExecutionHost:
    """What a call of ``route_id`` needs from ``router``: its snapshot and that one route's
    binding (not a copy of every binding, which costs at 10,000 routes)."""
    if isinstance(router, ExecutionHost):
        return router
    snapshot = router.snapshot()
    route = snapshot.routes.get(route_id) if isinstance(route_id, str) else None
    invoker = router.binding(route_id) if route is not None else None
    bindings = {route_id: (route.fingerprint, invoker)} if route and invoker is not None else {}
    return ExecutionHost(
        snapshot=snapshot,
        bindings=MappingProxyType(bindings),
        health=router,
        monitor=monitor_for(router),
    )


def _route_id(value: Any, method: str) -> str:
    """``value`` where it is a route id; an object that holds one (a retrieval's
    ``Candidate``, a ``Route``, a ``PlanStep``) is refused naming the id to pass."""
    if isinstance(value, str):
        return value
    held = getattr(value, "route_id", None)
    shown = f" for route {held!r}" if isinstance(held, str) else ""
    raise ArgumentError(
        f"route_id must be a route id (a str), got a {type(value).__name__}{shown}",
        where=f"{method}(route_id=...)",
        hint=f"Pass its route_id: router.{method}(candidate.route_id, arguments)"
        if shown
        else "Pass a route id that retrieve() returned (Candidate.route_id)",
    )


def _call(router: Any, route_id: str, arguments: Any, fields: Any, settings: Settings) -> Run:
    host = _host(router, route_id)
    plan = call_plan(host.snapshot, route_id, {} if arguments is None else arguments, fields)
    return Run(host, plan, settings)


def call_route(
    router: Any,
    route_id: str,
    arguments: Mapping[str, Any] | None,
    settings: Settings,
    *,
    fields: Sequence[str] | None = None,
    client: httpx.Client | None = None,
) -> CallResult:
    """``router.call``: run exactly ``route_id`` with ``arguments`` and ``settings`` (see
    the module docstring)."""
    check_instance(client, httpx.Client, method="call", name="client", optional=True)
    run = _call(router, _route_id(route_id, "call"), arguments, fields, settings)
    return CallResult.of(_run_sync(run, client), projected=bool(fields))


async def acall_route(
    router: Any,
    route_id: str,
    arguments: Mapping[str, Any] | None,
    settings: Settings,
    *,
    fields: Sequence[str] | None = None,
    client: httpx.AsyncClient | None = None,
) -> CallResult:
    """:func:`call_route` with non-blocking I/O."""
    check_instance(client, httpx.AsyncClient, method="acall", name="client", optional=True)
    run = _call(router, _route_id(route_id, "acall"), arguments, fields, settings)
    return CallResult.of(await _run_async(run, client), projected=bool(fields))
