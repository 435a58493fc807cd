"""A warning about an identifier another route produces names the parameter, never the
matcher's word stem (trial X4: "needs 'sample_id', a sampl identifier that 1 route(s)
produce"; a note's read "a not identifier")."""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.planner import PlanRequest


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "Notes", "version": "1"},
    "servers": [{"url": "https://notes.example.org"}],
    "paths": {
        "/notes": {
            "get": {
                "operationId": "listNotes",
                "summary": "List notes",
                "responses": _json(
                    {
                        "type": "object",
                        "properties": {
                            "notes": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                },
                            }
                        },
                    }
                ),
            }
        },
        "/notes/{note_id}/stats": {
            "get": {
                "operationId": "getNoteStats",
                "summary": "Word count of a note",
                "parameters": [
                    {
                        "name": "note_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": _json(
                    {
                        "type": "object",
                        "properties": {
                            "word_count": {"type": "integer", "x-semantic-id": "text.word_count"}
                        },
                    }
                ),
            }
        },
    },
}


def test_the_producer_warning_names_the_parameter_not_a_stem() -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_openapi(DOCUMENT, provider="notes")
    plan = router.plan(PlanRequest(fields=("text.word_count",)))
    assert plan.route_ids == ("notes/rest/get_note_stats",)
    (said,) = [w for w in plan.warnings if "route(s) produce" in w]
    assert said == (
        "notes/rest/get_note_stats needs 'note_id', an identifier that 1 route(s) produce "
        "(notes/rest/list_notes), none of them ranked for this request: supply it, or call one "
        "first"
    )
