"""A change takes the value the request sets a text property to (trial Z3: "change the phone
of patient P-100 to 010-1234-5678" left the update's body missing)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_S = {"type": "string"}


def _router() -> SchemaRouter:
    ok = {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    props = {"phone": _S, "notes": _S, "email": {"type": "string", "format": "email"}}
    body = {"application/json": {"schema": {"type": "object", "properties": props}}}
    path = {"name": "patient_id", "in": "path", "required": True, "schema": _S}
    update = {
        "operationId": "update_patient",
        "summary": "Update a patient's details",
        "requestBody": {"required": True, "content": body},
        "responses": {"200": ok},
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Clinic", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {"/patients/{patient_id}": {"parameters": [path], "patch": update}},
    }
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(document, provider="clinic")
    return router


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("change the phone of patient P-100 to 010-1234-5678", {"phone": "010-1234-5678"}),
        ("change patient P-100's phone to 010-9999-0000.", {"phone": "010-9999-0000"}),
        (
            "set patient P-100's notes to 'allergic to penicillin'",
            {"notes": "allergic to penicillin"},
        ),
        (
            "change the phone of patient P-100 to 010-1 and the notes to 'vip'",
            {"phone": "010-1", "notes": "vip"},
        ),
        # no verb of setting, or one said not to do: nothing is taken
        ("send the phone of patient P-100 to Bob", None),
        ("don't change the phone of patient P-100 to 010-1", None),
        # two values named: none is guessed
        ("change the phone of patient P-100 to 010-1, not 010-2", None),
    ],
)
def test_a_change_takes_the_value_a_property_is_set_to(
    query: str, body: dict[str, Any] | None
) -> None:
    plan = _router().plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    (step,) = plan.steps
    assert step.arguments.get("body") == body
    if body is not None:
        assert step.arguments["patient_id"] == "P-100"
