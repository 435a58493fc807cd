"""A candidate's schemas are copies: changing them changes no route (trial X1).

A registry restored from an index folder holds one dict for each schema its provider repeats
(``{"type": "string"}``, each route's ``ticket_id``). A candidate handed the route's dicts, a
level down from its shallow copies, so an agent that changed one candidate's schema (made it
strict, added a pattern) changed every route's equal schema, and the registry fingerprint did
not change: here ``reopen_ticket`` could no longer take "T-7" after ``close_ticket``'s
candidate was edited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from tests.helpers import ok, path_id

_TICKET = {"type": "object", "properties": {"id": {"type": "string"}}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        f"/tickets/{{ticket_id}}/{verb}": {
            "post": {
                "operationId": f"{verb}_ticket",
                "summary": f"{verb.capitalize()} a helpdesk ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            }
        }
        for verb in ("close", "reopen")
    },
}


def _router(**options: Any) -> Any:
    return dict(encoder=HashingEncoder(), embedding_cache=None, abstention=None, **options)


def test_changing_a_candidates_schema_changes_no_route_of_a_restored_registry(
    tmp_path: Path,
) -> None:
    built = SchemaRouter(**_router())
    built.add_openapi(DOCUMENT, provider="helpdesk")
    built.build_index()
    built.index.save(tmp_path / "index")
    router = SchemaRouter.from_index(tmp_path / "index", **_router())
    before = router.snapshot().fingerprint
    routes = router.snapshot().routes
    assert (  # the restore shares them, as the module docstring says
        routes["helpdesk/rest/close_ticket"].endpoint.parameters[0].json_schema
        is routes["helpdesk/rest/reopen_ticket"].endpoint.parameters[0].json_schema
    )
    found = router.retrieve("close a helpdesk ticket", k=2).candidates
    close = next(c for c in found if c.route_id.endswith("close_ticket"))
    close.input_schema["properties"]["ticket_id"]["pattern"] = "^X$"
    close.parameters[0].json_schema["enum"] = ["X"]
    close.output_fields[0].json_schema["type"] = "integer"
    for route in router.snapshot():
        assert route.endpoint.parameters[0].json_schema == {"type": "string"}
        assert route.endpoint.output_fields[0].json_schema == {"type": "string"}
    assert router.snapshot().fingerprint == before
    plan = router.plan(PlanRequest(query="Reopen ticket T-7", allowed_effects=("read", "write")))
    assert dict(plan.steps[0].arguments) == {"ticket_id": "T-7"}
