"""A body property named like a schema keyword ("maximum", "pattern") stays a property when a
refused value is looked for (planning/out_of_schema): lifting the bounds dropped every key
named so from the body's ``properties``, so "create an alarm named 'tank low' with maximum
150" (``maximum`` at most 100) was planned with the name alone, the refused maximum said by
no warning but the unused number's."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES, ok, openapi_document

_BODY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "maximum": {"type": "integer", "maximum": 100},
        "pattern": {"type": "string", "maxLength": 8},
    },
}
PATHS: dict[str, Any] = {
    "/alarms": {
        "post": {
            "operationId": "create_alarm",
            "summary": "Create an alarm on the tank's level",
            "requestBody": {"content": {"application/json": {"schema": _BODY}}},
            "responses": ok({"type": "object", "properties": {"id": {"type": "string"}}}),
        }
    }
}


@pytest.mark.parametrize(
    ("query", "held"),
    [
        ("create an alarm named 'tank low' with maximum 150", "body.maximum"),
        ("create an alarm named 'tank low' with maximum 90", None),
    ],
)
def test_a_property_named_like_a_keyword_is_held_when_refused(query: str, held: str) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(openapi_document("Tank", PATHS), provider="tank")
    (step,) = router.plan(PlanRequest(query=query, allowed_effects=WRITES)).steps
    if held is None:
        assert step.arguments == {"body": {"name": "tank low", "maximum": 90}}
    else:
        assert held in step.missing_parameters, (step.arguments, step.missing_parameters)
