"""A create takes the name or title the request gives the thing it creates (trial Z3:
"register a new patient named Mina Park" and the issue's own "create a new playlist called
Road Trip" left ``name`` missing, so the create could not run)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, openapi_document, path_id

_S = {"type": "string"}


def _op(op: str, summary: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {"id": _S, "name": _S}})
    if body is not None:
        content = {"application/json": {"schema": {"type": "object", "properties": body}}}
        out["requestBody"] = {"required": True, "content": content}
    return out


_NAME = {"name": _S, "description": _S}
MUSIC = openapi_document(
    "Music",
    {
        "/playlists": {
            "get": _op("list_playlists", "List playlists"),
            "post": _op("create_playlist", "Create a playlist", _NAME),
        },
        "/playlists/{playlist_id}": {
            "parameters": path_id("playlist_id"),
            "patch": _op("update_playlist", "Update a playlist", _NAME),
        },
    },
)


def _body(query: str) -> tuple[str, dict[str, Any]]:
    plan = hashing_router(MUSIC, "music").plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect))
    )
    step = plan.steps[0]
    return step.route_id.rsplit("/", 1)[-1], dict(step.arguments.get("body", {}))


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("create a new playlist called Road Trip", "Road Trip"),
        ("Create a playlist named 'road trip 2'", "road trip 2"),
        ('create a playlist called "Road Trip" for the summer', "Road Trip"),
        ("'Road Trip'이라는 이름의 플레이리스트 만들어 줘", "Road Trip"),
        # a lower-case word unquoted is no name given: left for the caller
        ("create a playlist called chill", None),
    ],
)
def test_a_create_takes_the_name_the_request_gives(query: str, name: str | None) -> None:
    route, body = _body(query)
    assert route == "create_playlist"
    assert body.get("name") == name


def test_an_update_takes_no_name_from_the_words_that_describe_its_entry() -> None:
    """ "rename the playlist called Road Trip to Summer" describes the entry by its old name:
    the update's new name is Summer (filter_words.target_value), never Road Trip."""
    route, body = _body("rename the playlist called Road Trip to Summer")
    assert route == "update_playlist"
    assert body.get("name") == "Summer"
