"""A router of OpenAPI paths on a loopback server, and what a plan of a request sends there:
the runner of the condition and order tests (importable: pytest puts tests/ on sys.path)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect

from helpers import ok
from servers.loopback import LoopbackServer, Request, Response, json_response

#: What each route answers: an id and a status.
ANSWER = {"type": "object", "properties": {"id": {"type": "string"}, "status": {"type": "string"}}}

#: A router and the server its document names.
Served = tuple[SchemaRouter, LoopbackServer]


def answering_op(op: str, summary: str) -> dict[str, Any]:
    """An operation ``op`` that answers :data:`ANSWER`."""
    return {"operationId": op, "summary": summary, "responses": ok(ANSWER)}


def _app(request: Request) -> Response:
    return json_response({"id": "x", "status": "open"})


@contextmanager
def serving(paths: dict[str, Any], provider: str = "desk", encoder: Any = None) -> Iterator[Served]:
    """``paths`` on a loopback server, registered as ``provider`` on ``encoder`` (None: the
    packaged one, a part's words find their route by meaning)."""
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=encoder, abstention=None, reranker=None, embedding_cache=None)
        document = {
            "openapi": "3.0.3",
            "info": {"title": provider.capitalize(), "version": "1"},
            "servers": [{"url": server.base_url}],
            "paths": paths,
        }
        router.add_openapi(document, provider=provider)
        yield router, server


def sent(
    served: Served, query: str, max_calls: int = 3, *, complete_only: bool = False
) -> tuple[Any, list[tuple[str, str]]]:
    """The plan of ``query`` (every effect allowed) and what executing it sent, in order
    (``(method, path)``; every write approved). ``complete_only``: a plan that misses an
    argument is not executed."""
    router, server = served
    server.requests.clear()
    plan = router.plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=max_calls
    )
    if not (complete_only and plan.missing_arguments):
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
    return plan, [(r.method, r.path) for r in server.requests]
