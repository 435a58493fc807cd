"""A word that names an entry fills no enum (trial 18, Box's Content API: every body takes a
``type`` whose enum lists each kind of entry, ``file``, ``folder``, ``task`` ...).

"Create a shared link for file 123 that expires 2027-01-31" sent ``PUT /files/123`` with
``{"type": "file"}`` alone, an update of nothing the server answered as done, and "Make the
folder name for client Acme Corp" sent ``POST /folders`` with ``{"type": "folder"}``: the
"file" of "file 123" and a create_folder's own "folder" were read as the value of ``type``.
Both bodies now stay missing, and nothing is sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from helpers import WRITES
from servers.loopback import LoopbackServer, Request, Response, json_response

_KIND = {"type": "string", "enum": ["file", "folder", "task", "comment", "user"]}
_ENTRY = {
    "type": "object",
    "properties": {
        "type": _KIND,
        "id": {"type": "string"},
        "name": {"type": "string", "description": "The name of the entry."},
        "role": {"type": "string", "enum": ["editor", "viewer"]},
    },
}
_BODY = {"required": True, "content": {"application/json": {"schema": _ENTRY}}}
_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": _ENTRY}}}}
_FILE = [{"name": "file_id", "in": "path", "required": True, "schema": {"type": "string"}}]


def _document(base: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Drive", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/files/{file_id}": {
                "put": {
                    "operationId": "update_file_info",
                    "summary": "Update a file's info, rename it or create a shared link",
                    "parameters": _FILE,
                    "requestBody": _BODY,
                    "responses": _OK,
                }
            },
            "/folders": {
                "post": {
                    "operationId": "create_folder",
                    "summary": "Create a folder",
                    "requestBody": _BODY,
                    "responses": _OK,
                }
            },
        },
    }


@pytest.fixture(scope="module")
def drive() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    def app(request: Request) -> Response:
        return json_response({"id": "1", "type": "file"})

    with LoopbackServer(app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="drive")
        yield router, server


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("Create a shared link for file 123 that expires 2027-01-31", "update_file_info"),
        ("Make the folder name for client Acme Corp", "create_folder"),
    ],
)
def test_a_body_of_nothing_but_an_entry_word_is_not_sent(
    drive: tuple[SchemaRouter, LoopbackServer], query: str, route: str
) -> None:
    router, server = drive
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == (f"drive/rest/{route}",)
    assert "body" in plan.missing_arguments[f"drive/rest/{route}"]
    with pytest.raises(ParameterValidationError):
        router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    assert server.requests == []


def test_a_rename_sends_the_name_alone(drive: tuple[SchemaRouter, LoopbackServer]) -> None:
    router, server = drive
    server.requests.clear()
    query = "Rename file 123 to 'SPA Final.docx'"
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    (sent,) = server.requests
    assert (sent.method, sent.path) == ("PUT", "/files/123")
    assert json.loads(sent.body) == {"name": "SPA Final.docx"}


def test_an_enum_value_written_as_a_value_still_fills(
    drive: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, _ = drive
    plan = router.plan(
        PlanRequest(query="Rename file 123 to 'Memo', role viewer", allowed_effects=WRITES)
    )
    assert plan.steps[0].arguments["body"] == {"name": "Memo", "role": "viewer"}
