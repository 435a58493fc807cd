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
    assert endpoint.model_copy(update={"method": "get", "changes_state": None}).effect is (
        Effect.READ
    )
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


LEGACY_CGI = """# Orders (legacy CGI)

## GET /delete_order.pl

Deletes the order permanently. There is no undo.

- order_id (string, required): the order to delete

## GET /orders/deleted

Returns the orders deleted this month.

## GET /rates

Lists the shipping rates.
"""


def test_a_get_whose_docs_say_it_deletes_is_not_a_read() -> None:
    mutating, listing, rates = inspect(LEGACY_CGI).endpoints
    assert mutating.effect is Effect.DESTRUCTIVE
    assert mutating.changes_state == "destructive"
    assert "Deletes the order" in mutating.changes_state_passage
    # a read that mentions deletions, and a collection named by a noun, stay reads
    assert listing.effect is Effect.READ and rates.effect is Effect.READ
    assert inspect("## POST /orders/{id}/cancel\n\nCancel it.\n").endpoints[0].effect is (
        Effect.WRITE
    )
    assert inspect("## GET /orders/{id}/cancel\n").endpoints[0].effect is Effect.WRITE
    router = _router()
    with LoopbackServer(_ok) as api:
        change = router.approve(inspect(LEGACY_CGI), base_url=api.base_url, provider="orders")
        assert set(change.added) == {"orders/docs/get_orders_deleted", "orders/docs/get_rates"}
        change = router.approve(
            inspect(LEGACY_CGI),
            base_url=api.base_url,
            provider="orders",
            allow_write=True,
            replace=True,
        )
        (route_id,) = [r for r in change.added if "delete_order" in r]
        assert router.snapshot().route(route_id).endpoint.effect is Effect.DESTRUCTIVE
        assert any("GET /delete_order.pl approved as destructive" in w for w in change.warnings)
        with pytest.raises(PolicyError):
            router.call(route_id, {"order_id": "991"})
        assert api.requests == []
        # the user, knowing better, says it only reads: then it is a read again
        read = mutating.model_copy(update={"changes_state": None})
        assert read.effect is Effect.READ
