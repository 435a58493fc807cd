"""A Python tool sees the caller's context variables (a tenant, a request id) however it
is called: ``call`` or ``acall``, a plain or an ``async`` function, each run in a thread
of its own."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from schemarouter import SchemaRouter

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
