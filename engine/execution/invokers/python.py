"""Python callables: called with their annotated types; coroutine functions awaited.

The gate has checked the arguments against the route's JSON Schema; here each one becomes
the parameter's annotated type (an Enum member, a model, a dataclass, a ``date``, a ``set``)
through the pydantic ``TypeAdapter`` that made that parameter's schema at registration
(:class:`CallShape`, kept per function by ``add_callable`` and ``bind``). Positional-only
parameters are passed by position.

The return value becomes JSON data through pydantic (models, dataclasses, TypedDicts, plain
values; a model's fields by their aliases, as its JSON Schema names them), so it is validated
and projected exactly like an HTTP response. Timeouts: the async
driver enforces them (a sync function runs in a thread of its own, so one that never returns
holds that thread only, never a worker of the event loop's default executor, which
``aretrieve`` and the host's ``asyncio.to_thread`` share); the sync driver answers a
coroutine function at its timeout too (its loop runs in a thread of its own), but cannot stop
a running sync function and checks the time budget when it returns.

An exception the function raises (a ``SystemExit`` too) is an ``InvocationError`` that
names it ("the callable raised ValueError: unknown airport 'LISBON'") and holds it, with its
traceback, as ``raised``; a ``TimeoutError`` of
its own is reported so too, apart from the call's timeout ("timed out after 30 s"), and
retried like one. A
``ValueError``, ``TypeError`` or ``LookupError`` (``KeyError``, ``IndexError``, and their
subclasses, pydantic's ``ValidationError`` among them) is the function refusing the values
it was given, as a 4xx is an HTTP server's: it does not count toward the route's health
(:data:`REFUSALS`). Any other exception (``ConnectionError``, ``OSError``, ``RuntimeError``,
a ``TimeoutError`` ...) does; a function that reaches an upstream should raise one of those
when the upstream fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import threading
import weakref
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from pydantic import TypeAdapter, ValidationError

from schemarouter.errors import ParameterValidationError
from schemarouter.execution.credentials import Redactor, redacted_exception, text_secrets
from schemarouter.execution.invokers.payload import Payload, clip, invocation_error, seconds_text
from schemarouter.execution.invokers.python_output import to_payload
from schemarouter.execution.outputs import json_path

__all__ = [
    "REFUSALS",
    "CallShape",
    "PythonCall",
    "call_async",
    "call_sync",
    "remember",
    "shape_of",
    "to_payload",
]

#: Exceptions a function raises to refuse the values it was given (its subclasses too): they
#: say nothing about the route's health, as an HTTP 4xx does not, so no number of them puts
#: the route in a cooldown.
REFUSALS: tuple[type[Exception], ...] = (ValueError, TypeError, LookupError)


class _Raised(Exception):
    """What the function itself raised (``error``), told apart from the call's own timeout."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


#: What a function raises that is its own failure: any exception, and ``SystemExit`` (a
#: command line's argparse refusing its arguments calls ``sys.exit(2)``), which went through
#: ``call`` and out of the host's event loop, ending an agent loop or a service.
_FAILURES = (Exception, SystemExit)


async def _own(awaitable: Any) -> Any:
    try:
        return await awaitable
    except _FAILURES as exc:
        raise _Raised(exc) from exc


async def _own_in_thread(awaitable: Any) -> Any:
    """:func:`_own` on a loop of a thread of its own, where no signal is delivered: a
    ``KeyboardInterrupt`` or ``GeneratorExit`` there is the function's own failure too."""
    try:
        return await _own(awaitable)
    except (KeyboardInterrupt, GeneratorExit) as exc:
        raise _foreign(exc) from exc


def _foreign(exc: BaseException) -> _Raised:
    """A ``BaseException`` the function raised in a thread of ours (no signal reaches one),
    as its own failure: a ``RuntimeError`` that names it."""
    return _Raised(RuntimeError(f"{type(exc).__name__}: {_said(exc)}"))


