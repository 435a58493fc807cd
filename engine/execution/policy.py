"""Execution policy: effects and approvals, retries and backoff, timeouts, health, budgets.

Small value objects with ``DEFAULT_*`` constants, and the few stateful helpers the executor
needs:

- :func:`check_effect`: ``read`` runs by default; ``write`` and ``destructive`` need the
  effect in ``allow_effects`` *and* an ``approve(route, arguments)`` callback that returns
  ``True`` for this very call. Anything else is a :class:`~schemarouter.errors.PolicyError`.
- :class:`ExecutionPolicy`: attempts (idempotent reads only), exponential backoff (or the
  server's ``Retry-After``, up to ``max_retry_after``), per-call timeout, response size cap,
  redirect limit, health threshold and cooldown.
- :class:`Budget` / :class:`BudgetMeter`: calls, bytes and seconds for one execution;
  spending past any of them is a :class:`~schemarouter.errors.BudgetExceededError`.
- :class:`HealthMonitor`: counts consecutive failed attempts per route and marks a route
  unhealthy (for a cooldown) on the host after ``failure_threshold`` of them (a 429 is not
  one: the server is up, and limiting us).
"""

from __future__ import annotations

import copy
import inspect
import logging
import math
import time
import weakref
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from schemarouter.contracts import Effect, Route
from schemarouter.errors import BudgetExceededError, PolicyError, clip
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_BACKOFF_MAX",
    "DEFAULT_COOLDOWN",
    "DEFAULT_FAILURE_THRESHOLD",
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_MAX_REDIRECTS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_TIMEOUT",
    "ApprovalArguments",
    "Approver",
    "Ask",
    "BoundArgument",
    "Budget",
    "BudgetMeter",
    "ExecutionPolicy",
    "Health",
    "HealthMonitor",
    "approval",
    "check_effect",
    "monitor_for",
    "read_only",
    "unhealthy_error",
]

logger = logging.getLogger(__name__)

#: Attempts per call for idempotent reads (writes and destructive calls get one).
DEFAULT_MAX_ATTEMPTS = 3
#: First backoff delay in seconds; doubles per retry up to :data:`DEFAULT_BACKOFF_MAX`.
DEFAULT_BACKOFF = 0.2
DEFAULT_BACKOFF_MAX = 5.0
#: Seconds one call (connect, send, read the whole body) may take.
DEFAULT_TIMEOUT = 30.0
#: Largest response body read (decoded bytes); reading stops past it.
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
#: Same-origin redirects followed per call.
DEFAULT_MAX_REDIRECTS = 5
#: Longest wait (seconds) a server's ``Retry-After`` may ask for before a read is retried;
#: a longer one fails the call at once, saying when to call again.
DEFAULT_MAX_RETRY_AFTER = 30.0
#: Consecutive failed attempts that make a route unhealthy, and for how long (seconds).
DEFAULT_FAILURE_THRESHOLD = 3
DEFAULT_COOLDOWN = 60.0

#: ``approve(route, arguments) -> bool``: the host's explicit yes for one write call
#: (``arguments``: a deep read-only copy, see :func:`read_only`, an
#: :class:`ApprovalArguments` whose ``bound`` names those an earlier step gave); ``acall`` and
#: ``aexecute`` also take an ``async def`` one, and await it.
Approver = Callable[[Route, Mapping[str, Any]], bool | Awaitable[bool]]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExecutionPolicy(_Frozen):
    """How calls are made: attempts, backoff, timeouts, caps, health."""

    max_attempts: int = Field(default=DEFAULT_MAX_ATTEMPTS, ge=1, le=10)
    backoff: float = Field(default=DEFAULT_BACKOFF, ge=0.0)
    backoff_max: float = Field(default=DEFAULT_BACKOFF_MAX, ge=0.0)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0.0)
    max_response_bytes: int = Field(default=DEFAULT_MAX_RESPONSE_BYTES, ge=1)
    max_redirects: int = Field(default=DEFAULT_MAX_REDIRECTS, ge=0, le=20)
    #: A 429 or 503 read answered with ``Retry-After``: waited for before the next attempt
    #: when it is at most this many seconds and the time budget has it, else the call
    #: fails at once (the error's ``retry_after`` says when to call again).
    max_retry_after: float = Field(default=DEFAULT_MAX_RETRY_AFTER, ge=0.0)
    failure_threshold: int = Field(default=DEFAULT_FAILURE_THRESHOLD, ge=1)
    cooldown: float = Field(default=DEFAULT_COOLDOWN, ge=0.0)
    #: Fill ``response_fields`` / ``_fields`` from the planned fields where a route has one.
    server_projection: bool = True
    #: Try the plan's conservative fallbacks when a read route fails.
    fallbacks: bool = True

    def delay(self, attempt: int) -> float:
        """Backoff before retry number ``attempt`` (1-based): ``backoff * 2**(attempt-1)``."""
        return float(min(self.backoff * (2 ** (attempt - 1)), self.backoff_max))


