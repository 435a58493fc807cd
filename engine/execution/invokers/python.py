"""Python callables: called with keyword arguments; coroutine functions awaited.

The return value becomes JSON data through pydantic (models, dataclasses, TypedDicts, plain
values), so it is validated and projected exactly like an HTTP response. Timeouts: the async
driver enforces them (a sync function runs in a worker thread); the sync driver cannot stop
a running sync function and checks the time budget when it returns.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from schemarouter.execution.invokers.payload import Payload, invocation_error

__all__ = ["PythonCall", "call_async", "call_sync", "to_payload"]

_ANY: TypeAdapter[Any] = TypeAdapter(Any)


@dataclass(frozen=True)
class PythonCall:
    function: Callable[..., Any]
    arguments: Mapping[str, Any]
    timeout: float
    where: str


def _failed(exc: BaseException, op: PythonCall) -> Exception:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return invocation_error(f"timed out after {op.timeout:g} s", where=op.where, retryable=True)
    return invocation_error(
        f"the callable raised {type(exc).__name__}: {exc}",
        where=op.where,
        retryable=isinstance(exc, ConnectionError),
    )


def to_payload(value: Any, where: str) -> Payload:
    """The return value as JSON data, and its size in bytes."""
    try:
        data = _ANY.dump_python(value, mode="json")
        size = len(json.dumps(data, default=str).encode())
    except Exception as exc:
        raise invocation_error(
            f"the callable returned a value that is not JSON data ({type(exc).__name__})",
            where=where,
            hint="Return JSON-compatible values or pydantic models",
        ) from None
    return Payload(data, size)


def _run_coroutine(awaitable: Any, timeout: float) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(awaitable, timeout)

    # a fresh loop in a worker thread: works whether or not the caller runs a loop
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, bounded()).result()


def call_sync(op: PythonCall) -> Payload:
    try:
        result = op.function(**op.arguments)
        if inspect.isawaitable(result):
            result = _run_coroutine(result, op.timeout)
    except Exception as exc:
        raise _failed(exc, op) from None
    return to_payload(result, op.where)


async def call_async(op: PythonCall) -> Payload:
    try:
        if inspect.iscoroutinefunction(op.function):
            result = await asyncio.wait_for(op.function(**op.arguments), op.timeout)
        else:
            result = await asyncio.wait_for(
                asyncio.to_thread(op.function, **op.arguments), op.timeout
            )
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, op.timeout)
    except Exception as exc:
        raise _failed(exc, op) from None
    return to_payload(result, op.where)
