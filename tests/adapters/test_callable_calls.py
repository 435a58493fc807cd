"""Typed Python callables at call time: each route runs its own function, and the function
receives its arguments as its annotated types, in the shape its signature takes."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter, capability
from schemarouter.errors import DuplicateRouteError


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
