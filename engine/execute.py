"""Execution: gate, policy, health, trusted invocation, output validation, normalization.

:func:`execute` and :func:`aexecute` run a :class:`~schemarouter.planner.Plan` against a
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
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpx

from schemarouter.arguments import check_callable, check_flag, check_instance, enum_values
from schemarouter.contracts import Effect
from schemarouter.credentials import CredentialProvider, EnvironmentCredentials
from schemarouter.errors import SchemaRouterError
from schemarouter.execution_gate import ExecutionHost, Settings
from schemarouter.executor import Op, Run
from schemarouter.invokers import http, mcp, python
from schemarouter.invokers._base import Sleep
from schemarouter.invokers._bounded import FRESH_CONNECTIONS
from schemarouter.planner import Plan
from schemarouter.policy import Approver, Budget, ExecutionPolicy
from schemarouter.results_exec import ExecutionResult

__all__ = ["ExecutionHost", "aexecute", "execute"]


def _settings(
    method: str,
    plan: Plan,
    credentials: CredentialProvider | None,
    allow_effects: Iterable[Effect | str],
    approve: Approver | None,
    policy: ExecutionPolicy | None,
    budget: Budget | None,
    partial: bool,
) -> Settings:
    check_instance(plan, Plan, method=method, name="plan")
    check_instance(
        credentials, CredentialProvider, method=method, name="credentials", optional=True
    )
    check_callable(approve, method=method, name="approve", optional=True)
    check_instance(policy, ExecutionPolicy, method=method, name="policy", optional=True)
    check_instance(budget, Budget, method=method, name="budget", optional=True)
    return Settings(
        credentials=credentials if credentials is not None else EnvironmentCredentials(),
        allow_effects=enum_values(allow_effects, Effect, method=method, name="allow_effects"),
        approve=approve,
        policy=policy or ExecutionPolicy(),
        budget=budget or Budget(),
        partial=check_flag(partial, method=method, name="partial"),
    )


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


def execute(
    router: Any,
    plan: Plan,
    *,
    client: httpx.Client | None = None,
    credentials: CredentialProvider | None = None,
    allow_effects: Iterable[Effect | str] = (Effect.READ,),
    approve: Approver | None = None,
    policy: ExecutionPolicy | None = None,
    budget: Budget | None = None,
    partial: bool = False,
) -> ExecutionResult:
    """Execute ``plan`` on ``router`` (see the module docstring). ``client`` is used for
    HTTP routes (one is made, and closed, where none is given); ``credentials`` defaults to
    the environment."""
    settings = _settings(
        "execute", plan, credentials, allow_effects, approve, policy, budget, partial
    )
    check_instance(client, httpx.Client, method="execute", name="client", optional=True)
    run = Run(ExecutionHost.of(router), plan, settings)
    own: list[httpx.Client] = []

    def perform(op: Op) -> Any:
        if isinstance(op, http.HttpSend):
            if client is None and not own:
                own.append(httpx.Client(follow_redirects=False, limits=FRESH_CONNECTIONS))
            return http.send_sync(client or own[0], op)
        if isinstance(op, mcp.McpCall):
            return mcp.call_sync(op)
        if isinstance(op, python.PythonCall):
            return python.call_sync(op)
        if isinstance(op, Sleep):
            time.sleep(op.seconds)
            return None
        raise TypeError(f"unknown operation {type(op).__name__}")  # pragma: no cover

    try:
        return _drive(run, perform)
    finally:
        for item in own:
            item.close()


async def aexecute(
    router: Any,
    plan: Plan,
    *,
    client: httpx.AsyncClient | None = None,
    credentials: CredentialProvider | None = None,
    allow_effects: Iterable[Effect | str] = (Effect.READ,),
    approve: Approver | None = None,
    policy: ExecutionPolicy | None = None,
    budget: Budget | None = None,
    partial: bool = False,
) -> ExecutionResult:
    """:func:`execute` with an ``httpx.AsyncClient``; MCP sessions and coroutine
    functions are awaited, sync functions run in a worker thread."""
    settings = _settings(
        "aexecute", plan, credentials, allow_effects, approve, policy, budget, partial
    )
    check_instance(client, httpx.AsyncClient, method="aexecute", name="client", optional=True)
    run = Run(ExecutionHost.of(router), plan, settings)
    own: list[httpx.AsyncClient] = []

    async def perform(op: Op) -> Any:
        if isinstance(op, http.HttpSend):
            if client is None and not own:
                own.append(httpx.AsyncClient(follow_redirects=False))
            return await http.send_async(client or own[0], op)
        if isinstance(op, mcp.McpCall):
            return await mcp.call_async(op)
        if isinstance(op, python.PythonCall):
            return await python.call_async(op)
        if isinstance(op, Sleep):
            await asyncio.sleep(op.seconds)
            return None
        raise TypeError(f"unknown operation {type(op).__name__}")  # pragma: no cover

    try:
        return await _adrive(run, perform)
    finally:
        for item in own:
            await item.aclose()
