"""A value a change sends is the one the request gives that property, in that property's own
clause (the ninth security review): "change the phone of patient P-100 to her new number" sent
``phone="her"``, "Update the notes ... to 'vip' and forward the phone to Bob" ``phone="Bob"``,
a quoted note "'call the phone to confirm'" ``phone="confirm"``, and "create a playlist called
Road Trip. Add it ..." ``name="Road Trip. Add"``; "Delete the playlist called Old Mix, then
create a new playlist" created a playlist named Old Mix. Each now leaves the value out (the
caller fills it) or takes only the words the request gives it."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import hashing_router, ok, openapi_document, path_id

_S = {"type": "string"}
_PATIENT = {"type": "object", "properties": {"phone": _S, "notes": _S, "name": _S}}
_PLAYLIST = {"type": "object", "properties": {"name": _S, "description": _S}}


def _op(op: str, summary: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {"id": _S, "name": _S}})
    if body is not None:
        content = {"application/json": {"schema": body}}
        out["requestBody"] = {"required": True, "content": content}
    return out


CLINIC = openapi_document(
    "Clinic",
    {
        "/patients/{patient_id}": {
            "parameters": path_id("patient_id"),
            "patch": _op("update_patient", "Update a patient's details", _PATIENT),
        },
    },
)
MUSIC = openapi_document(
    "Music",
    {
        "/playlists": {
            "get": _op("list_playlists", "List playlists"),
            "post": _op("create_playlist", "Create a playlist", _PLAYLIST),
        },
        "/playlists/{playlist_id}": {
            "parameters": path_id("playlist_id"),
            "delete": _op("delete_playlist", "Delete a playlist"),
        },
    },
)


def _bodies(document: dict[str, Any], query: str) -> dict[str, dict[str, Any]]:
    plan = hashing_router(document, "p").plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3
    )
    return {s.route_id.rsplit("/", 1)[-1]: dict(s.arguments.get("body", {})) for s in plan.steps}


@pytest.mark.parametrize(
    ("query", "body"),
    [
        # a word that begins a longer phrase is no value given
        ("change the phone of patient P-100 to her new number", {}),
        ("Change the phone of patient P-100 to match the old one", {}),
        # the phone of another verb's clause
        (
            "Update the notes of patient P-100 to 'vip' and forward the phone to Bob",
            {"notes": "vip"},
        ),
        # words inside a quoted value name no property and no "to"
        (
            "set the notes of patient P-100 to 'call the phone to confirm'",
            {"notes": "call the phone to confirm"},
        ),
        # still read: one word that ends its clause, coordinated properties, a quoted value
        ("change the phone of patient P-100 to 010-1234-5678, thanks", {"phone": "010-1234-5678"}),
        (
            "change the phone of patient P-100 to 010-1 and the notes to 'vip'",
            {"phone": "010-1", "notes": "vip"},
        ),
        (
            "set patient P-100's notes to 'allergic to penicillin'",
            {"notes": "allergic to penicillin"},
        ),
    ],
)
def test_a_property_takes_only_the_value_its_own_clause_gives(
    query: str, body: dict[str, Any]
) -> None:
    assert _bodies(CLINIC, query)["update_patient"] == body


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("create a playlist called Road Trip. Add it to my library.", "Road Trip"),
        ("Create a playlist named Mina Mix. Then list playlists", "Mina Mix"),
        ("create a playlist called V2.Beta", "V2.Beta"),
    ],
)
def test_a_created_name_ends_with_its_sentence(query: str, name: str) -> None:
    assert _bodies(MUSIC, query)["create_playlist"].get("name") == name


def test_a_create_takes_no_name_that_describes_another_parts_entry() -> None:
    """ "called Old Mix" names the playlist to delete: the new one's name is not given (on
    the packaged encoder, which plans both parts)."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(MUSIC, provider="music")
    query = "Delete the playlist called Old Mix, then create a new playlist"
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    creates = [s for s in plan.steps if s.route_id.endswith("/create_playlist")]
    assert creates, plan.route_ids
    assert creates[0].arguments.get("body", {}).get("name") is None
