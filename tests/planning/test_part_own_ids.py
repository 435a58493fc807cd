"""Each part of a request of several takes the ids written in it, where the request names
several of a kind (trial Y2): "Close ticket T-1 and then reopen ticket T-2" planned both
changes with ``ticket_id`` open (a change of the whole request takes none of two ids), and
"티켓 T-1 닫고 T-2 다시 열어줘" gave T-1 to both parts (the bare T-2 read as no id), so a
filled-in reopen would have reopened T-1."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder
from schemarouter.planning.contrasted_ids import contrasted_ids
from schemarouter.planning.parts import own_part, top_part

_S = {"type": "string"}


def _action(op: str, summary: str) -> dict[str, Any]:
    return {
        "parameters": [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}],
        "post": {
            "operationId": op,
            "summary": summary,
            "responses": {"200": {"description": "ok"}},
        },
    }


def _router() -> SchemaRouter:
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/tickets/{ticket_id}/close": _action("close_ticket", "Close a support ticket"),
            "/tickets/{ticket_id}/reopen": _action("reopen_ticket", "Reopen a closed ticket"),
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="desk")
    return router


def test_each_part_takes_its_own_id() -> None:
    router = _router()
    query = "Close ticket T-1 and then reopen ticket T-2"
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=2)
    taken = {s.route_id.rsplit("/", 1)[-1]: s.arguments.get("ticket_id") for s in plan.steps}
    assert taken == {"close_ticket": "T-1", "reopen_ticket": "T-2"}
    assert not plan.missing_arguments


def test_a_bare_id_written_as_a_named_one_is_of_its_thing() -> None:
    router = _router()
    query = "티켓 T-1 닫고 T-2 다시 열어줘"
    values = router.ranker.rank(query, 5).analysis.values
    read = contrasted_ids(values, query)
    assert {(v.value, v.of) for v in read} >= {("T-1", "ticket"), ("T-2", "ticket")}
    request = PlanRequest(query=query)
    part, inside = own_part(request, read, "T-2 다시 열어줘")
    assert part.query == "T-2 다시 열어줘"
    assert [(v.value, part.query[v.start : v.end]) for v in inside] == [("T-2", "T-2")]
    # one id of its kind: the whole request, as before
    whole, kept = own_part(request, values, "T-2 다시 열어줘")
    assert whole is request and kept == list(values)


@pytest.mark.parametrize("query", ["delete ticket T-1&T-2", "티켓 T-1에 'T-2 참고' 댓글 달아줘"])
def test_an_id_written_on_with_a_sign_or_quoted_is_no_bare_id(query: str) -> None:
    router = _router()
    values = router.ranker.rank(query, 5).analysis.values
    assert "T-2" not in {v.value for v in contrasted_ids(values, query)}


def test_the_best_route_takes_no_id_of_a_part_asking_another_change() -> None:
    """Where the request's best route serves a part it does not do the change of ("티켓 T-1
    닫고" by ``reopen_ticket``), its step is filled from the whole request (which gives it
    neither of two ids), never that part's T-1: reopening T-1 where T-1 was to be closed."""
    snapshot = _router().snapshot()
    reopen, close = "desk/rest/reopen_ticket", "desk/rest/close_ticket"
    part = "티켓 T-1 닫고"
    assert top_part(snapshot, reopen, lambda route_id: part, [(part, close)]) == (part, "")
    own = [("reopen ticket T-2", reopen)]
    assert top_part(snapshot, reopen, None, own) == (None, "reopen ticket T-2")
