"""``x-license`` on an OpenAPI response property is its field's licence, as a catalog field's
``license`` is (trial X4: a team's measured values, declared ``LicenseRef-KMDB-Internal`` in
their document, were labelled with the document's ``info.license`` CC-BY-4.0 in plans and
results, and nothing said the extension was not read). Real document, real loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest

from servers.loopback import LoopbackServer, Request, Response, json_response

INTERNAL = "LicenseRef-KMDB-Internal"


def _document(base: str, license_value: Any = INTERNAL) -> dict[str, Any]:
    leaf = {"type": "number", "x-unit": "GPa", "x-semantic-id": "mechanical.hardness"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "KMDB", "version": "1", "license": {"name": "CC-BY-4.0"}},
        "servers": [{"url": base}],
        "paths": {
            "/samples/{sample_id}/hardness": {
                "get": {
                    "operationId": "getSampleHardness",
                    "summary": "시료의 비커스 경도 측정값을 조회합니다",
                    "parameters": [
                        {
                            "name": "sample_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
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
                                            "vickers_hardness": {
                                                **leaf,
                                                "x-license": license_value,
                                            },
                                            "load": {"type": "number", "x-unit": "N"},
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


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _app(request: Request) -> Response:
    return json_response({"vickers_hardness": 15.2, "load": 9.81})


def test_a_response_propertys_x_license_is_its_fields_licence() -> None:
    with LoopbackServer(_app) as server:
        router = _router()
        router.add_openapi(_document(server.base_url), provider="kmdb")
        route = router.snapshot().routes["kmdb/rest/get_sample_hardness"]
        assert route.endpoint.field("vickers_hardness").license == INTERNAL
        assert route.endpoint.field("load").license is None  # the provider's, CC-BY-4.0

        plan = router.plan(PlanRequest(fields=("mechanical.hardness",)))
        plan = plan.with_arguments(0, {"sample_id": "S-12"})
        assert plan.steps[0].meta["vickers_hardness"]["license"] == INTERNAL
        # a plan under CC-BY-4.0 only leaves the internal values out, and says why
        only_open = router.plan(
            PlanRequest(fields=("mechanical.hardness",), licenses=("CC-BY-4.0",))
        )
        assert only_open.route_ids == ()
        assert any(INTERNAL in w for w in only_open.warnings)

        result = router.execute(plan)
        value = result.steps[0].fields["vickers_hardness"]
        assert (value.value, value.unit, value.license) == (15.2, "GPa", INTERNAL)


@pytest.mark.parametrize("odd", ["  ", "x" * 300])
def test_an_x_license_that_is_no_licence_name_is_left_off_and_said(odd: Any) -> None:
    router = _router()
    change = router.add_openapi(_document("https://kmdb.example.org", odd), provider="kmdb")
    route = router.snapshot().routes["kmdb/rest/get_sample_hardness"]
    assert route.endpoint.field("vickers_hardness").license is None
    assert any("x-license" in w and "vickers_hardness" in w for w in change.warnings)
