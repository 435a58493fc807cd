"""GitHub's issue routes as a user registers them, served on loopback: the update tests'
API (importable: pytest puts tests/ on sys.path)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from helpers import ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
ISSUE = {"type": "object", "properties": {"number": {"type": "integer"}, "title": _S}}
#: What ``PATCH /repos/{owner}/{repo}/issues/{issue_number}`` may change: its optional body.
CHANGES = {
    "type": "object",
    "properties": {
        "title": _S,
        "body": _S,
        "state": {"type": "string", "enum": ["open", "closed"]},
    },
}
ADDRESS = [
    *path_id("owner"),
    *path_id("repo"),
    {"name": "issue_number", "in": "path", "required": True, "schema": {"type": "integer"}},
]
#: The update's route id where the document is registered as provider ``gh``.
UPDATE = "gh/rest/issues_update"


def issues_document(base_url: str, *, notify: bool = False) -> dict[str, Any]:
    """List, get and update (optional JSON body :data:`CHANGES`) of a repository's issues at
    ``base_url``; ``notify``: the update takes a boolean ``?notify`` flag too."""
    flag = [{"name": "notify", "in": "query", "schema": {"type": "boolean"}}] if notify else []
    update = {
        "operationId": "issues/update",
        "summary": "Update an issue",
        "parameters": [*ADDRESS, *flag],
        "requestBody": {"required": False, "content": {"application/json": {"schema": CHANGES}}},
        "responses": ok(ISSUE),
    }
    listed = {
        "operationId": "issues/list-for-repo",
        "summary": "List repository issues",
        "parameters": [*path_id("owner"), *path_id("repo")],
        "responses": ok({"type": "array", "items": ISSUE}),
    }
    get = {"operationId": "issues/get", "summary": "Get an issue", "parameters": ADDRESS}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Issues", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/repos/{owner}/{repo}/issues": {"get": listed},
            "/repos/{owner}/{repo}/issues/{issue_number}": {
                "get": {**get, "responses": ok(ISSUE)},
                "patch": update,
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"number": 5, "title": "Crash"})


@contextmanager
def serving_issues(*, notify: bool = False) -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    """:func:`issues_document` on a loopback server that answers issue 5 to every request
    (and records them), registered as ``gh`` on the hashing encoder."""
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(issues_document(server.base_url, notify=notify), provider="gh")
        yield router, server