class Budget(_Frozen):
    """Limits for one execution (``None``: unlimited). Every HTTP request sent (retries,
    redirects and fallbacks included), MCP tool call and Python call counts as a call;
    bytes are decoded response bytes."""

    max_calls: int | None = Field(default=None, ge=0)
    max_bytes: int | None = Field(default=None, ge=0)
    max_seconds: float | None = Field(default=None, gt=0.0)


class BudgetMeter:
    """Spends a :class:`Budget`; raises :class:`BudgetExceededError` past any limit."""

    def __init__(self, budget: Budget, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self.clock = clock
        self.started = clock()
        self.calls = 0
        self.bytes = 0
        #: the last call's timeout was cut to the time budget left (:meth:`call_timeout`)
        self.shortened = False

    def elapsed(self) -> float:
        return self.clock() - self.started

    def time_left(self) -> float | None:
        if self.budget.max_seconds is None:
            return None
        return self.budget.max_seconds - self.elapsed()

    def bytes_left(self) -> int | None:
        if self.budget.max_bytes is None:
            return None
        return self.budget.max_bytes - self.bytes

    def check_time(self, where: str) -> None:
        left = self.time_left()
        if left is not None and left <= 0:
            raise BudgetExceededError(
                f"time budget of {self.budget.max_seconds:g} s spent",
                where=where,
                hint="Raise Budget.max_seconds or plan fewer calls",
            )

    def spend_call(self, where: str) -> None:
        """Count one call, first checking the call and time limits."""
        self.check_time(where)
        if self.budget.max_calls is not None and self.calls >= self.budget.max_calls:
            raise BudgetExceededError(
                f"call budget of {self.budget.max_calls} calls spent",
                where=where,
                hint="Raise Budget.max_calls or plan fewer calls",
            )
        self.calls += 1

    def spend_bytes(self, count: int, where: str) -> None:
        self.bytes += count
        if self.budget.max_bytes is not None and self.bytes > self.budget.max_bytes:
            raise BudgetExceededError(
                f"byte budget of {self.budget.max_bytes} bytes spent",
                where=where,
                hint="Raise Budget.max_bytes or request fewer fields or records",
            )

    def call_timeout(self, timeout: float) -> float:
        """The per-call timeout, shortened to the time budget that is left."""
        left = self.time_left()
        self.shortened = left is not None and left < timeout
        return timeout if left is None else max(min(timeout, left), 0.001)

    def cut_short(self) -> bool:
        """Whether the last call's timeout was the time budget left, shorter than the
        policy's, and that budget is now spent: the call ran out of its request's time, which
        says nothing of its route's health (trial W2: three requests with a 0.3 s budget each
        timed out on a route that answers in 1 s, and it was refused to all for 60 s)."""
        left = self.time_left()
        return self.shortened and left is not None and left <= 0


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses changes (``TypeError``), so ``json.dumps`` still writes it:
    an approval that shows a person the arguments as JSON saw a ``MappingProxyType``, which
    ``json`` cannot write, and every write was refused (trial X3)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the arguments an approval sees are read-only: copy them to change them")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    # a copy (copy.copy, copy.deepcopy, pickle) is a plain dict the callback may change
    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(item, memo) for key, item in self.items()}

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class BoundArgument(NamedTuple):
    """Where an argument an approval sees came from, where the request did not write it: the
    output of an earlier step of the plan (``execute`` filled it from what that step returned,
    "close the first ticket": ``list_tickets``' first ``items.*.id``)."""

    #: The plan step whose output gave the value, and its route.
    step: int
    route_id: str
    #: Where in that step's output (``items.*.id``).
    path: str


