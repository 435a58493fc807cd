"""A JSON request body's property takes its meaning from ``x-semantic-id``, as a parameter's
does: a value of that kind the request writes binds into it (last stop's low: the id was read
on parameters, form fields and response leaves, never on JSON body properties, so a DOI the
request named for a body's ``source`` was left out and warned of)."""

from __future__ import annotations

import json
from typing import Any

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

PROPERTIES = {
    "composition": {"type": "string", "x-semantic-id": "chemical.formula"},
    "source": {"type": "string", "x-semantic-id": "identifier.doi"},
    "label": {"type": "string"},
    "odd": {"type": "string", "x-semantic-id": "Not An Id"},
}


def _document(base: str) -> dict[str, Any]:
    body = {"type": "object", "required": ["label"], "properties": PROPERTIES}
    operation = {
        "operationId": "createSample",
        "summary": "Register a new sample of a material",
        "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
        "responses": {"201": {"description": "created"}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "lab", "version": "1"},
        "servers": [{"url": base}],
        "paths": {"/samples": {"post": operation}},
    }


def test_a_body_property_binds_the_kind_its_x_semantic_id_names() -> None:
    seen: list[Request] = []

    def app(request: Request) -> Response:
        seen.append(request)
        return json_response({"id": "S-1"}, status=201)

    with LoopbackServer(app) as lab:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(lab.base_url), provider="lab")
        writes = frozenset({Effect.READ, Effect.WRITE})
        query = "register a new sample of Fe2O3 from 10.1000/xyz123, label 'batch 7'"
        plan = router.plan(PlanRequest(query=query, allowed_effects=writes))
        (step,) = plan.steps
        assert step.arguments["body"] == {
            "composition": "Fe2O3",
            "source": "10.1000/xyz123",
            "label": "batch 7",
        }
        assert not any("which no step takes" in w for w in plan.warnings), plan.warnings
        router.execute(plan, allow_effects=["read", "write"], approve=lambda r, a: True)
    sent = json.loads(seen[0].body)
    assert sent == {"composition": "Fe2O3", "source": "10.1000/xyz123", "label": "batch 7"}
