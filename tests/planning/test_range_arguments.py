"""A bound the request writes on a quantity fills the route's ``*_min`` / ``*_max`` parameter,
in the parameter's unit (trial X4).

"km-101의 300~500 K 열전도도", "밴드갭이 2 전자볼트 이상인 소재", "3천 K까지" and "band gap
above 2 eV" planned calls with no bound: the server answered every material and temperature,
and nothing said the request's bound was dropped. Real document, real loopback server.
"""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments

from servers.loopback import LoopbackServer, Request, Response, json_response


def _get(operation_id: str, summary: str, parameters: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": parameters,
            "responses": {
                "200": {
                    "description": "ok",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    }


def _bound(name: str, unit: str | None = None, description: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number"}
    if unit:
        schema["x-unit"] = unit
    return {"name": name, "in": "query", "description": description, "schema": schema}


def _document(base: str) -> dict[str, Any]:
    material = {"name": "material_id", "in": "path", "required": True,
                "schema": {"type": "string", "pattern": "^km-[0-9]+$"}}  # fmt: skip
    return {
        "openapi": "3.0.3",
        "info": {"title": "KMDB", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/materials/{material_id}/thermal": _get(
                "getThermalConductivity",
                "온도별 열전도도 측정값 (thermal conductivity by temperature)",
                [material, _bound("temperature_min", "K"), _bound("temperature_max", "K")],
            ),
            "/materials": _get(
                "searchMaterials",
                "밴드갭과 밀도로 소재 검색 (search materials by band gap and density)",
                [
                    _bound("band_gap_min", description="Minimum band gap in eV."),
                    _bound("band_gap_max", description="최대 밴드갭 (eV)"),
                    _bound("min_density", "g/cm^3"),
                ],
            ),
            "/bands": _get(
                "searchBands",
                "밴드갭과 페르미 준위로 밴드 검색 (bands by gap and Fermi level)",
                [_bound("gap_min", "eV"), _bound("fermi_min", "eV")],
            ),
        },
    }


@pytest.fixture(scope="module")
def stack() -> Any:
    with LoopbackServer(lambda request: json_response({"ok": True})) as server:
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(_document(server.base_url), provider="kmdb")
        yield router, server


THERMAL = "kmdb/rest/get_thermal_conductivity"
SEARCH = "kmdb/rest/search_materials"


def _arguments(router: SchemaRouter, request: str, route_id: str) -> dict[str, Any]:
    """What the planner fills for ``route_id`` from ``request`` (the route is given: which route
    a request plans is retrieval's business, not this test's)."""
    route = router.snapshot().routes[route_id]
    return fill_arguments(route, request)


@pytest.mark.parametrize(
    ("request_text", "route_id", "expected"),
    [
        ("km-101의 300~500 K 열전도도", THERMAL, {"temperature_min": 300, "temperature_max": 500}),
        ("km-101의 300켈빈에서 500켈빈 사이 열전도도", THERMAL,
         {"temperature_min": 300, "temperature_max": 500}),
        ("km-103의 열전도도를 3천 K까지", THERMAL, {"temperature_max": 3000}),
        ("thermal conductivity of km-101 between 300 and 600 K", THERMAL,
         {"temperature_min": 300, "temperature_max": 600}),
        ("thermal conductivity of km-101 above 27 degC", THERMAL, {"temperature_min": 300.15}),
        ("밴드갭이 2 전자볼트 이상인 소재 검색", SEARCH, {"band_gap_min": 2}),
        ("밴드갭 1~3 eV 사이 소재", SEARCH, {"band_gap_min": 1, "band_gap_max": 3}),
        ("search materials with a band gap of at least 1500 meV", SEARCH, {"band_gap_min": 1.5}),
        ("밀도가 3천 kg/m^3 이상인 소재 검색", SEARCH, {"min_density": 3}),
    ],
)  # fmt: skip
def test_a_bound_with_a_unit_fills_the_parameter_in_its_unit(
    stack: Any, request_text: str, route_id: str, expected: dict[str, Any]
) -> None:
    router, _ = stack
    arguments = _arguments(router, request_text, route_id)
    assert {k: v for k, v in arguments.items() if k != "material_id"} == expected


@pytest.mark.parametrize(
    ("request_text", "route_id"),
    [
        ("km-101의 1573 K 열전도도", THERMAL),  # a value, no bound
        ("밴드갭이 2 GPa 이상인 소재 검색", SEARCH),  # another dimension
        ("밴드갭 2 eV 이상 말고 소재 검색", SEARCH),  # a bound the request refuses
        ("밴드갭이 2 이상인 소재 검색", SEARCH),  # no unit: which is unsaid
    ],
)
def test_no_bound_is_guessed(stack: Any, request_text: str, route_id: str) -> None:
    router, _ = stack
    arguments = _arguments(router, request_text, route_id)
    assert not {k for k in arguments if k.endswith(("_min", "_max")) or k.startswith("min_")}


def test_two_bounded_quantities_of_one_dimension_take_neither(stack: Any) -> None:
    router, _ = stack
    assert (
        _arguments(router, "밴드갭과 페르미 준위 2 eV 이상인 밴드", "kmdb/rest/search_bands") == {}
    )


def test_the_server_is_sent_the_bounds(stack: Any) -> None:
    router, server = stack
    plan = router.plan("thermal conductivity of km-101 from 300~500 K")
    assert plan.route_ids == (THERMAL,)
    router.execute(plan)
    request: Request = server.requests[-1]
    assert request.path == "/materials/km-101/thermal"
    assert (request.arg("temperature_min"), request.arg("temperature_max")) == ("300", "500")


_ = Response  # the loopback app answers one JSON body


def test_a_number_no_float_holds_binds_nothing(stack: Any) -> None:
    router, _ = stack
    arguments = _arguments(router, f"밴드갭이 {'9' * 400} eV 이상인 소재", SEARCH)
    assert "band_gap_min" not in arguments
    # and a long run of digits is read once (it took minutes, each split tried in turn)
    assert _arguments(router, "1" * 20_000, SEARCH) == {}


def test_a_long_run_of_spaces_after_a_number_is_read_once(stack: Any) -> None:
    """Trial Z1: "5", 25,000 spaces and "per page" took 17.5 s to plan (100,000: minutes),
    each split of the spaces between the number, a missing unit and a range's sign tried in
    turn; the spaces are now read once (0.09 s; no test here is timed)."""
    router, _ = stack
    spaces = " " * 100_000
    assert _arguments(router, f"materials, 5{spaces}per page", SEARCH) == {}
    arguments = _arguments(router, f"밴드갭 1{spaces}~ 3 eV 사이 소재", SEARCH)
    assert (arguments["band_gap_min"], arguments["band_gap_max"]) == (1, 3)


def test_a_bound_no_step_takes_is_said() -> None:
    from schemarouter.planning.arguments import unused_values

    (said,) = unused_values([{"formula": "GaN"}], [], "GaN 밴드갭이 2 전자볼트 이상인 구조")
    assert said == (
        "the request bounds a value ('2 전자볼트 이상'), which no step takes as an argument: "
        "the calls are not filtered by it; pass it with Plan.with_arguments where a parameter "
        "takes it (a *_min / *_max)"
    )
    assert unused_values([{}], [], "thermal conductivity above 3천 K") == [
        "the request bounds a value ('above 3000 K'), which no step takes as an argument: the "
        "calls are not filtered by it; pass it with Plan.with_arguments where a parameter takes "
        "it (a *_min / *_max)"
    ]
    # taken by a bound parameter, or no bound written: nothing said
    assert unused_values([{"band_gap_min": 2}], [], "밴드갭이 2 eV 이상") == []
    assert unused_values([{}], [], "km-101의 300 K 열용량") == []
