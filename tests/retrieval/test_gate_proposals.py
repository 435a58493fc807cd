"""A model's proposals gated by ``validate_selection`` against one OpenAPI document served on
loopback (user trial V2): what the gate accepts is what execution sends, and a proposal never
makes the gate raise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.retrieval.gate import validate_selection
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

DOC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop API", "version": "1.0"},
    "paths": {
        "/users/{user_id}": {
            "get": {
                "operationId": "getUser",
                "parameters": [
                    {
                        "name": "user_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {"name": "X-Tenant", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        },
                    }
                },
            }
        },
        "/users": {
            "post": {
                "operationId": "createUser",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "email": {"type": "string", "format": "email"},
                                    "since": {"type": "string", "format": "date-time"},
                                    "profile": {"type": "object"},
                                },
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "made"}},
            }
        },
    },
}


def _app(request: Request) -> Response:
    return json_response({"id": "u-1"}, 201 if request.method == "POST" else 200)


@pytest.fixture
def served() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(_app) as running:
        router = SchemaRouter()
        router.add_openapi(DOC, provider="shop", base_url=running.base_url)
        yield router, running


def _nested(depth: int) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


@pytest.mark.parametrize("place", ["route_id", "fingerprint", "fields", "argument", "proposal"])
def test_a_proposal_nested_past_repr_is_rejected_not_raised(
    served: tuple[SchemaRouter, LoopbackServer], place: str
) -> None:
    """A value nested 100,000 deep anywhere in a proposal made the gate's report of it
    (``repr``) raise RecursionError, where ``validate_selection`` never raises."""
    router, running = served
    deep = _nested(100_000)
    proposal: dict[str, Any] = {"route_id": "shop/rest/get_user", "arguments": {"user_id": "u-1"}}
    if place == "argument":
        proposal["arguments"] = {"user_id": "u-1", "X-Tenant": deep}
    elif place != "proposal":
        proposal[place] = [deep] if place == "fields" else deep
    report = validate_selection(router.snapshot(), deep if place == "proposal" else [proposal])
    assert report.rejected
    assert all(len(r.value) <= 80 for r in report.rejected)
    for selection in report.accepted:  # what was kept runs as a call
        router.call(selection.route_id, selection.arguments)
    assert all(r.path in ("/users/u-1",) for r in running.requests)
