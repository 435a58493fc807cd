"""A Python tool sees the caller's context variables (a tenant, a request id) however it
is called: ``call`` or ``acall``, a plain or an ``async`` function, each run in a thread
of its own."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError

TENANT: contextvars.ContextVar[str] = contextvars.ContextVar("tenant", default="default")


def tenant_of(order_id: str) -> str:
    """The tenant an order is looked up for."""
    return f"{TENANT.get()}:{order_id}"


async def async_tenant_of(order_id: str) -> str:
    """The tenant an order is looked up for, by an async client."""
    await asyncio.sleep(0)
    return f"{TENANT.get()}:{order_id}"


@pytest.mark.parametrize("name", ["tenant_of", "async_tenant_of"])
@pytest.mark.parametrize("how", ["call", "acall"])
def test_a_tool_sees_the_callers_context_variables(name: str, how: str) -> None:
    """``router.call`` of an ``async`` tool ran it on a fresh loop in a new thread, which
    starts in an empty context: the tool read ``default:ORD-1`` where the caller had set
    the tenant ``acme`` (and ``acall`` of the same tool, or ``call`` of a plain one, read
    ``acme:ORD-1``). A tool that scopes data by a context variable served the default
    tenant's."""
    router = SchemaRouter()
    router.add_callable([tenant_of, async_tenant_of], provider="shop")
    route_id = f"shop/python/{name}"

    def run() -> object:
        TENANT.set("acme")
        if how == "call":
            return router.call(route_id, {"order_id": "ORD-1"}).output
        return asyncio.run(router.acall(route_id, {"order_id": "ORD-1"})).output

    assert contextvars.copy_context().run(run) == "acme:ORD-1"


@pytest.mark.parametrize("kind", [KeyboardInterrupt, GeneratorExit])
def test_an_async_tool_raising_keyboard_interrupt_fails_its_call_under_call(
    kind: type[BaseException],
) -> None:
    """``router.call`` runs an async tool on a loop in a thread of its own, where no signal
    arrives: a ``KeyboardInterrupt`` or ``GeneratorExit`` it raised went out of ``call``
    into the host as itself (a host reads that as Ctrl-C, and an agent loop ended), where
    the same tool under ``acall`` of a plain function fails its call. It is now an
    ``InvocationError`` naming it, and the host goes on."""

    async def stop_conveyor(line: str) -> str:
        """Stop a conveyor line."""
        raise kind("driver gave up")

    router = SchemaRouter()
    router.add_callable(stop_conveyor, provider="plant", effect="read")
    with pytest.raises(InvocationError, match=f"raised RuntimeError: {kind.__name__}: driver"):
        router.call("plant/python/stop_conveyor", {"line": "L1"})
