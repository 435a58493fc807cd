"""An id the request keeps right after the one it changes is no second id of that thing
(trial Y1).

"Delete ticket T-5, keep T-6" planned ``DELETE /tickets/{ticket_id}`` with ``ticket_id``
open, where 7d9344c deleted T-5: "keep T-6" was read as the next item of a list ("tickets
T-5, T-6"), so the change took none of the two. A kept item, like a refused one ("T-5, not
T-6"), leaves the id the request changes."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments
from schemarouter.retrieval.analysis import find_values

_ID = [{"name": "ticket_id", "in": "path", "required": True, "schema": {"type": "string"}}]
DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets/{ticket_id}": {
            "delete": {
                "operationId": "delete_ticket",
                "summary": "Delete a support ticket",
                "parameters": _ID,
                "responses": {"204": {"description": "gone"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "ticket_id"),
    [
        ("Delete ticket T-5, keep T-6", "T-5"),
        ("Delete ticket T-5 and keep T-6", "T-5"),
        ("Delete ticket T-5, skip T-6", "T-5"),
        ("Delete ticket T-5, spare T-6", "T-5"),
        ("Delete ticket T-5, not T-6", "T-5"),
        ("Delete tickets T-5, T-6", None),
        ("Delete ticket T-5 and T-6", None),
    ],
)
def test_a_kept_id_after_the_changed_one_is_no_second_id(
    request_text: str, ticket_id: str | None
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="hd")
    route = router.snapshot().routes["hd/rest/delete_ticket"]
    filled = fill_arguments(route, request_text, find_values(request_text))
    assert filled.get("ticket_id") == ticket_id
