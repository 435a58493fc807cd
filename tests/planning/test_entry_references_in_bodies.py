"""The entry a change's body refers to takes the id the request names for it (trial 18, Box's
Content API: ``POST /tasks {"item": {"type": "file", "id": ...}}``).

"Create a review task on file 789 ..." sent ``POST /tasks`` without the file, the warnings
saying the request names file id '789', which no step takes; "Copy file 123 into folder 300"
left the copy's body (``{"parent": {"id": ...}}``) missing. A reference whose description
names another kind ("The folder that contains this one") takes no id of a file, and a create
holding nothing but a reference is still not sent."""

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

_KIND = {"type": "string", "enum": ["file", "folder", "user", "task", "comment", "lock"]}


def _reference(description: str | None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "type": _KIND},
    }
    return {**schema, "description": description} if description else schema


_ITEM = _reference("It references either a file or a folder")
_BARE = {"type": "object", "properties": {"id": {"type": "string"}}}
_USER = {"type": "object", "properties": {"id": {"type": "string"}, "type": {"enum": ["user"]}}}


def _body(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _path(*names: str) -> list[dict[str, Any]]:
    schema = {"type": "string"}
    return [{"name": n, "in": "path", "required": True, "schema": schema} for n in names]


_OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}


def _operation(name: str, summary: str, body: dict[str, Any], *path: str) -> Any:
    out = {"operationId": name, "summary": summary, "requestBody": body, "responses": _OK}
    return {**out, "parameters": _path(*path)} if path else out


def _document(base: str) -> dict[str, Any]:
    message = {"type": "string", "description": "The text of the message"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Drive", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/tasks": {
                "post": _operation(
                    "create_task",
                    "Create a review task on a file",
                    _body({"item": _ITEM, "message": message, "created_by": _USER}),
                )
            },
            "/comments": {
                "post": _operation(
                    "create_comment",
                    "Add a comment to a file",
                    _body({"item": _ITEM, "message": message, "created_by": _USER}),
                )
            },
            "/files/{file_id}/copy": {
                "post": _operation(
                    "copy_file",
                    "Copy a file into a folder",
                    _body({"name": {"type": "string"}, "parent": _BARE}),
                    "file_id",
                )
            },
            "/users/{user_id}/folders/{folder_id}": {
                "put": _operation(
                    "update_user_folder",
                    "Move a file or folder of a user to another folder",
                    _body({"parent": _reference("The folder that contains this one")}),
                    "user_id",
                    "folder_id",
                )
            },
        },
    }


@pytest.fixture(scope="module")
def drive() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    def app(request: Request) -> Response:
        return json_response({"id": "5001"})

    with LoopbackServer(app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="drive")
        yield router, server


def _run(drive: tuple[SchemaRouter, LoopbackServer], query: str) -> list[tuple[str, str, Any]]:
    router, server = drive
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    return [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]


def test_a_task_on_a_named_file_refers_to_it(drive: tuple[SchemaRouter, LoopbackServer]) -> None:
    query = "Create a review task on file 789 with the message 'Check the indemnity clause'"
    assert _run(drive, query) == [
        (
            "POST",
            "/tasks",
            {"item": {"id": "789", "type": "file"}, "message": "Check the indemnity clause"},
        )
    ]


def test_a_copy_goes_into_the_folder_named(drive: tuple[SchemaRouter, LoopbackServer]) -> None:
    assert _run(drive, "Copy file 123 into folder 300") == [
        ("POST", "/files/123/copy", {"parent": {"id": "300"}})
    ]


def test_a_reference_takes_no_id_of_another_kind(
    drive: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, _ = drive
    query = "Move file 456 of user 7 to folder 400"
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == ("drive/rest/update_user_folder",)
    body = plan.steps[0].arguments.get("body") or {}
    assert "456" not in json.dumps(body)


def test_a_create_of_nothing_but_its_reference_is_not_sent(
    drive: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, server = drive
    server.requests.clear()
    plan = router.plan(PlanRequest(query="Add a comment to file 456", allowed_effects=WRITES))
    assert plan.route_ids == ("drive/rest/create_comment",)
    with pytest.raises(ParameterValidationError):
        router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    assert server.requests == []


@pytest.mark.parametrize(
    "query",
    [
        "Copy file 123 from folder 200",
        "Copy file 123 out of folder 200",
        "Copy file 123 that is in folder 200",
    ],
)
def test_where_an_entry_is_or_comes_from_is_no_reference(
    drive: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    # each copied file 123 into folder 200, where it already is (eighteenth security review)
    router, server = drive
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == ("drive/rest/copy_file",)
    with pytest.raises(ParameterValidationError):
        router.execute(plan, allow_effects=WRITES, approve=lambda route, arguments: True)
    assert server.requests == []
    assert _run(drive, "Copy file 123 to folder 300") == [
        ("POST", "/files/123/copy", {"parent": {"id": "300"}})
    ]
