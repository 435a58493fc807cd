"""A part said to come first with "but first" (and Korean's "그 전에", "먼저", "-되 먼저"), and a
create renamed after it, reach the server as the request says (the tenth security review).

"Delete customer C-1, but first refund order O-1" read its "but" as taking back what came
before: the refund's O-1 was an id "in a clause it says not to use", and the deletion alone
was planned and sent. "Create a playlist called Road Trip, then rename it to Summer" created
the playlist with ``name="Summer"`` (the rename's "to Summer" filled the create's name).
Korean has no "but": "고객 C-1을 삭제해줘. 그 전에 주문 O-1을 환불해줘" sent the deletion, then
the refund, and "고객 C-1을 삭제하되 먼저 주문 O-1을 환불해줘" the refund alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.retrieval.intents import split_intents

from helpers import desk_paths, ok, playlist_paths
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_NAMED = {"type": "object", "properties": {"name": _S}}


def _op(op: str, summary: str, body: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op, "summary": summary}
    out["responses"] = ok({"type": "object", "properties": {"id": _S, "name": _S}})
    if body:
        content = {"application/json": {"schema": _NAMED}}
        out["requestBody"] = {"required": True, "content": content}
    return out


def _document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Desk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            **desk_paths(_op),
            **playlist_paths(_op),
        },
    }


def _app(request: Request) -> Response:
    return json_response({"id": "P-9", "name": "x"})


@pytest.fixture(scope="module")
def desk() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    """The desk on the packaged encoder (a part's words find their route by meaning)."""
    with LoopbackServer(_app) as server:
        router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
        router.add_openapi(_document(server.base_url), provider="desk")
        yield router, server


def _sent(
    desk: tuple[SchemaRouter, LoopbackServer], query: str
) -> tuple[Any, list[tuple[str, str, Any]]]:
    router, server = desk
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
    sent = [(r.method, r.path, json.loads(r.body) if r.body else None) for r in server.requests]
    return plan, sent


@pytest.mark.parametrize(
    "query",
    [
        "Delete customer C-1, but first refund order O-1",
        "Delete customer C-1, but first, refund order O-1",
        "Delete customer C-1 but before that refund order O-1",
        "Delete customer C-1. But first refund order O-1.",
        # Korean's: "before that", "first" in a later part, and -되 ("but") with "first"
        "고객 C-1을 삭제해줘. 그 전에 주문 O-1을 환불해줘",
        "고객 C-1을 삭제해줘. 주문 O-1을 먼저 환불해줘",
        "고객 C-1을 삭제하되 먼저 주문 O-1을 환불해줘",
        "먼저 주문 O-1을 환불하고 고객 C-1을 삭제해줘",
    ],
)
def test_the_part_said_to_come_first_with_but_runs_first(
    desk: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    plan, sent = _sent(desk, query)
    methods = [(method, path) for method, path, _ in sent]
    assert methods == [("POST", "/orders/O-1/refund"), ("DELETE", "/customers/C-1")], (
        plan.route_ids,
        plan.warnings,
    )


def test_a_create_renamed_after_it_is_created_with_its_own_name(
    desk: tuple[SchemaRouter, LoopbackServer],
) -> None:
    plan, sent = _sent(desk, "Create a playlist called Road Trip, then rename it to Summer")
    assert sent == [
        ("POST", "/playlists", {"name": "Road Trip"}),
        ("PATCH", "/playlists/P-9", {"name": "Summer"}),
    ], (plan.route_ids, plan.warnings)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "Delete customer C-1, but first refund order O-1",
            ["Delete customer C-1", "refund order O-1"],
        ),
        # a "but" that contrasts stays one part
        ("Delete customer C-1 but not order O-1", ["Delete customer C-1 but not order O-1"]),
        ("Refund order O-1 first", ["Refund order O-1 first"]),
        (
            "고객 C-1을 삭제하되 먼저 주문 O-1을 환불해줘",
            ["고객 C-1을 삭제하되", "먼저 주문 O-1을 환불해줘"],
        ),
        # a -되 that "first" does not follow stays one part
        ("고객 C-1을 삭제하되 기록은 남겨줘", ["고객 C-1을 삭제하되 기록은 남겨줘"]),
    ],
)
def test_but_first_opens_a_part(text: str, parts: list[str]) -> None:
    assert split_intents(text) == parts
