"""An OPTIMADE service registered from its base URL on loopback, then called (trial O).

The server holds a property its ``/info/structures`` does not declare
(``_grp_secret_notes``) and returns it only where ``response_fields`` asks for it, and pages
its entries two at a time (``links.next``), as a group's own database does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError, ParameterValidationError
from schemarouter.planning.arguments import fill_arguments

from servers.loopback import LoopbackServer, Request, Response, json_response

ENTRIES = [
    {"id": "grp-1", "formula": "GaN", "elements": ["Ga", "N"], "gap": 3400.0, "secret": "NDA"},
    {"id": "grp-2", "formula": "SiO2", "elements": ["O", "Si"], "gap": 5690.0, "secret": "x"},
    {"id": "grp-3", "formula": "Si", "elements": ["Si"], "gap": 610.0, "secret": "y"},
]
META = {"api_version": "1.2.0", "provider": {"name": "Group DB", "prefix": "grp"}}


def _app(request: Request) -> Response:
    base = f"http://{request.headers.get('host') or request.headers.get('Host')}/v1"
    if request.path == "/v1/info":
        return json_response(
            {
                "data": {
                    "type": "info",
                    "id": "/",
                    "attributes": {"api_version": "1.2.0", "available_licenses": ["CC-BY-4.0"]},
                },
                "meta": META,
            }
        )
    if request.path == "/v1/info/structures":
        return json_response(
            {
                "data": {
                    "description": "Structures of the group",
                    "properties": {
                        "id": {"type": "string", "description": "Entry id."},
                        "elements": {"type": "list", "description": "Elements present."},
                        "chemical_formula_reduced": {"type": "string"},
                        "band_gap": {"type": "float", "unit": "meV", "description": "Band gap."},
                    },
                },
                "meta": META,
            }
        )
    if request.path != "/v1/structures":
        return json_response({"errors": [{"status": "404"}]}, 404)
    wanted = (request.arg("response_fields") or "").split(",")
    offset, limit = int(request.arg("page_offset") or 0), int(request.arg("page_limit") or 2)
    rows = ENTRIES
    if request.arg("filter") == '_grp_secret_notes="NDA"':  # the server reads it
        rows = [e for e in rows if e["secret"] == "NDA"]
    data = []
    for e in rows[offset : offset + limit]:
        attributes = {
            "elements": e["elements"],
            "chemical_formula_reduced": e["formula"],
            "band_gap": e["gap"],
            "_grp_secret_notes": e["secret"],
        }
        attributes = {k: v for k, v in attributes.items() if k in wanted}
        data.append({"id": e["id"], "type": "structures", "attributes": attributes})
    more = offset + limit < len(rows)
    query = {**{k: v[0] for k, v in request.query.items()}, "page_offset": offset + limit}
    return json_response(
        {
            "data": data,
            "links": {"next": f"{base}/structures?{urlencode(query)}" if more else None},
            "meta": {**META, "data_returned": len(rows), "more_data_available": more},
        }
    )


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


@pytest.fixture
def router(server: LoopbackServer) -> SchemaRouter:
    router = SchemaRouter(abstention=None, embedding_cache=None)
    router.add_optimade(f"{server.base_url}/v1", provider="grp")
    server.reset()  # /info and /info/structures were read
    return router


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"response_fields": "_grp_secret_notes,band_gap"}, "_grp_secret_notes"),
        ({"filter": '_grp_secret_notes="NDA"'}, "_grp_secret_notes"),
        ({"filter": 'elements HAS "Ga" OR (_grp_secret_notes="NDA")'}, "_grp_secret_notes"),
        ({"sort": "-_grp_secret_notes"}, "_grp_secret_notes"),
    ],
)
def test_parameters_that_name_an_unregistered_property_are_refused(
    router: SchemaRouter, server: LoopbackServer, arguments: dict[str, Any], named: str
) -> None:
    """A call could read, filter or sort by a property /info/structures never declared."""
    with pytest.raises(ParameterValidationError) as refused:
        router.call("grp/optimade/list_structures", arguments)
    assert named in str(refused.value) and "does not register" in str(refused.value)
    assert "band_gap" in str(refused.value)  # the registered names are listed
    assert server.requests == []


def test_filters_on_registered_properties_still_run(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    arguments = {
        "filter": 'elements HAS ALL "Si","O" AND chemical_formula_reduced="_grp_secret_notes"',
        "response_fields": "id,band_gap",
        "sort": "-band_gap",
    }
    result = router.call("grp/optimade/list_structures", arguments)
    assert result.fields["band_gap"].unit == "meV"
    assert len(server.requests) == 1


def test_one_page_of_more_is_said(router: SchemaRouter, server: LoopbackServer) -> None:
    """The server pages two entries at a time: the result read as the whole answer."""
    result = router.call("grp/optimade/list_structures", {"response_fields": "id,band_gap"})
    assert result.ok and result.fields["band_gap"].value == [3400.0, 5690.0]
    assert (
        "grp/optimade/list_structures answered one page (2 of 3 entries) and the server has "
        "more (links.next, meta.more_data_available): the values are this page's only; call "
        "it again with page_offset for the next page, or narrow the filter"
    ) in result.warnings
    last = router.call("grp/optimade/list_structures", {"page_offset": 2})
    assert last.fields["band_gap"].value == [610.0]
    assert not any("one page" in w for w in last.warnings)  # the last page says nothing


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        # a bare filter was cut at its first space: 'elements' here, and 'nelements>=2 AND ...
        # elements HAS "Si"' became 'nelements>=2', which every structure matched
        (
            'band gap of the group structures with filter: elements HAS "Si" AND band_gap>1000',
            'elements HAS "Si" AND band_gap>1000',
        ),
        ('band gap, filter=elements HAS ALL "Si","O"; thanks', 'elements HAS ALL "Si","O"'),
        # a double-quoted filter stopped at its first escaped quote: 'elements HAS \\'
        (
            'band gap with filter "elements HAS \\"Si\\" AND band_gap>1000"',
            'elements HAS "Si" AND band_gap>1000',
        ),
        ("band gap with filter 'elements HAS \"Ga\"'", 'elements HAS "Ga"'),
    ],
)
def test_a_filter_written_in_the_request_reaches_the_server_whole(
    router: SchemaRouter, server: LoopbackServer, request_text: str, expected: str
) -> None:
    route = router.snapshot().routes["grp/optimade/list_structures"]
    arguments = fill_arguments(route, request_text)
    assert arguments.get("filter") == expected
    router.call("grp/optimade/list_structures", arguments)
    assert server.requests[-1].query["filter"] == [expected]


def _recorded(server: LoopbackServer) -> dict[str, Any]:
    with httpx.Client(base_url=f"{server.base_url}/v1") as client:
        return {
            "info": client.get("/info").json(),
            "info/structures": client.get("/info/structures").json(),
        }


def test_recorded_payloads_take_a_base_url_and_a_source_type(server: LoopbackServer) -> None:
    """Payloads whose /info names no versioned URL registered unbound without a word, and
    the router's add_optimade took neither base_url nor source_type (a database of measured
    structures read as calculated)."""
    payloads = _recorded(server)
    router = SchemaRouter(abstention=None, embedding_cache=None)
    change = router.add_optimade(payloads, provider="rec")
    assert not any(router.is_bound(r) for r in change.added)
    assert any("no base URL" in w and "base_url=" in w for w in change.warnings)
    measured = router.add_optimade(
        payloads, provider="lab", base_url=f"{server.base_url}/v1", source_type="experimental"
    )
    assert all(router.is_bound(r) for r in measured.added) and not measured.warnings
    result = router.call("lab/optimade/list_structures", {"response_fields": "id,band_gap"})
    gap = result.fields["band_gap"]
    assert (gap.value, gap.unit, gap.source_type) == ([3400.0, 5690.0], "meV", "experimental")


def test_a_services_own_properties_take_semantic_ids(server: LoopbackServer) -> None:
    """Only the core properties had semantic ids: "band gap of GaN" resolved no field, and
    the plan fetched a route's whole output instead of the band gap."""
    router = SchemaRouter(abstention=None, embedding_cache=None)
    base = f"{server.base_url}/v1"
    router.add_optimade(base, provider="grp", semantics={"band_gap": "electronic.band_gap"})
    field = router.snapshot().routes["grp/optimade/list_structures"].endpoint.field("band_gap")
    assert (field.semantic_id, field.unit) == ("electronic.band_gap", "meV")
    plan = router.plan("band gap of GaN")
    assert plan.coverage.covered == ("electronic.band_gap",)
    assert "band_gap" in plan.steps[0].fields and not plan.steps[0].whole_output
    with pytest.raises(DocumentError, match="does not declare: bandgap") as refused:
        router.add_optimade(base, provider="typo", semantics={"bandgap": "electronic.band_gap"})
    assert "band_gap" in str(refused.value)  # the declared names, to pick from


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("band gap of GaN", 'chemical_formula_reduced="GaN"'),
        ("band gap of LiFePO4", 'chemical_formula_reduced="FeLiO4P"'),  # the reduced form
        ("band gap of GaN and GaAs", '(chemical_formula_reduced="GaN" OR '
         'chemical_formula_reduced="AsGa")'),
        # nelements is not among this service's properties: the bound is left out
        ("band gaps of structures containing Si and O with at most 3 elements",
         'elements HAS ALL "Si","O"'),
        # the request's own quotes and operators never reach the filter: only the formula
        ('band gap of GaN" OR _grp_secret_notes="NDA" OR "x', 'chemical_formula_reduced="GaN"'),
        # a formula names its elements: ANDed with "U" (a Hubbard U) or "V" no structure is
        ("band gap of GaN computed with U", 'chemical_formula_reduced="GaN"'),
        ("band gap of SiO2 with V doping", 'chemical_formula_reduced="O2Si"'),
    ],
)  # fmt: skip
def test_a_requests_formulas_and_elements_filter_the_structures(
    router: SchemaRouter, server: LoopbackServer, request_text: str, expected: str
) -> None:
    """Trial O: "band gap of GaN" fetched the first page of every structure, the formula
    read and then used nowhere. The plan's filter holds the request's formulas and elements,
    only as properties the service declares, and the plan no longer warns of the formula."""
    plan = router.plan(request_text)
    (step,) = plan.steps
    assert step.route_id == "grp/optimade/list_structures"
    assert step.arguments["filter"] == expected
    assert not any("no step takes" in w for w in plan.warnings)
    router.execute(plan)
    assert server.requests[-1].query["filter"] == [expected]


