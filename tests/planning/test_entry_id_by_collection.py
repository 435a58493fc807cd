"""An id the request writes after the collection a path parameter sits in binds to it:
"structure kop-3" fills ``entry_id`` of ``/structures/{entry_id}`` (trial T3: "structure
koptimade-42" bound nothing, so a one-call plan listed every structure unfiltered and a
two-call plan left ``entry_id`` open and failed with SR601)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Route
from schemarouter.retrieval.analysis import bind_parameters, find_values

from helpers import openapi_document
from servers.loopback import LoopbackServer, Request, Response, json_response

META = {"api_version": "1.2.0", "provider": {"name": "KOptimade", "prefix": "kop"}}
GET = "koptimade/optimade/get_structure"


def _app(request: Request) -> Response:
    if request.path == "/v1/info":
        attributes = {"api_version": "1.2.0", "available_licenses": ["CC-BY-4.0"]}
        return json_response({"data": {"type": "info", "id": "/", "attributes": attributes}})
    if request.path == "/v1/info/structures":
        properties = {
            "id": {"type": "string", "description": "Entry id."},
            "lattice_vectors": {"type": "list", "description": "Lattice vectors, in Å."},
            "chemical_formula_reduced": {"type": "string", "description": "Reduced formula."},
        }
        return json_response({"data": {"properties": properties}, "meta": META})
    if request.path.startswith("/v1/structures/"):
        entry = request.path.rsplit("/", 1)[1]
        attributes = {"lattice_vectors": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}
        data = {"id": entry, "type": "structures", "attributes": attributes}
        return json_response({"data": data, "meta": META})
    return json_response({"data": [], "meta": META})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def test_an_entry_id_after_its_collection_binds_and_is_sent(server: LoopbackServer) -> None:
    router = SchemaRouter(abstention=None, embedding_cache=None)
    router.add_optimade(f"{server.base_url}/v1", provider="koptimade")
    server.reset()
    query = "lattice vectors of structure kop-3"
    found = router.retrieve(query, k=5)
    assert found[GET].bound_parameters == {"entry_id": "kop-3"}
    plan = router.plan(query)
    ((route_id, arguments),) = [(s.route_id, dict(s.arguments)) for s in plan.steps]
    assert (route_id, arguments) == (GET, {"entry_id": "kop-3"})
    (step,) = router.execute(plan).steps
    assert step.status == "ok" and step.arguments["entry_id"] == "kop-3", step
    assert step.fields["lattice_vectors"].value == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert [r.path for r in server.requests] == ["/v1/structures/kop-3"]


def _route(path: str, parameter: str) -> Route:
    ok = {"200": {"description": "ok"}}
    operation = {
        "operationId": "getThing",
        "parameters": [
            {"name": parameter, "in": "path", "required": True, "schema": {"type": "string"}}
        ],
        "responses": ok,
    }
    document = openapi_document("Shop", {path: {"get": operation}})
    (route,) = openapi_registration(document, provider="shop").routes
    return route


@pytest.mark.parametrize(
    ("path", "parameter", "query", "expected"),
    [
        ("/warehouses/{code}", "code", "stock in warehouse W-7", {"code": "W-7"}),
        ("/invoices/{number}", "number", "download invoice A17", {"number": "A17"}),
        # the id of another thing than the collection's binds nothing
        ("/invoices/{number}", "number", "download order ORD-9", {}),
    ],
)
def test_the_collection_names_the_thing_of_its_path_parameter(
    path: str, parameter: str, query: str, expected: dict[str, str]
) -> None:
    route = _route(path, parameter)
    assert bind_parameters(route, find_values(query)) == expected