class ApprovalArguments(FrozenDict):
    """The arguments an approval sees (read-only, a :class:`FrozenDict`), and in
    :attr:`bound` those an earlier step's output gave, by the plan's name for them
    (``ticket_id``, ``body.assignee``), each a :class:`BoundArgument`. An argument the request
    wrote ("close ticket T-7") or the caller gave (``Plan.with_arguments``, ``router.call``)
    is not in it: a careful approval can ask a person about a bound id and pass a typed one
    (trial X2: it could not tell them apart)."""

    bound: Mapping[str, BoundArgument]

    def __init__(
        self, values: Mapping[str, Any], bound: Mapping[str, BoundArgument] | None = None
    ) -> None:
        super().__init__(values)
        self.bound = MappingProxyType(dict(bound or {}))


def read_only(value: Any) -> Any:
    """A deep read-only copy of JSON-like ``value``: every object a :class:`FrozenDict`,
    every array a tuple (what the approval callback sees: nothing it does to them can reach
    the arguments sent, which are the ones validated, and ``json.dumps`` writes them)."""
    if isinstance(value, Mapping):
        return FrozenDict({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(read_only(item) for item in value)
    return value


def _effect_hint(effect: Effect, allowed: frozenset[Effect]) -> str:
    """What to pass for a refused ``effect``: a read needs only the effect; a write or
    destructive call an approve callback too, with 'read' kept for the reads beside it
    (``allow_effects`` replaces the default ``['read']``)."""
    if effect is Effect.READ:
        return "Pass allow_effects including 'read' (a read needs no approve callback)"
    order = [e.value for e in Effect if e in allowed | {effect, Effect.READ}]
    return (
        f"Pass allow_effects={order!r} and an approve callback: keep 'read' in the list for "
        "the reads of the plan or call (allow_effects replaces the default ['read'])"
    )


@dataclass(frozen=True)
class Ask:
    """What :func:`approval` yields: ask ``approve(route, arguments)`` for one call. The
    sync drivers call it; ``acall`` and ``aexecute`` await what it returns, so an approval
    that waits on I/O (a database, a person) need not block their event loop (trial W2: a
    0.3 s approval stalled a web service's loop 304 ms, and an ``async def`` was refused)."""

    approve: Approver
    route: Route
    arguments: Mapping[str, Any]


def check_effect(
    route: Route,
    arguments: Mapping[str, Any],
    *,
    allow_effects: frozenset[Effect],
    approve: Approver | None,
    where: str,
) -> None:
    """Refuse a call its effect does not permit (see the module docstring); the approval,
    where one is needed, is asked here and now."""
    asks = approval(route, arguments, allow_effects=allow_effects, approve=approve, where=where)
    try:
        ask = next(asks)
        while True:
            try:
                granted = ask.approve(ask.route, ask.arguments)
            except Exception as exc:
                ask = asks.throw(exc)
            else:
                ask = asks.send(granted)
    except StopIteration:
        return


def approval(
    route: Route,
    arguments: Mapping[str, Any],
    *,
    allow_effects: frozenset[Effect],
    approve: Approver | None,
    where: str,
    bound: Mapping[str, BoundArgument] | None = None,
) -> Generator[Ask, Any, None]:
    """:func:`check_effect` as a generator that yields the approval to ask (an :class:`Ask`)
    and is sent its answer (or thrown its error); ``bound``: the arguments an earlier plan
    step gave (:attr:`ApprovalArguments.bound`)."""
    effect = route.endpoint.effect
    if effect not in allow_effects:
        allowed = ", ".join(sorted(e.value for e in allow_effects)) or "none"
        raise PolicyError(
            f"{route.route_id} has effect {effect.value}, which this execution does not "
            f"allow (allowed: {allowed})",
            where=where,
            hint=_effect_hint(effect, allow_effects),
        )
    if effect is Effect.READ:
        return
    if approve is None:
        raise PolicyError(
            f"{route.route_id} has effect {effect.value}: it needs an approval callback",
            where=where,
            hint="Pass approve=lambda route, arguments: ... that returns True for this call",
        )
    try:
        granted = yield Ask(approve, route, ApprovalArguments(read_only(arguments), bound))
    except Exception as exc:
        said = clip(str(exc), 200)
        raise PolicyError(
            f"the approval callback failed for {route.route_id}: {type(exc).__name__}"
            + (f": {said}" if said else ""),
            where=where,
            hint="The callback is called as approve(route, arguments) and returns True or "
            "False (the arguments it sees are read-only all the way down: copy them to change "
            "what it shows)",
        ) from None
    if inspect.isawaitable(granted):  # never awaited: say so rather than "refused"
        getattr(granted, "close", lambda: None)()
        raise PolicyError(
            f"the approval callback for {route.route_id} returned an awaitable, not True",
            where=where,
            hint="Pass a plain function returning True or False, or call acall / aexecute, "
            "which await it; nothing was called",
        )
    if granted is False:
        raise PolicyError(
            f"the approval callback refused {effect.value} call {route.route_id}",
            where=where,
            hint="Nothing was called",
        )
    if granted is not True:  # "yes", 1, or a callback that forgot its return (trial X3)
        kind = "" if granted is None else f" ({type(granted).__name__})"
        raise PolicyError(
            f"the approval callback for {route.route_id} returned {clip(repr(granted), 60)}"
            f"{kind}, not True, so its {effect.value} call is refused",
            where=where,
            hint="Make the callback return True or False (return True to approve, False to "
            "refuse; a callback with no return statement returns None); nothing was called",
        )


class Health(Protocol):
    """Where health lives (the router): cooldowns by route id."""

    def is_healthy(self, route_id: str) -> bool: ...

    def cooldown_left(self, route_id: str) -> float: ...

    def cooldown_reason(self, route_id: str) -> str | None: ...

    def mark_unhealthy(
        self, route_id: str, *, cooldown: float = ..., reason: str | None = ...
    ) -> None: ...


def unhealthy_error(health: Health, route_id: str, *, where: str) -> PolicyError:
    """The refusal of a call to a route that is cooling down: why (the failed attempts, or
    the host's mark), how long it has left, and the way to end the cooldown now (the route
    may be back, or a fault may have been fixed)."""
    left = math.ceil(health.cooldown_left(route_id))
    why = health.cooldown_reason(route_id)
    return PolicyError(
        f"{route_id} is unhealthy (cooling down{f' after {why}' if why else ''}, {left} s left)",
        where=where,
        hint=f"Call again after the cooldown, or reset it now with "
        f"router.mark_healthy({route_id!r})",
    )


class HealthMonitor:
    """Consecutive failed attempts per route; at ``threshold`` the route is marked
    unhealthy on ``health`` for ``cooldown`` seconds and its count starts again."""

    def __init__(self) -> None:
        self._failures: dict[str, int] = {}
        #: when each route's last counted failure was counted (``time.monotonic``)
        self._counted_at: dict[str, float] = {}
        self._lock = ForkSafeLock()

    def success(self, route_id: str) -> None:
        with self._lock:
            self._failures.pop(route_id, None)

    def forget(self, route_ids: Iterable[str]) -> None:
        """Drop the counts of ``route_ids`` (routes replaced or removed: new contracts)."""
        with self._lock:
            for route_id in route_ids:
                self._failures.pop(route_id, None)
                self._counted_at.pop(route_id, None)

    def failure(
        self,
        route_id: str,
        health: Health,
        *,
        threshold: int,
        cooldown: float,
        detail: str = "",
        started: float | None = None,
    ) -> bool:
        """Count one failure (``detail``: what failed, ``HTTP 500``); ``True`` when it made
        the route unhealthy. An attempt ``started`` (``time.monotonic``) before the route's
        last counted failure was counted was in flight with it: the same outage seen again,
        not counted (trial Q: an HTTP server restarted for a second under 12 threads failed
        three calls within milliseconds, and its routes went offline for 60 s)."""
        with self._lock:
            if started is not None and started < self._counted_at.get(route_id, -math.inf):
                return False
            self._counted_at[route_id] = time.monotonic()
            count = self._failures.get(route_id, 0) + 1
            if count < threshold:
                self._failures[route_id] = count
                return False
            self._failures.pop(route_id, None)
        why = f"{count} failed attempts in a row" + (f" ({detail})" if detail else "")
        health.mark_unhealthy(route_id, cooldown=cooldown, reason=why)
        logger.warning("%s failed %d times in a row: unhealthy for %g s", route_id, count, cooldown)
        return True


_MONITORS: weakref.WeakKeyDictionary[Any, HealthMonitor] = weakref.WeakKeyDictionary()
_MONITORS_LOCK = ForkSafeLock()


def monitor_for(host: Any) -> HealthMonitor:
    """The failure counter kept for ``host`` (a router) across executions: its own
    ``health_monitor`` where it has one."""
    own = getattr(host, "health_monitor", None)
    if isinstance(own, HealthMonitor):
        return own
    with _MONITORS_LOCK:
        monitor = _MONITORS.get(host)
        if monitor is None:
            monitor = _MONITORS[host] = HealthMonitor()
        return monitor
