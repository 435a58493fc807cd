"""What a Python function raised stays on the error, traceback included: ``error.raised``.

Trial X3 (a lab app's own functions): ``consume_reagent`` raised ``RuntimeError`` deep in the
app, and ``call`` answered ``InvocationError: the callable raised RuntimeError: ...`` with no
chained exception and no frame of the app in its traceback (the error is re-raised ``from
None`` on its way out, as every execution error is, so that no credential rides on a chained
exception): the developer could not see where their function failed."""

from __future__ import annotations

import asyncio
import traceback

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError
from schemarouter.index import HashingEncoder


def _check_stock(amount_g: float) -> None:
    raise RuntimeError(f"only 0.5 g left, cannot use {amount_g} g")


def consume_reagent(reagent_id: str, amount_g: float) -> float:
    """Record that an amount of a reagent was used up."""
    _check_stock(amount_g)
    return 0.0


async def aconsume_reagent(reagent_id: str, amount_g: float) -> float:
    """Record that an amount of a reagent was used up (async)."""
    _check_stock(amount_g)
    return 0.0


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([consume_reagent, aconsume_reagent], provider="lab", effect="write")
    return router


WRITE = {"allow_effects": ["read", "write"], "approve": lambda *_: True}


def _frames(error: BaseException) -> list[str]:
    return [frame.name for frame in traceback.extract_tb(error.__traceback__)]


@pytest.mark.parametrize("name", ["consume_reagent", "aconsume_reagent"])
def test_the_exception_a_function_raised_is_on_the_error(router: SchemaRouter, name: str) -> None:
    arguments = {"reagent_id": "R-3", "amount_g": 5}
    with pytest.raises(InvocationError, match="the callable raised RuntimeError") as called:
        router.call(f"lab/python/{name}", arguments, **WRITE)
    raised = called.value.raised
    assert isinstance(raised, RuntimeError) and "cannot use 5.0 g" in str(raised)
    assert _frames(raised)[-2:] == [name, "_check_stock"]

    async def acall() -> None:
        await router.acall(f"lab/python/{name}", arguments, **WRITE)

    with pytest.raises(InvocationError) as awaited:
        asyncio.run(acall())
    assert _frames(awaited.value.raised)[-1] == "_check_stock"


def test_every_invocation_error_has_the_attributes_callers_read() -> None:
    """The attributes invokers set are declared on the class, so an error another invoker
    made (or a caller's own) reads their defaults, and a type checker knows them."""
    from schemarouter.errors import InvocationError

    error = InvocationError("the upstream broke", where="t")
    assert (error.retryable, error.counts_for_health) == (False, True)
    assert (error.status_code, error.retry_after, error.body, error.raised) == (None,) * 4
