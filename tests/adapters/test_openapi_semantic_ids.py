"""``x-semantic-id`` on an OpenAPI response leaf or parameter (and an MCP tool's input or
output property) is its semantic id, as a catalog's ``semantic_id`` is: the routes of a
user's own OpenAPI documents take part in field-first planning, fallbacks and binding by
meaning (trial T3: fields registered from an OpenAPI document carried none, so a team's two
services never stood in for each other). Real documents, real loopback servers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest

from servers.loopback import LoopbackServer, Request, Response, json_response


def _document(title: str, prefix: str, base: str, semantic: str = "materials.band_gap") -> Any:
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            f"/{prefix}/{{material_id}}/band-gap": {
                "get": {
                    "operationId": "getBandGap",
                    "summary": f"Band gap of a material ({title})",
                    "parameters": [
                        {
                            "name": "material_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                            "x-semantic-id": "identifier.material_id",
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "band_gap": {
                                                "type": "number",
                                                "x-unit": "eV",
                                                "x-semantic-id": semantic,
                                            }
                                        },
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }


#: The path prefix the server answers 503 on (the route the plan chose).
DOWN: set[str] = set()


def _app(request: Request) -> Response:
    if request.path.split("/")[1] in DOWN:
        return json_response({"detail": "down for maintenance"}, status=503)
    return json_response({"band_gap": 1.12})


@pytest.fixture
def stack() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(_document("Primary DFT", "primary", server.base_url), provider="dft")
        router.add_openapi(_document("DFT Mirror", "mirror", server.base_url), provider="mirror")
        yield router, server


def test_openapi_fields_and_parameters_carry_their_semantic_ids(
    stack: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, server = stack
    route = router.snapshot().routes["dft/rest/get_band_gap"]
    assert route.endpoint.field("band_gap").semantic_id == "materials.band_gap"
    assert route.endpoint.parameter("material_id").semantic_id == "identifier.material_id"
    offered = {o.route_id for o in router.snapshot().providers_of("materials.band_gap")}
    assert offered == {"dft/rest/get_band_gap", "mirror/rest/get_band_gap"}

    # field-first: the plan asks for the meaning; the id binds by its parameter's meaning
    plan = router.plan(PlanRequest(fields=("materials.band_gap",)))
    plan = plan.with_arguments(0, {"material_id": "si-1"})
    (step,) = plan.steps
    (other,) = offered - {step.route_id}
    assert [f.route_id for f in step.fallbacks] == [other]
    first, second = (
        router.snapshot().routes[r].endpoint.operation.path for r in (step.route_id, other)
    )
    DOWN.clear()
    DOWN.add(first.split("/")[1])
    result = router.execute(plan, policy=ExecutionPolicy(max_attempts=1))
    value = result.steps[0].fields["band_gap"]
    assert (value.value, value.unit, value.route_id) == (1.12, "eV", other)
    assert [r.path for r in server.requests] == [
        p.replace("{material_id}", "si-1") for p in (first, second)
    ]


def test_an_x_semantic_id_that_is_none_is_left_off_and_said_or_refused_when_strict() -> None:
    document = _document("Odd", "odd", "https://odd.example.org", semantic="Band Gap (eV)")
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_openapi(document, provider="odd")
    assert any("x-semantic-id 'Band Gap (eV)' is no semantic id" in w for w in change.warnings)
    route = router.snapshot().routes["odd/rest/get_band_gap"]
    assert route.endpoint.field("band_gap").semantic_id is None
    strict = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    with pytest.raises(DocumentError, match="x-semantic-id 'Band Gap"):
        strict.add_openapi(document, provider="odd", strict=True)
    assert strict.snapshot().routes == {}


@pytest.mark.parametrize("odd", [["a.b"], 7, None, True, "", {"id": "a.b"}])
def test_a_parameters_own_x_semantic_id_that_is_no_text_is_said_and_hides_nothing(
    odd: Any,
) -> None:
    """Trial U1 (low): a parameter object's non-string ``x-semantic-id`` (a list, a number,
    null, true, "") silently hid the valid one of its schema: semantic id None, no note."""
    document = _document("Odd", "odd", "https://odd.example.org")
    (parameter,) = document["paths"]["/odd/{material_id}/band-gap"]["get"]["parameters"]
    parameter["schema"]["x-semantic-id"] = parameter.pop("x-semantic-id")
    parameter["x-semantic-id"] = odd
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_openapi(document, provider="odd")
    route = router.snapshot().routes["odd/rest/get_band_gap"]
    assert route.endpoint.parameter("material_id").semantic_id == "identifier.material_id"
    assert any(
        "x-semantic-id" in w and "is no semantic id" in w and "left off" in w
        for w in change.warnings
    ), change.warnings


def test_an_mcp_tools_properties_carry_their_semantic_ids() -> None:
    from schemarouter.adapters.mcp import mcp_tools_registration

    def tool(semantic: str) -> dict[str, Any]:
        number = {"type": "number", "x-unit": "eV", "x-semantic-id": "materials.band_gap"}
        return {
            "name": "band_gap",
            "description": "Band gap of a material.",
            "inputSchema": {
                "type": "object",
                "properties": {"material_id": {"type": "string", "x-semantic-id": semantic}},
                "required": ["material_id"],
            },
            "outputSchema": {"type": "object", "properties": {"band_gap": number}},
        }

    registration = mcp_tools_registration([tool("identifier.material_id")], provider="lab")
    (route,) = registration.routes
    assert route.endpoint.parameter("material_id").semantic_id == "identifier.material_id"
    assert route.endpoint.field("band_gap").semantic_id == "materials.band_gap"
    # an untrusted server's listing is read strictly, as its x-unit is
    with pytest.raises(DocumentError, match="x-semantic-id 'Material ID' is no semantic id"):
        mcp_tools_registration([tool("Material ID")], provider="lab")