def test_a_filter_built_from_a_request_uses_what_the_route_allows() -> None:
    from schemarouter.contracts import Parameter
    from schemarouter.planning.optimade_filter import optimade_filter, reduced_formula
    from schemarouter.retrieval.analysis import find_values
    from schemarouter.safety.arguments import FILTER_PROPERTIES_KEY

    def built(text: str, allowed: list[str] | None) -> str | None:
        schema: dict[str, Any] = {"type": "string"}
        if allowed is not None:
            schema[FILTER_PROPERTIES_KEY] = allowed
        parameter = Parameter(
            name="filter", location="query", json_schema=schema, semantic_id="query.optimade_filter"
        )
        return optimade_filter(parameter, text, find_values(text))

    # a catalog route that lists no properties: the three every service must make queryable
    assert built("ternary oxides containing Li", None) == 'elements HAS ALL "Li" AND nelements=3'
    assert built("GaN structures", ["elements", "nelements"]) == (
        'elements HAS ALL "Ga","N" AND nelements=2'
    )
    assert built("GaN structures", ["id"]) is None
    assert built("structures with No restrictions", None) is None  # "No" is a word here
    assert built("at least 4 elements", None) == "nelements>=4"
    assert [reduced_formula(f) for f in ("Fe4O6", "Ca3(PO4)2", "Fe0.5Ni0.5")] == [
        "Fe2O3",
        "Ca3O8P2",
        None,
    ]


