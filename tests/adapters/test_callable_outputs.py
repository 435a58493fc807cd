"""What a Python tool returns that is not JSON data: the error names the value's type and
where in the returned value it is, so the developer knows what to convert."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError


class Reading:
    """An instrument driver's own reading type (as numpy's ``int64`` is to pydantic)."""

    def __init__(self, value: float) -> None:
        self.value = value


def balance_readings(samples: int) -> dict[str, Any]:
    """Readings of the lab balance."""
    return {
        "unit": "g",
        "at": datetime.date(2026, 3, 1),
        "tare": decimal.Decimal("0.10"),
        "series": [1.5, Reading(1.6)],
    }


def test_a_value_that_is_not_json_names_its_type_and_path() -> None:
    """A lab balance's driver returned its own reading objects (numpy's ``int64`` does the
    same): the error said only "the callable returned a value that is not JSON data
    (PydanticSerializationError)", with no word of which value or what type it was."""
    router = SchemaRouter()
    router.add_callable(balance_readings, provider="lab")
    with pytest.raises(InvocationError) as caught:
        router.call("lab/python/balance_readings", {"samples": 2})
    message = str(caught.value)
    assert "test_callable_outputs.Reading" in message, message
    assert "$.series[1]" in message, message
    assert "int(), float(), str()" in message, message
