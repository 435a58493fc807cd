"""An OpenAPI document or MCP tool gives its fields' and parameters' other names with
``x-aliases``, as a catalog gives ``aliases``.

Trial X4 (a Korean materials team): their own document, written in Korean, had no way to say
that ``sintering_temperature`` is "소결 온도", so "소결 온도가 얼마야" resolved no field and
planning warned that nothing covers it. Found beside it: a parameter declaring
``x-semantic-id`` both on itself and on its schema made registration raise ``TypeError``
("got multiple values for keyword argument 'semantic_id'")."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest


def _document(aliases: Any = ("소결 온도", "sintering temp")) -> dict[str, Any]:
    temperature: dict[str, Any] = {
        "type": "number",
        "x-unit": "K",
        "x-semantic-id": "process.sintering_temperature",
        "x-aliases": list(aliases) if isinstance(aliases, tuple) else aliases,
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "공정 데이터", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/samples/{sample_id}/process": {
                "get": {
                    "operationId": "getProcess",
                    "summary": "시료의 공정 조건",
                    "parameters": [
                        {
                            "name": "sample_id",
                            "in": "path",
                            "required": True,
                            "x-semantic-id": "identifier.sample",
                            "x-aliases": ["시료 번호"],
                            "schema": {"type": "string", "x-semantic-id": "identifier.sample"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"sintering_temperature": temperature},
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }


def _router(document: dict[str, Any], **options: Any) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="lab", **options)
    return router


def test_x_aliases_name_a_field_and_a_parameter() -> None:
    router = _router(_document())
    route = router.snapshot().routes["lab/rest/get_process"]
    (field,) = route.endpoint.output_fields
    assert field.aliases == ("소결 온도", "sintering temp")
    (parameter,) = route.endpoint.parameters
    assert (parameter.semantic_id, parameter.aliases) == ("identifier.sample", ("시료 번호",))
    plan = router.plan(PlanRequest(query="시료 S-7의 소결 온도가 얼마야?"))
    assert plan.coverage.required == ("process.sintering_temperature",)
    assert [s.route_id for s in plan.steps] == ["lab/rest/get_process"]


def test_one_name_may_be_given_as_text() -> None:
    router = _router(_document(aliases="소결 온도"))
    (field,) = router.snapshot().routes["lab/rest/get_process"].endpoint.output_fields
    assert field.aliases == ("소결 온도",)


@pytest.mark.parametrize("odd", [[1, 2], ["", "x"], ["x" * 81], ["a"] * 21, 7])
def test_x_aliases_that_are_no_names_are_refused_or_left_off_and_said(odd: Any) -> None:
    with pytest.raises(DocumentError, match=r"x-aliases .* is no list of names"):
        _router(_document(aliases=odd), strict=True)
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    change = router.add_openapi(_document(aliases=odd), provider="lab")
    (field,) = router.snapshot().routes["lab/rest/get_process"].endpoint.output_fields
    assert field.aliases == ()
    assert any("x-aliases" in w and "left off" in w for w in change.warnings)
