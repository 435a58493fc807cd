"""An integer parameter named for what it counts takes the number written before that word
(trial Z3: "Price room R3 for 2 nights" left ``nights`` of a typed Python function open)."""

from __future__ import annotations

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Parameter
from schemarouter.index import HashingEncoder
from schemarouter.planning.counted_values import counted_value


def price_booking(room_id: str, nights: int) -> dict[str, float]:
    """Price a booking of a meeting room for a number of nights."""
    return {"total_eur": 120.0 * nights}


_INT = {"type": "integer", "minimum": 1}


@pytest.mark.parametrize(
    ("query", "nights"),
    [
        ("Price room R3 for 2 nights", 2),
        ("Price room R3 for 1 night", 1),
        ("Price room R3, 14 nights please", 14),
        ("Price room R3 for at least 2 nights", None),
        ("Price room R3 for more than 2 nights", None),
        ("Price room R3 for 2 or 3 nights", None),
        ("Price room R3 for 2-3 nights", None),
        ("Price room R3 for 2 nights, not 3 nights", 2),
        ("Price room R3 for 0 nights", None),  # the schema refuses it
        ("Price room R3 for two nights", None),
    ],
)
def test_a_count_is_the_number_before_its_word(query: str, nights: int | None) -> None:
    parameter = Parameter(name="nights", json_schema=_INT)
    assert counted_value(parameter, _INT, query) == nights


@pytest.mark.parametrize("name", ["night", "status", "address", "count"])
def test_only_a_plural_named_integer_counts(name: str) -> None:
    parameter = Parameter(name=name, json_schema=_INT)
    assert counted_value(parameter, _INT, f"Price room R3 for 2 {name}") is None


def test_a_typed_function_gets_its_count() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(price_booking, provider="rooms", effect="read")
    (step,) = router.plan(PlanRequest(query="Price room R3 for 2 nights")).steps
    assert step.arguments == {"room_id": "R3", "nights": 2}


def test_many_counts_are_read_once() -> None:
    """Each count's bound and list words were looked for by reading the request again from
    its start: 4,000 counts took 12.4 s, 20,000 minutes (review of trial Z3); only the words
    right before each are read now (0.5 s; no test here is timed)."""
    parameter = Parameter(name="nights", json_schema=_INT)
    assert counted_value(parameter, _INT, " and ".join(["2 nights"] * 20_000)) == 2
    assert counted_value(parameter, _INT, " and ".join(["at least 2 nights"] * 20_000)) is None