def _run(function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    try:
        return function(*args, **kwargs)
    except _FAILURES as exc:
        raise _Raised(exc) from exc


@dataclass(frozen=True)
class PythonCall:
    function: Callable[..., Any]
    arguments: Mapping[str, Any]
    timeout: float
    where: str


@dataclass(frozen=True)
class CallShape:
    """How a function takes its JSON arguments: each parameter's ``TypeAdapter`` (built once,
    at registration, from its type hint), its positional-only parameters in signature
    order, each with its default (``inspect.Parameter.empty`` where it has none), and what
    is passed for a parameter given no value whose own default is pydantic's ``Field(...)``
    (``fills``: its default, or its factory's value, made for each call)."""

    adapters: Mapping[str, TypeAdapter[Any]] = field(default_factory=dict)
    positional: tuple[tuple[str, Any], ...] = ()
    fills: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    #: The adapter of the return type hint, the value dumped as that type (``None``: as
    #: the value's own type).
    returns: TypeAdapter[Any] | None = None

    def arguments(self, values: Mapping[str, Any], where: str) -> tuple[list[Any], dict[str, Any]]:
        """``(args, kwargs)`` for the call: each value validated and converted as JSON by
        its parameter's adapter (a failure is a :class:`ParameterValidationError` at the
        value's JSON path); a value of a parameter without an adapter passes as it is."""
        kwargs = {name: self._convert(name, value, where) for name, value in values.items()}
        for name, fill in self.fills.items():
            if name not in kwargs:
                kwargs[name] = _filled(name, fill, where)
        given = [i for i, (name, _) in enumerate(self.positional) if name in kwargs]
        args: list[Any] = []
        for name, default in self.positional[: given[-1] + 1 if given else 0]:
            # a positional-only parameter left out before one that is given takes its
            # own default (the gate has refused a missing required one)
            args.append(kwargs.pop(name) if name in kwargs else default)
        return args, kwargs

    def _convert(self, name: str, value: Any, where: str) -> Any:
        adapter = self.adapters.get(name)
        if adapter is None:
            return value
        try:
            return adapter.validate_json(pydantic_core.to_json(value))
        except (ValidationError, pydantic_core.PydanticSerializationError) as exc:
            errors = exc.errors() if isinstance(exc, ValidationError) else []
            loc = list(errors[0]["loc"]) if errors else []
            message = errors[0]["msg"].removeprefix("Value error, ") if errors else str(exc)
            path = json_path([name, *(part for part in loc if isinstance(part, str | int))])
            error = ParameterValidationError(
                f"argument {name!r} does not become the parameter's type: {clip(message, 200)}",
                where=f"{where} arguments {path}",
                hint="Fix the value there; see the route's input schema",
            )
            error.json_path = path  # type: ignore[attr-defined]
            raise error from None


#: The call shape of each registered function, by the function's identity (an object with
#: ``__eq__`` and no ``__hash__`` is a callable too); an entry goes with its function.
_SHAPES: dict[int, tuple[Callable[[], Any], CallShape]] = {}
#: How a function without a kept shape is called: its arguments as they are, by keyword.
_RAW = CallShape()


def remember(function: Callable[..., Any], shape: CallShape) -> None:
    """Keep ``function``'s call shape for its calls (``add_callable`` and ``bind`` do)."""
    key = id(function)

    def forget(_: object) -> None:
        _SHAPES.pop(key, None)

    held: Callable[[], Any]
    try:
        held = weakref.ref(function, forget)
    except TypeError:  # no weak reference (``__slots__``): held while the process runs
        held = functools.partial(_same, function)
    _SHAPES[key] = (held, shape)


def _filled(name: str, fill: Callable[[], Any], where: str) -> Any:
    """The value ``fill`` makes for parameter ``name``; its failure is the function's
    (a ``Field(default_factory=...)`` that raised went out of ``call`` as itself)."""
    try:
        return fill()
    except Exception as exc:
        raise invocation_error(
            f"the default_factory of parameter {name!r} raised {type(exc).__name__}: {_said(exc)}",
            where=where,
            hint="Fix the parameter's Field(default_factory=...), or pass the value",
        ) from None


def _same(value: Any) -> Any:
    return value


def shape_of(function: Callable[..., Any]) -> CallShape:
    """``function``'s call shape: the one kept when it was registered or bound, else its
    arguments as they are, by keyword."""
    found = _SHAPES.get(id(function))
    return found[1] if found is not None and found[0]() is function else _RAW


def _failed(exc: BaseException, op: PythonCall) -> Exception:
    """The error for ``exc``: the call's own timeout (a ``TimeoutError`` that is no
    :class:`_Raised`), or what the function raised, by name and message."""
    if isinstance(exc, _Held):
        return invocation_error(
            f"not started: {exc.count} earlier calls of this function still run past their "
            "timeout, each in a thread of its own",
            where=op.where,
            hint="The function does not return: fix or remove it; its calls start again as "
            "those threads end",
        )
    if not isinstance(exc, _Raised):
        if isinstance(exc, TimeoutError | asyncio.TimeoutError):
            return invocation_error(
                f"timed out after {seconds_text(op.timeout)} s", where=op.where, retryable=True
            )
        raised: BaseException = exc
    else:
        raised = exc.error
    said = _said(raised)
    # a key the function holds itself, quoted in its message: the run never handed it out,
    # so no redactor knew it (trial Y1: it reached the agent, the log and ``raised``)
    redactor = Redactor(text_secrets(said))
    error = invocation_error(
        f"the callable raised {type(raised).__name__}: {redactor(said)}",
        where=op.where,
        retryable=isinstance(raised, ConnectionError | TimeoutError | asyncio.TimeoutError),
        health=not isinstance(raised, REFUSALS),
    )
    # the exception itself, traceback included, for the function's developer: the error is
    # re-raised ``from None`` on its way out (trial X3: no frame of the function was left)
    error.raised = redacted_exception(raised, redactor)
    return error


def _not_started(op: PythonCall) -> Exception:
    """A sync function's call that waited its whole timeout for a slot (:data:`MAX_THREADS`
    other calls held them): it never ran, so its route's health is not the matter (trial U1:
    it read "timed out after 1 s", as if the function had), or for calls of it that their
    callers cancelled to end (:func:`_room`)."""
    with _stragglers_lock:
        held = _stragglers.get(id(op.function), 0)
    why = f"the {MAX_THREADS} sync Python tools this event loop runs at once were all still running"
    if held >= MAX_STRAGGLERS:
        why = f"{held} earlier calls of this function its callers stopped waiting for still ran"
    return invocation_error(
        f"not started within its timeout of {seconds_text(op.timeout)} s: {why}",
        where=op.where,
        hint="Call it again once fewer calls run, or give it a longer timeout",
        retryable=True,
        health=False,
    )


def _said(error: BaseException) -> str:
    """``str(error)``, or what stands for it where its own ``__str__`` raises (that error
    left ``call`` as itself, not as the promised ``InvocationError``: trial T1)."""
    try:
        return str(error)
    except Exception as exc:
        return f"<its message could not be read: {type(exc).__name__}>"


#: How many calls of one function may still run in their threads after their callers stopped
#: waiting (timed out): past that a new call of it fails at once, without a thread (or waits,
#: within its timeout, where some were cancelled: :func:`_room`). Each call of a function
#: that never returns left a thread behind for good (900 calls: 900 threads).
MAX_STRAGGLERS = 32
_stragglers: dict[int, int] = {}
#: of those, the calls their callers cancelled before their timeout (a client gone): no
#: sign of a function that does not return (trial W2)
_cancelled: dict[int, int] = {}
_stragglers_lock = threading.Lock()
#: How often a call held by cancelled stragglers looks whether one has ended (seconds).
_POLL = 0.05


class _Held(Exception):
    """A call not started: ``count`` earlier calls of its function still run past their
    timeout (``cancelled`` of them cancelled by their callers before it)."""

    def __init__(self, count: int, cancelled: int = 0) -> None:
        super().__init__(count)
        self.count = count
        self.cancelled = cancelled


def _straggler_state(key: int) -> dict[str, bool]:
    """A call's state (:func:`_ended`, :func:`_abandoned`), or :class:`_Held` where
    :data:`MAX_STRAGGLERS` calls of the function ``key`` run past their timeout."""
    with _stragglers_lock:
        if _stragglers.get(key, 0) >= MAX_STRAGGLERS:
            raise _Held(_stragglers[key], _cancelled.get(key, 0))
    return {"ended": False, "abandoned": False, "cancelled": False}


async def _room(key: int) -> dict[str, bool]:
    """:func:`_straggler_state`, waiting (within the call's own timeout) while some of the
    calls that hold it were cancelled by their callers: they may well end soon (a slow
    function whose clients went away); only calls that all ran past their timeout (a
    function that does not return) fail the next call at once."""
    while True:
        try:
            return _straggler_state(key)
        except _Held as held:
            if not held.cancelled:
                raise
        await asyncio.sleep(_POLL)


def _count(table: dict[int, int], key: int, step: int) -> None:
    if table.get(key, 0) + step > 0:
        table[key] = table.get(key, 0) + step
    else:
        table.pop(key, None)


def _ended(key: int, state: dict[str, bool]) -> None:
    with _stragglers_lock:
        state["ended"] = True
        if state["abandoned"]:
            _count(_stragglers, key, -1)
        if state["cancelled"]:
            _count(_cancelled, key, -1)


def _abandoned(key: int, state: dict[str, bool], *, cancelled: bool = False) -> None:
    """The caller stopped waiting for the call (``cancelled``: before its timeout): where
    it still runs, it is a straggler."""
    with _stragglers_lock:
        if not state["ended"]:
            state["abandoned"] = True
            _count(_stragglers, key, 1)
            if cancelled:
                state["cancelled"] = True
                _count(_cancelled, key, 1)


async def _in_own_thread(
    function: Callable[..., Any],
    args: list[Any],
    kwargs: dict[str, Any],
    started: list[bool] | None = None,
    deadline: float | None = None,
) -> Any:
    """``_run(function, *args, **kwargs)`` in a daemon thread of its own, in a copy of this
    context (as ``asyncio.to_thread``). A call that times out leaves the function running
    there: in the loop's default executor, six such calls (its workers on 2 cores) stalled
    every later ``aretrieve`` and ``to_thread`` of the process until they returned. Where
    :data:`MAX_STRAGGLERS` calls of ``function`` run so, it is not started (:class:`_Held`);
    ``deadline`` (the loop's time) is when its caller's timeout ends."""
    key = id(function)  # the threads hold the function: its id is not reused meanwhile
    state = await _room(key)
    loop = asyncio.get_running_loop()
    slots = _slots(loop)
    await slots.acquire()  # under the call's timeout: a call that waits too long times out
    held = [True]

    def give_back() -> None:  # on the loop's thread: when the call ends or is abandoned
        if held[0]:
            held[0] = False
            slots.release()

    try:  # again: calls of it may have run past their timeout while this one waited
        _straggler_state(key)
    except _Held as held:
        if not held.cancelled:  # else go on: this call holds a slot, threads stay bounded
            give_back()
            raise
    if started is not None:
        started.append(True)  # a timeout from here on is the function's own

    done: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if done.done():  # the call stopped waiting (its timeout)
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def work() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = context.run(_run, function, args, kwargs)
        except Exception as exc:
            error = exc
        except BaseException as exc:  # KeyboardInterrupt raised by the function itself
            error = _foreign(exc)
        _ended(key, state)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, value, error)
            loop.call_soon_threadsafe(give_back)

    try:
        thread = threading.Thread(target=work, name=f"schemarouter-call-{_name(function)}")
        thread.daemon = True
        thread.start()
    except BaseException:
        give_back()
        raise
    try:
        return await done
    except BaseException:  # its timeout (cancelled) or the loop closing: it runs on alone
        early = deadline is not None and loop.time() < deadline  # its caller cancelled it
        _abandoned(key, state, cancelled=early)  # a straggler, bounded per function
        give_back()
        raise


