"""Typed Python callables at call time: each route runs its own function, and the function
receives its arguments as its annotated types, in the shape its signature takes."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import re
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from schemarouter import Budget, ExecutionPolicy, SchemaRouter, capability
from schemarouter.errors import (
    BudgetExceededError,
    DuplicateRouteError,
    InvocationError,
    ParameterValidationError,
    PolicyError,
)


def _length_converter(unit: str, factor: float, *, named: bool = True) -> Any:
    def convert(meters: float) -> float:
        """Convert a length given in meters."""
        return meters * factor

    return capability(convert, name=f"to_{unit}") if named else convert


def test_closures_sharing_a_qualname_each_run_their_own_function() -> None:
    """Closures of one factory share ``module.qualname`` (``make.<locals>.convert``); one
    ``add_callable`` call bound both routes to the last of them, so ``to_cm`` ran ``to_km``
    and returned 0.001 for 1 m. Each route runs the function it was built from."""
    to_cm, to_km = _length_converter("cm", 100.0), _length_converter("km", 0.001)
    router = SchemaRouter()
    change = router.add_callable([to_cm, to_km], provider="units")
    assert change.added == ("units/python/to_cm", "units/python/to_km")
    assert router.binding("units/python/to_cm") is to_cm
    assert router.binding("units/python/to_km") is to_km
    assert router.call("units/python/to_cm", {"meters": 1.0}).output == 100.0
    assert router.call("units/python/to_km", {"meters": 1.0}).output == 0.001

    # two closures that would get one route id are refused, as any duplicate is
    same = [_length_converter(u, f, named=False) for u, f in (("cm", 100.0), ("km", 0.001))]
    fresh = SchemaRouter()
    with pytest.raises(DuplicateRouteError, match="'lab/python/convert' is declared twice"):
        fresh.add_callable(same, provider="lab")
    assert fresh.snapshot().route_ids() == () and fresh.bindings() == {}


class Unit(enum.Enum):
    CELSIUS = "C"
    FAHRENHEIT = "F"


class Point(BaseModel):
    x: float
    y: float
    seen: datetime.date


@dataclasses.dataclass
class Box:
    w: float
    h: float


def boiling_point(unit: Unit) -> float:
    """Boiling point of water in the requested unit."""
    return 100.0 if unit is Unit.CELSIUS else 212.0


def describe_inputs(
    p: Point, b: Box, d: datetime.date, s: set[int], raw: bytes, pair: tuple[int, str]
) -> dict[str, Any]:
    """What each argument arrived as."""
    return {
        "types": [type(v).__name__ for v in (p, b, d, s, raw, pair)],
        "norm": (p.x**2 + p.y**2) ** 0.5,
        "area": b.w * b.h,
        "year": d.year,
        "seen": p.seen.month,
        "set": sorted(s | {0}),
        "raw": raw.decode(),
    }


async def async_boiling_point(unit: Unit, when: datetime.date) -> str:
    """Boiling point, awaited."""
    await asyncio.sleep(0)
    return f"{unit.name} {when.isoformat()}"


_INPUTS = {
    "p": {"x": 3, "y": 4, "seen": "2024-02-03"},
    "b": {"w": 2, "h": 3},
    "d": "2024-05-01",
    "s": [2, 1],
    "raw": "abc",
    "pair": [1, "a"],
}
_EXPECTED = {
    "types": ["Point", "Box", "date", "set", "bytes", "tuple"],
    "norm": 5.0,
    "area": 6.0,
    "year": 2024,
    "seen": 2,
    "set": [0, 1, 2],
    "raw": "abc",
}


def test_arguments_reach_the_callable_as_their_annotated_types() -> None:
    """The invoker called ``fn(**raw_json)``: an Enum parameter got ``"C"`` (so
    ``boiling_point`` answered 212.0 for Celsius, silently), a model or dataclass a dict, a
    date a str, a set a list, bytes a str. Each argument now becomes its annotated type
    through the TypeAdapter that made its schema, sync and async alike."""
    router = SchemaRouter()
    router.add_callable([boiling_point, describe_inputs, async_boiling_point], provider="lab")
    schema = router.snapshot().route("lab/python/boiling_point").endpoint.input_schema
    assert schema["properties"]["unit"]["enum"] == ["C", "F"]
    assert router.call("lab/python/boiling_point", {"unit": "C"}).output == 100.0
    assert router.call("lab/python/boiling_point", {"unit": "F"}).output == 212.0
    assert router.call("lab/python/describe_inputs", _INPUTS).output == _EXPECTED
    awaited = asyncio.run(router.acall("lab/python/describe_inputs", _INPUTS))
    assert awaited.output == _EXPECTED
    args = {"unit": "C", "when": "2024-05-01"}
    assert router.call("lab/python/async_boiling_point", args).output == "CELSIUS 2024-05-01"
    awaited = asyncio.run(router.acall("lab/python/async_boiling_point", args))
    assert awaited.output == "CELSIUS 2024-05-01"


def test_an_argument_its_type_refuses_is_a_parameter_validation_error() -> None:
    """What the JSON Schema cannot say (a month 13 in a date string) is refused as the
    argument becomes its type: a ParameterValidationError at the value's JSON path, and the
    function does not run."""
    ran: list[Point] = []

    def record(p: Point) -> int:
        """Record a point."""
        ran.append(p)
        return len(ran)

    router = SchemaRouter()
    router.add_callable(record, provider="lab")
    bad = {"p": {"x": 1, "y": 2, "seen": "2024-13-02"}}
    for call in (
        lambda: router.call("lab/python/record", bad),
        lambda: asyncio.run(router.acall("lab/python/record", bad)),
    ):
        # the gate's date format check says it first (trial N §8); the type would too
        with pytest.raises(ParameterValidationError, match="is not a 'date'") as refused:
            call()
        assert refused.value.json_path == "$.p.seen"  # type: ignore[attr-defined]
        assert "arguments $.p.seen" in str(refused.value.where)
    assert ran == []
    assert router.call("lab/python/record", {"p": {"x": 1, "y": 2, "seen": "2024-12-02"}}).output
    assert ran == [Point(x=1, y=2, seen=datetime.date(2024, 12, 2))]


class OrderLine(BaseModel):
    sku: str
    quantity: int


class OpenNote(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str


def test_a_key_a_nested_model_does_not_declare_is_refused_not_dropped() -> None:
    """Trial Y §4: ``lines=[{"sku": "A", "quantity": 1, "gift": true}]`` on a write ran
    without the gift: pydantic's default ``extra="ignore"`` dropped the key the top level
    would have refused. A model that says nothing of other keys is closed to them in the
    route's schema, so the gate refuses the key at its path and the function does not run;
    a model that allows extras, and a ``dict[str, X]``, still take them."""
    placed: list[Any] = []

    @capability(effect="write")
    def place_order(
        lines: list[OrderLine], note: OpenNote | None = None, tags: dict[str, str] | None = None
    ) -> int:
        """Place an order for some products."""
        placed.append((lines, note, tags))
        return len(placed)

    router = SchemaRouter()
    router.add_callable(place_order, provider="shop")
    route = "shop/python/place_order"
    run = {"allow_effects": {"write"}, "approve": lambda *_: True}
    with pytest.raises(ParameterValidationError, match="'gift' was unexpected") as refused:
        router.call(route, {"lines": [{"sku": "A", "quantity": 1, "gift": True}]}, **run)
    assert refused.value.json_path == "$.lines[0]"  # type: ignore[attr-defined]
    assert placed == []
    arguments = {
        "lines": [{"sku": "A", "quantity": 1}],
        "note": {"text": "leave at the door", "floor": 3},
        "tags": {"channel": "agent"},
    }
    assert router.call(route, arguments, **run).output == 1
    assert placed[0][1].model_extra == {"floor": 3} and placed[0][2] == {"channel": "agent"}


@dataclasses.dataclass
class UnitBoilingPoint:
    """Boiling point of water, from an object (a dataclass: equal, so not hashable)."""

    offset: float

    def __call__(self, unit: Unit) -> float:
        return (100.0 if unit is Unit.CELSIUS else 212.0) + self.offset


def test_a_function_bound_by_hand_gets_its_annotated_types_too() -> None:
    """``bind`` of a typed function to a Python route keeps its call shape as
    ``add_callable`` does: its arguments become the annotated types."""
    router = SchemaRouter()
    router.add_callable(boiling_point, provider="lab")

    def boiling_point_v2(unit: Unit) -> float:
        return 100.5 if unit is Unit.CELSIUS else 212.5

    router.bind("lab/python/boiling_point", boiling_point_v2)
    assert router.call("lab/python/boiling_point", {"unit": "C"}).output == 100.5
    router.bind("lab/python/boiling_point", UnitBoilingPoint(1.0))
    assert router.call("lab/python/boiling_point", {"unit": "C"}).output == 101.0


def density(mass_g: float, volume_cm3: float, /) -> float:
    """Density from mass and volume."""
    return mass_g / volume_cm3


def spread(
    first: int = 1, second: int = 2, /, third: int = 3, *rest: int, **extra: str
) -> list[int]:
    """Three numbers, the first two positional-only."""
    return [first, second, third, len(rest), len(extra)]


def test_positional_only_parameters_are_passed_by_position() -> None:
    """``def density(mass_g, volume_cm3, /)`` registered, but every call failed with
    "got some positional-only arguments passed as keyword arguments". They are passed by
    position, in signature order; one left out before a given one takes its own default.
    ``*args`` / ``**kwargs`` are not parameters of the route: a call passes them nothing."""
    router = SchemaRouter()
    router.add_callable([density, spread], provider="lab")
    assert router.call("lab/python/density", {"mass_g": 10.0, "volume_cm3": 2.0}).output == 5.0
    awaited = asyncio.run(router.acall("lab/python/density", {"volume_cm3": 4, "mass_g": 10}))
    assert awaited.output == 2.5
    schema = router.snapshot().route("lab/python/spread").endpoint.input_schema
    assert sorted(schema["properties"]) == ["first", "second", "third"]
    assert router.call("lab/python/spread", {"second": 5}).output == [1, 5, 3, 0, 0]
    assert router.call("lab/python/spread", {"third": 9, "first": 0}).output == [0, 2, 9, 0, 0]
    assert router.call("lab/python/spread", {}).output == [1, 2, 3, 0, 0]
    with pytest.raises(ParameterValidationError, match="rest"):
        router.call("lab/python/spread", {"rest": [1]})


# -- what a callable raises --------------------------------------------------------------


def get_airport_delays(airport_code: str) -> float:
    """Average departure delay in minutes at an airport (IATA code)."""
    if len(airport_code) != 3:
        raise ValueError(f"unknown airport {airport_code!r}: use a 3-letter IATA code")
    if airport_code == "XXX":
        raise KeyError(airport_code)
    if airport_code == "ZZZ":
        raise RuntimeError("the delay feed is down")
    return 17.0


@pytest.mark.parametrize("asynchronous", [False, True], ids=["call", "acall"])
def test_a_callable_refusing_its_arguments_does_not_take_its_route_offline(
    asynchronous: bool,
) -> None:
    """Trial M: three ValueErrors ("unknown airport 'LISBON'") put the route in a 60 s
    cooldown, and the right call that followed was refused. A ValueError, TypeError or
    LookupError is the function refusing its values, as a 4xx is an HTTP server's: it does
    not count toward health. Any other exception still does."""
    router = SchemaRouter()
    router.add_callable(get_airport_delays, provider="travel")
    route = "travel/python/get_airport_delays"

    def call(code: str) -> Any:
        if asynchronous:
            return asyncio.run(router.acall(route, {"airport_code": code}))
        return router.call(route, {"airport_code": code})

    for code in ("LISBON", "Lisboa", "LPPT", "XXX", "XXX"):
        with pytest.raises(InvocationError, match=r"the callable raised (ValueError|KeyError)"):
            call(code)
    assert router.cooldown_left(route) == 0
    assert call("LIS").output == 17.0
    for _ in range(3):  # the function's own outage counts, as before
        with pytest.raises(InvocationError, match="RuntimeError: the delay feed is down"):
            call("ZZZ")
    assert router.cooldown_left(route) > 0
    with pytest.raises(PolicyError, match="unhealthy"):
        call("LIS")


def get_exchange_rate(base: str, quote: str) -> float:
    """Latest exchange rate between two currencies."""
    raise TimeoutError("ECB feed: upstream gateway timeout (HTTP 504)")


async def aget_exchange_rate(base: str, quote: str) -> float:
    """Latest exchange rate between two currencies, asynchronously."""
    raise TimeoutError("ECB feed: upstream gateway timeout (HTTP 504)")


async def slow_rate(base: str) -> float:
    """An exchange rate that takes its time."""
    await asyncio.sleep(5)
    return 1.0


@pytest.mark.parametrize("asynchronous", [False, True], ids=["call", "acall"])
@pytest.mark.parametrize("function", [get_exchange_rate, aget_exchange_rate])
def test_a_timeout_error_the_callable_raises_is_its_own_not_the_call_timeout(
    asynchronous: bool, function: Any
) -> None:
    """Trial M: a TimeoutError the function raised at once was reported as "timed out
    after 30 s", its message lost. It is named as the function's, and retried as before;
    the call's own timeout still says "timed out after"."""
    router = SchemaRouter()
    router.add_callable([function, slow_rate], provider="fx")
    route = f"fx/python/{function.__name__}"
    policy = ExecutionPolicy(backoff=0.01)
    arguments = {"base": "EUR", "quote": "KRW"}
    with pytest.raises(InvocationError) as caught:
        if asynchronous:
            asyncio.run(router.acall(route, arguments, policy=policy))
        else:
            router.call(route, arguments, policy=policy)
    message = str(caught.value)
    assert "the callable raised TimeoutError: ECB feed: upstream gateway timeout" in message
    assert "timed out after" not in message and "after 3 attempts" in message
    quick = ExecutionPolicy(max_attempts=1, timeout=0.2)
    with pytest.raises(InvocationError, match=r"timed out after 0\.2 s") as slow:
        if asynchronous:
            asyncio.run(router.acall("fx/python/slow_rate", {"base": "EUR"}, policy=quick))
        else:
            router.call("fx/python/slow_rate", {"base": "EUR"}, policy=quick)
    assert "callable raised" not in str(slow.value)


def test_a_call_cut_short_by_the_time_budget_says_its_seconds_in_three_figures() -> None:
    """Trial S2 §8: a call the time budget's deadline cut short read "timed out after
    1.49975 s" (the budget's time left, printed whole)."""
    router = SchemaRouter()
    router.add_callable([slow_rate], provider="fx")
    policy = ExecutionPolicy(max_attempts=1, timeout=30)
    with pytest.raises(BudgetExceededError) as caught:
        router.call(
            "fx/python/slow_rate", {"base": "EUR"}, policy=policy, budget=Budget(max_seconds=0.3)
        )
    message = str(caught.value)
    assert re.search(r"\(last error: timed out after 0\.\d{1,3} s\)", message), message
