"""Writes and their answers on a real loopback server (trial J, findings 2 and 3).

A create without the server-assigned ``readOnly`` id is sent, its answer without the
``writeOnly`` password validates, a PUT answered with a documented 204 succeeds, and an output
problem after a write says that the write ran (the server's status) rather than inviting the
caller to send it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import InvocationError, OutputValidationError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

USER = {
    "type": "object",
    "required": ["id", "name", "password"],
    "properties": {
        "id": {"type": "integer", "readOnly": True},
        "name": {"type": "string"},
        "password": {"type": "string", "writeOnly": True},
    },
}
WRITE = {"allow_effects": ["write"], "approve": lambda route, args: True}
CREATE = "users/rest/create_user"
PUT = "users/rest/put_user"
GET = "users/rest/get_user"


class UsersApp:
    """Answers what ``answers`` holds for (method, path); records nothing itself (the
    loopback server does)."""

    def __init__(self) -> None:
        self.answers: dict[tuple[str, str], Response] = {}

    def __call__(self, request: Request) -> Response:
        return self.answers.get((request.method, request.path), Response(404))


@pytest.fixture(scope="module")
def users() -> Iterator[LoopbackServer]:
    with LoopbackServer(UsersApp()) as server:
        yield server


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _router(server: LoopbackServer) -> SchemaRouter:
    server.reset()
    user = {"$ref": "#/components/schemas/User"}
    item = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Users", "version": "1"},
        "servers": [{"url": server.base_url}],
        "components": {"schemas": {"User": USER}},
        "paths": {
            "/users": {
                "post": {
                    "operationId": "createUser",
                    "requestBody": {"required": True, **_json(user)},
                    "responses": {"201": {"description": "created", **_json(user)}},
                }
            },
            "/users/{id}": {
                "get": {
                    "operationId": "getUser",
                    "parameters": [item],
                    "responses": {"200": {"description": "", **_json(user)}},
                },
                "put": {
                    "operationId": "putUser",
                    "parameters": [item],
                    "requestBody": {"required": True, **_json(user)},
                    "responses": {
                        "200": {"description": "changed", **_json(user)},
                        "204": {"description": "nothing to return"},
                    },
                },
            },
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="users")
    return router


def _answer(server: LoopbackServer, method: str, path: str, response: Response) -> None:
    app = server.app
    assert isinstance(app, UsersApp)
    app.answers[(method, path)] = response


def test_a_create_without_its_read_only_id_is_sent_and_its_answer_validates(
    users: LoopbackServer,
) -> None:
    router = _router(users)
    # the server assigns the id and, as the document says, never returns the password
    _answer(users, "POST", "/users", json_response({"id": 7, "name": "ann"}, status=201))
    result = router.call(CREATE, {"body": {"name": "ann", "password": "pw"}}, **WRITE)
    assert result.ok and result.output == {"id": 7, "name": "ann"}
    assert [json.loads(r.body) for r in users.requests] == [{"name": "ann", "password": "pw"}]
    route = router.snapshot().route(CREATE)
    assert "id" not in route.endpoint.input_schema["properties"]["body"]["properties"]


def test_a_put_answered_with_its_documented_204_succeeds(users: LoopbackServer) -> None:
    router = _router(users)
    _answer(users, "PUT", "/users/1", Response(204, b"", {"Content-Type": "application/json"}))
    result = router.call(PUT, {"id": 1, "body": {"name": "bo", "password": "pw"}}, **WRITE)
    assert result.ok and result.output is None
    _answer(users, "PUT", "/users/1", json_response({"id": 1, "name": "bo"}))
    result = router.call(PUT, {"id": 1, "body": {"name": "bo", "password": "pw"}}, **WRITE)
    assert result.ok and result.output == {"id": 1, "name": "bo"}
    assert [r.method for r in users.requests] == ["PUT", "PUT"]


def test_an_output_problem_after_a_write_says_the_write_ran(users: LoopbackServer) -> None:
    router = _router(users)
    _answer(users, "POST", "/users", json_response({"id": "seven", "name": "ann"}, status=201))
    with pytest.raises(OutputValidationError) as caught:
        router.call(CREATE, {"body": {"name": "ann", "password": "pw"}}, **WRITE)
    hint = caught.value.hint or ""
    assert hint.startswith("The server answered 201: the write was performed. Do not repeat")
    assert "Pass partial=True" not in hint  # no invitation to send the write again
    assert len(users.requests) == 1
    # a read keeps its plain hint: calling it again changes nothing
    _answer(users, "GET", "/users/1", json_response({"id": "one", "name": "ann"}))
    with pytest.raises(OutputValidationError) as caught:
        router.call(GET, {"id": 1})
    assert caught.value.hint == "Pass partial=True to keep what validates"


def test_a_write_answered_with_a_body_that_is_not_json_says_the_write_ran(
    users: LoopbackServer,
) -> None:
    router = _router(users)
    html = Response(201, b"<html>created</html>", {"Content-Type": "text/html"})
    _answer(users, "POST", "/users", html)
    with pytest.raises(InvocationError, match="not valid JSON") as caught:
        router.call(CREATE, {"body": {"name": "ann", "password": "pw"}}, **WRITE)
    hint = caught.value.hint or ""
    assert hint.startswith("The server answered 201: the write was performed. Do not repeat")
    assert "not JSON" in hint and len(users.requests) == 1
    # a read keeps its plain hint
    _answer(
        users, "GET", "/users/1", Response(200, b"<html></html>", {"Content-Type": "text/html"})
    )
    with pytest.raises(InvocationError, match="not valid JSON") as caught:
        router.call(GET, {"id": 1})
    assert caught.value.hint == "The executor reads JSON responses only"


def test_writes_answered_with_success_but_not_json_do_not_cool_the_route_down(
    users: LoopbackServer,
) -> None:
    """Three POSTs answered 201 text/plain counted as three failures: the route went into
    cooldown ("3 failed attempts in a row (HTTP 201)") and the fourth was refused."""
    router = _router(users)
    _answer(users, "POST", "/users", Response(201, b"Created", {"Content-Type": "text/plain"}))
    for _ in range(4):
        with pytest.raises(InvocationError, match="not valid JSON"):
            router.call(CREATE, {"body": {"name": "ann", "password": "pw"}}, **WRITE)
    assert router.is_healthy(CREATE) and len(users.requests) == 4
