"""A change whose id the request leaves open stays the change planned (trial Y1).

"Delete customers C-1, C-2" on Square's API, writes allowed, planned ``GET /v2/customers``:
the delete's ``customer_id`` is rightly left open for a list of ids, and the list of the same
entries then stood in for it, as it does for a lookup nothing names; "delete structure kop-1
or structure kop-2" planned ``GET /structures/kop-1``. A read in place of the change asked
for "succeeds" without the change; the change is planned with its id missing instead."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

_ID = [{"name": "entry_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_ENTRY = {"type": "object", "properties": {"id": {"type": "string"}}}
_PAGE = {"type": "object", "properties": {"items": {"type": "array", "items": _ENTRY}}}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Structure store", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/structures": {
            "get": {
                "operationId": "list_structures",
                "summary": "List the stored crystal structures",
                "responses": _ok(_PAGE),
            }
        },
        "/structures/{entry_id}": {
            "get": {
                "operationId": "get_structure",
                "summary": "Read a stored crystal structure",
                "parameters": _ID,
                "responses": _ok(_ENTRY),
            },
            "delete": {
                "operationId": "delete_structure",
                "summary": "Delete a stored crystal structure",
                "parameters": _ID,
                "responses": _ok(_ENTRY),
            },
        },
    },
}
WRITES = ("read", "write", "destructive")


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="st")
    return router


@pytest.mark.parametrize(
    "request_text",
    [
        "delete structures kop-1, kop-2",
        "delete structure kop-1 or structure kop-2",
        "delete a stored crystal structure",
    ],
)
def test_a_change_with_its_id_open_is_planned_with_it_missing(
    router: SchemaRouter, request_text: str
) -> None:
    plan = router.plan(PlanRequest(query=request_text, allowed_effects=WRITES))
    assert plan.route_ids == ("st/rest/delete_structure",)
    assert plan.missing_arguments == {"st/rest/delete_structure": ("entry_id",)}


def test_a_lookup_with_its_id_open_still_gives_way_to_the_list(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="read a stored crystal structure"))
    assert plan.route_ids == ("st/rest/list_structures",)
    assert [w for w in plan.warnings if "in place of the better-ranked st/rest/get_structure" in w]


def test_a_change_whose_id_is_given_takes_it(router: SchemaRouter) -> None:
    plan = router.plan(PlanRequest(query="delete structure kop-1", allowed_effects=WRITES))
    assert plan.route_ids == ("st/rest/delete_structure",)
    assert plan.steps[0].arguments == {"entry_id": "kop-1"}
