"""inspect() / approve() on the kinds of internal API pages integrators have (user trial R):
each test reads real Markdown or HTML text, and where a call runs, against a loopback server."""

from __future__ import annotations

import json

import pytest

from schemarouter import SchemaRouter
from schemarouter.adapters.inspect import inspect
from schemarouter.contracts import Effect
from schemarouter.errors import PolicyError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response


def _router() -> SchemaRouter:
    return SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )


def _ok(request: Request) -> Response:
    return json_response({"id": "N-2", "created_at": "2024-03-02T09:00:00Z"})


NOTES_DELETE = """## DELETE /customers/{customer_id}/notes/{note_id}

Delete a note.
"""


def test_a_lower_case_method_keeps_its_effect() -> None:
    endpoint = inspect(NOTES_DELETE).endpoints[0]
    edited = endpoint.model_copy(update={"method": "delete"})  # validators do not run here
    assert edited.effect is Effect.DESTRUCTIVE
    assert endpoint.model_validate({**endpoint.model_dump(), "method": " get "}).method == "GET"
    assert endpoint.model_copy(update={"method": "get"}).effect is Effect.READ
    proposal = inspect(NOTES_DELETE).model_copy(update={"endpoints": (edited,)})
    router = _router()
    with LoopbackServer(_ok) as api:
        change = router.approve(proposal, base_url=api.base_url, provider="notes", allow_write=True)
        route = router.snapshot().route(change.added[0])
        assert route.endpoint.effect is Effect.DESTRUCTIVE
        with pytest.raises(PolicyError):  # a DELETE needs "destructive", not only "write"
            router.call(
                change.added[0],
                {"customer_id": "C-1", "note_id": "N-1"},
                allow_effects=["read", "write"],
                approve=lambda *a: True,
            )
        assert api.requests == []


def _body(request: Request) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(request.body)
    return loaded
