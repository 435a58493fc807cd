"""A change is bound to the id of what a planned create makes only where the request writes
the create first (the ninth security review): "Delete the playlist called Old Mix, then
create a new playlist" planned the create first and bound the deletion to the new playlist's
id, so running the plan created a playlist and deleted it, and Old Mix stayed."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import ok, openapi_document, playlist_paths

_S = {"type": "string"}
_PLAYLIST = {"type": "object", "properties": {"name": _S}}


def _op(op: str, summary: str, body: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {"id": _S, "name": _S}})
    if body:
        content = {"application/json": {"schema": _PLAYLIST}}
        out["requestBody"] = {"required": True, "content": content}
    return out


MUSIC = openapi_document(
    "Music",
    {
        **playlist_paths(_op),
    },
)


@pytest.fixture(scope="module")
def music() -> SchemaRouter:
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(MUSIC, provider="music")
    return router


@pytest.mark.parametrize(
    ("query", "change"),
    [
        ("Delete the playlist called Old Mix, then create a new playlist", "delete_playlist"),
        (
            "Rename the playlist called Old Mix to Summer, then create a new playlist",
            "update_playlist",
        ),
    ],
)
def test_a_change_written_before_a_create_takes_no_id_of_it(
    music: SchemaRouter, query: str, change: str
) -> None:
    plan = music.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    names = [s.route_id.rsplit("/", 1)[-1] for s in plan.steps]
    assert change in names and "create_playlist" in names, names
    step = plan.steps[names.index(change)]
    assert not step.bindings, step.bindings
    assert "playlist_id" in step.missing_parameters
    assert names.index(change) < names.index("create_playlist")  # written first, run first
    assert any("not bound" in w and change in w for w in plan.warnings), plan.warnings


def test_a_change_written_after_its_create_is_still_bound(music: SchemaRouter) -> None:
    query = "Create a playlist called Road Trip, then delete it"
    plan = music.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    names = [s.route_id.rsplit("/", 1)[-1] for s in plan.steps]
    assert names == ["create_playlist", "delete_playlist"], names
    assert plan.steps[1].bindings["playlist_id"].step == 0
