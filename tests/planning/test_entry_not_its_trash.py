"""A change of an entry goes to the entry's own route, not to a part of it the request does not
name (trial 18: on Box's Content API "Delete file 1011" and "Delete folder 400" were sent as
``DELETE /files/1011/trash`` and ``DELETE /folders/400/trash``, "Permanently Delete", ranked
first, where the plain delete, which Box undoes from the trash, was second)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import WRITES
from servers.loopback import LoopbackServer, Request, Response, json_response

_FILE = [{"name": "file_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_FOLDER = [{"name": "folder_id", "in": "path", "required": True, "schema": {"type": "string"}}]
_GONE = {"204": {"description": "deleted"}}
_ENTRY = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": _ENTRY}}}}


def _delete(name: str, summary: str, description: str, ids: list[dict[str, Any]]) -> Any:
    return {
        "operationId": name,
        "summary": summary,
        "description": description,
        "parameters": ids,
        "responses": _GONE,
    }


def _document(base: str) -> dict[str, Any]:
    trash = "Moves the {} to the trash, where it can be restored."
    return {
        "openapi": "3.0.3",
        "info": {"title": "Drive", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/files/{file_id}": {
                "get": {
                    "operationId": "get_file",
                    "summary": "Get a file's info",
                    "parameters": _FILE,
                    "responses": _OK,
                },
                "delete": _delete("delete_file", "Remove a file", trash.format("file"), _FILE),
            },
            "/files/{file_id}/trash": {
                "delete": _delete(
                    "delete_trashed_file",
                    "Delete a file permanently",
                    "Delete a file: delete a file.",
                    _FILE,
                ),
            },
            "/folders/{folder_id}": {
                "delete": _delete(
                    "delete_folder", "Remove a folder", trash.format("folder"), _FOLDER
                ),
            },
            "/folders/{folder_id}/trash": {
                "delete": _delete(
                    "delete_trashed_folder",
                    "Delete a folder permanently",
                    "Delete a folder: delete a folder.",
                    _FOLDER,
                ),
            },
            "/files/{file_id}/copy": {
                "post": {
                    "operationId": "copy_file",
                    "summary": "Copy a file",
                    "parameters": _FILE,
                    "responses": _OK,
                },
            },
        },
    }


@pytest.fixture(scope="module")
def drive() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    def app(request: Request) -> Response:
        if request.method == "DELETE":
            return Response(204)
        return json_response({"id": "1", "name": "a.pdf"})

    with LoopbackServer(app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="drive")
        yield router, server


def _sent(drive: tuple[SchemaRouter, LoopbackServer], query: str) -> list[str]:
    router, server = drive
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES), max_calls=3)
    router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    return [f"{r.method} {r.path}" for r in server.requests]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("Delete file 1011", ["DELETE /files/1011"]),
        ("Delete folder 400", ["DELETE /folders/400"]),
        ("Copy file 789, then delete file 1011", ["POST /files/789/copy", "DELETE /files/1011"]),
    ],
)
def test_a_delete_goes_to_the_entry_not_its_trash(
    drive: tuple[SchemaRouter, LoopbackServer], query: str, sent: list[str]
) -> None:
    assert _sent(drive, query) == sent


def test_the_part_named_keeps_its_route(drive: tuple[SchemaRouter, LoopbackServer]) -> None:
    # "permanently" is a word of the trash route's summary the entry's route lacks
    assert _sent(drive, "Delete file 1011 permanently") == ["DELETE /files/1011/trash"]
    router, _ = drive
    plan = router.plan(PlanRequest(query="Delete file 1011", allowed_effects=WRITES))
    assert any("on its trash, which the request does not name" in w for w in plan.warnings)


def test_a_change_the_request_does_not_ask_moves_to_no_entry_route() -> None:
    # Box names its routes by their method: post_files_id restores a trashed file,
    # post_files_id_copy copies one; both "post", a verb no request asks. "Duplicate file 789"
    # was sent as POST /files/789, the restore (eighteenth security review)
    def post(name: str, summary: str, description: str) -> Any:
        return {
            "operationId": name,
            "summary": summary,
            "description": description,
            "parameters": _FILE,
            "responses": _OK,
        }

    with LoopbackServer(lambda request: json_response({"id": "1"})) as server:
        document = {
            "openapi": "3.0.3",
            "info": {"title": "Box", "version": "1"},
            "servers": [{"url": server.base_url}],
            "paths": {
                "/files/{file_id}": {
                    "post": post("post_files_id", "Restore file", "Restores a trashed file.")
                },
                "/files/{file_id}/copy": {
                    "post": post("post_files_id_copy", "Copy file", "Duplicates a file.")
                },
            },
        }
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(document, provider="box")
        for query in ("Duplicate file 789", "Make a duplicate of file 789", "Copy file 789"):
            assert _sent((router, server), query) == ["POST /files/789/copy"], query