def test_a_plan_of_one_call_takes_the_list_route_where_the_lookup_needs_an_unnamed_id(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """Trial O: "band gap of GaN in meV from Group DB" ranks ``get_structure`` first, whose
    ``entry_id`` nothing gives: the plan took it and the call failed. With no call left to
    chain a producer, the plan takes the provider's route with the same fields that needs
    no identifier, and says so; with room to chain, nothing changes."""
    text = "band gap of GaN in meV from Group DB"
    ranked = [c.route_id for c in router.retrieve(text, k=2).candidates]
    assert ranked[0] == "grp/optimade/get_structure"
    plan = router.plan(text)
    assert [s.route_id for s in plan.steps] == ["grp/optimade/list_structures"]
    assert any(
        "planned grp/optimade/list_structures in place of the better-ranked "
        "grp/optimade/get_structure, which needs entry_id" in w
        for w in plan.warnings
    )
    assert router.execute(plan).steps[0].status == "ok"
    assert plan.steps[0].arguments["filter"] == 'chemical_formula_reduced="GaN"'


def test_the_command_line_and_a_gateway_config_take_an_optimade_service(
    server: LoopbackServer, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial O: retrieve, serve and index build took --catalog, --openapi, --mcp-tools and
    --config, and nothing took an OPTIMADE base URL."""
    from schemarouter.cli import main
    from schemarouter.serve.config import load_config
    from schemarouter.serve.sources import build_router

    base = f"{server.base_url}/v1"
    assert main(["routes", "--optimade", f"grp={base}"]) == 0
    listed = capsys.readouterr().out
    assert "grp/optimade/list_structures" in listed and "grp/optimade/get_structure" in listed
    argv = ["retrieve", "band gap of GaN", "--optimade", f"grp={base}", "--json", "-k", "2"]
    assert main(argv) == 0
    assert "grp/optimade/" in capsys.readouterr().out
    # recorded payloads in a file, with the base URL to call, from a gateway config
    payloads = tmp_path / "grp.json"
    payloads.write_text(json.dumps(_recorded(server)), encoding="utf-8")
    config = tmp_path / "gateway.yaml"
    config.write_text(
        f"optimade:\n  - {{source: grp.json, provider: grp, base_url: '{base}'}}\n",
        encoding="utf-8",
    )
    router = build_router(load_config(config), embedding_cache=None, reranker=None)
    try:
        assert router.call("grp/optimade/list_structures", {"page_limit": 1}).ok
    finally:
        router.close()


def test_a_formula_with_a_count_past_reason_plans_without_a_crash(
    router: SchemaRouter, server: LoopbackServer
) -> None:
    """Trial X2: "band gap of Fe999...9O" (a count of 5,000 digits) crashed ``plan`` with
    Python's ValueError (no number of more than 4,300 digits is read), in every router
    (the plan's unused-formula warning reads the reduced form too). Such a count makes no
    formula: no filter holds it. An element asked for twice is named once."""
    plan = router.plan("band gap of Fe" + "9" * 5000 + "O")
    assert "filter" not in plan.steps[0].arguments
    plan = router.plan("structures containing Si, O, Si and O")
    assert plan.steps[0].arguments["filter"] == 'elements HAS ALL "Si","O"'
    router.execute(plan)
    assert server.requests[-1].query["filter"] == ['elements HAS ALL "Si","O"']


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        # pieces of a formula the reader does not follow: another material each
        ("band gap of Ca3((PO4)2)3", None),
        ("band gap of CuSO4·5H2O", None),
        # a formula in brackets of its own is whole
        ("band gap of gallium nitride (GaN)", 'chemical_formula_reduced="GaN"'),
        ("band gap of Ca3(PO4)2", 'chemical_formula_reduced="Ca3O8P2"'),
    ],
)
def test_a_piece_of_a_formula_filters_for_nothing(
    router: SchemaRouter, server: LoopbackServer, request_text: str, expected: str | None
) -> None:
    """Trial X2: "Ca3((PO4)2)3" (nested brackets) filtered for chemical_formula_reduced "Ca"
    OR "O4P", and the hydrate "CuSO4·5H2O" for the anhydrous "CuO4S": other materials, and
    no warning said the formula asked for was not the one filtered for."""
    plan = router.plan(request_text)
    assert plan.steps[0].arguments.get("filter") == expected
    router.execute(plan)
    assert server.requests[-1].query.get("filter") == ([expected] if expected else None)