#: How many sync functions one event loop runs at once under ``acall`` / ``aexecute``, each
#: in a thread of its own; a call past that waits for one to end, within its own timeout. A
#: call its caller stopped waiting for gives its slot back (it runs on as a straggler, which
#: :data:`MAX_STRAGGLERS` bounds per function), so hung tools never hold the slots.
#: Without a bound, 2,000 concurrent calls of a 50 ms tool started 1,040-1,179 threads (trial
#: T5); the loop's default executor, which a hung call held for good, is never used.
MAX_THREADS = 64
_loop_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _slots(loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
    """``loop``'s :data:`MAX_THREADS` slots (made on its first call; only its own thread
    touches them: a worker thread gives its slot back through ``call_soon_threadsafe``)."""
    slots = _loop_slots.get(loop)
    if slots is None:
        slots = _loop_slots[loop] = asyncio.Semaphore(MAX_THREADS)
    return slots


def _name(function: Callable[..., Any]) -> str:
    return str(getattr(function, "__name__", None) or type(function).__name__)


#: How long past its timeout a sync call waits for a coroutine's own loop to say so (one
#: that blocks its loop, ``time.sleep`` in an ``async def``, cannot be cancelled there).
_GRACE = 0.25


def _run_coroutine(awaitable: Any, timeout: float, key: int) -> Any:
    """Await ``awaitable`` on a fresh loop in a daemon thread (so it works whether or not the
    caller runs a loop), answering once the coroutine ends or ``timeout`` runs out: not
    when the loop has closed, which waits for its executor's threads (a blocking client
    run through ``asyncio.to_thread`` held a 1 s call for as long as that client did). A
    coroutine that blocks its loop runs on past its timeout, as :func:`_in_own_thread`'s
    calls do, and counts toward the :data:`MAX_STRAGGLERS` of its function ``key``."""
    try:
        state = _straggler_state(key)
    except _Held:
        getattr(awaitable, "close", lambda: None)()  # never awaited: no warning of it
        raise
    answer: Future[Any] = Future()
    # the caller's context variables, as acall's tools see them (a tenant or request id
    # a tool reads was its default under call: a thread starts in an empty context)
    context = contextvars.copy_context()

    async def bounded() -> None:
        try:
            value = await asyncio.wait_for(_own_in_thread(awaitable), timeout)
        except BaseException as exc:
            answer.set_exception(exc)
            raise
        answer.set_result(value)

    def work() -> None:
        with contextlib.suppress(BaseException):  # the error went to ``answer`` first
            context.run(asyncio.run, bounded())
        if not answer.done():  # the loop itself failed before the coroutine ran
            answer.set_exception(RuntimeError("the event loop of the call did not run"))
        _ended(key, state)

    threading.Thread(target=work, name="schemarouter-call-coroutine", daemon=True).start()
    try:
        return answer.result(timeout + _GRACE)
    except TimeoutError:
        _abandoned(key, state)
        raise


def call_sync(op: PythonCall) -> Payload:
    shape = shape_of(op.function)
    args, kwargs = shape.arguments(op.arguments, op.where)
    try:
        result = _run(op.function, args, kwargs)
        if inspect.isawaitable(result):
            result = _run_coroutine(result, op.timeout, id(op.function))
    except Exception as exc:
        raise _failed(exc, op) from None
    return to_payload(result, op.where, shape.returns)


async def call_async(op: PythonCall) -> Payload:
    shape = shape_of(op.function)
    args, kwargs = shape.arguments(op.arguments, op.where)
    started: list[bool] = [True]  # a sync function's: once it holds a slot (_in_own_thread)
    try:
        if inspect.iscoroutinefunction(op.function):
            result = await asyncio.wait_for(_own(op.function(*args, **kwargs)), op.timeout)
        else:
            started = []
            deadline = asyncio.get_running_loop().time() + op.timeout
            result = await asyncio.wait_for(
                _in_own_thread(op.function, args, kwargs, started, deadline), op.timeout
            )
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(_own(result), op.timeout)
    except Exception as exc:
        if isinstance(exc, TimeoutError) and not started:
            raise _not_started(op) from None
        raise _failed(exc, op) from None
    return to_payload(result, op.where, shape.returns)
