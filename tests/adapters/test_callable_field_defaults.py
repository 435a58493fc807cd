"""A parameter whose default is pydantic's ``Field(...)`` (``month: int = Field(ge=1,
le=12)``, as ``validate_call`` and FastAPI read it): its constraints and description are the
route's, a ``Field`` without a default is required, and the function never receives the
``FieldInfo`` object itself."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import Field

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError, InvocationError, ParameterValidationError


def test_a_field_default_gives_its_constraints_and_the_function_its_value() -> None:
    """``month: int = Field(ge=1, le=12)`` registered as an optional plain integer: month 13
    reached the function, and a call without month passed it the ``FieldInfo`` object."""
    received: dict[str, object] = {}

    def monthly_sales(
        year: int,
        month: int = Field(ge=1, le=12, description="Month number, 1-12"),
        top: int = Field(default=5, ge=1),
        tags: list[str] = Field(default_factory=list),  # noqa: B008
    ) -> dict[str, int]:
        """Sales figures of one month."""
        received.update(month=month, top=top, tags=tags)
        return {"month": month, "top": top}

    router = SchemaRouter()
    router.add_callable(monthly_sales, provider="shop")
    route = router.snapshot().routes["shop/python/monthly_sales"]
    schema = route.endpoint.input_schema
    assert schema["required"] == ["year", "month"]
    assert schema["properties"]["month"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 12,
        "description": "Month number, 1-12",
    }
    assert schema["properties"]["top"] == {"type": "integer", "minimum": 1, "default": 5}
    assert "default" not in schema["properties"]["tags"]
    params = {p.name: p for p in route.endpoint.parameters}
    assert params["month"].required and params["month"].description == "Month number, 1-12"
    assert not params["top"].required and not params["tags"].required

    with pytest.raises(ParameterValidationError, match=r"greater than the maximum of 12"):
        router.call("shop/python/monthly_sales", {"year": 2026, "month": 13})
    with pytest.raises(ParameterValidationError, match=r"'month' is a required property"):
        router.call("shop/python/monthly_sales", {"year": 2026})
    assert received == {}

    out = router.call("shop/python/monthly_sales", {"year": 2026, "month": 3})
    assert out.output == {"month": 3, "top": 5}
    assert received == {"month": 3, "top": 5, "tags": []}
    first = received["tags"]
    router.call("shop/python/monthly_sales", {"year": 2026, "month": 4, "tags": ["vip"]})
    assert received["tags"] == ["vip"]
    router.call("shop/python/monthly_sales", {"year": 2026, "month": 5})
    assert received["tags"] == [] and received["tags"] is not first  # a fresh list each call


def test_a_default_factory_that_fails_or_wants_data_is_said_not_raised() -> None:
    """Trial T5: a ``Field(default_factory=...)`` that raised went out of ``router.call`` as
    itself (``ZeroDivisionError``), as did one taking the validated data (pydantic's
    ``default_factory=lambda data: ...``: ``TypeError: <lambda>() missing 1 required
    positional argument: 'data'``), registered without a word."""

    def restock(sku: str, batch: int = Field(default_factory=lambda: 1 // 0)) -> int:
        """Restock a product."""
        return batch

    router = SchemaRouter()
    router.add_callable(restock, provider="shop")
    with pytest.raises(InvocationError, match="default_factory of parameter 'batch' raised"):
        router.call("shop/python/restock", {"sku": "A"})
    with pytest.raises(InvocationError, match="default_factory of parameter 'batch' raised"):
        asyncio.run(router.acall("shop/python/restock", {"sku": "A"}))
    assert router.call("shop/python/restock", {"sku": "A", "batch": 3}).output == 3

    def reorder(sku: str, due: float = Field(default_factory=lambda data: 1.0)) -> float:
        """Reorder a product."""
        return due

    with pytest.raises(DocumentError, match="takes the validated data"):
        router.add_callable(reorder, provider="shop")
