"""Failures of calls that were in flight together are one outage, counted once toward a
route's health (trial Q: an HTTP server restarted for a second under 12 threads failed three
calls within milliseconds, and the failure threshold took its routes offline for 60 s, though
it answered again at once). Failures one after another still count each. A real server on
loopback, real threads."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.execution.policy import ExecutionPolicy
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response

POLICY = ExecutionPolicy(max_attempts=1, failure_threshold=3, cooldown=60.0)
ROUTE = "flaky/rest/get_report"


def _failing(request: Request) -> Response:
    return Response(500, b'{"error": "down"}', {"Content-Type": "application/json"}, delay=0.4)


def _router(base: str) -> SchemaRouter:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "flaky", "version": "1"},
        "servers": [{"url": base}],
        "paths": {"/report": {"get": {"operationId": "getReport", "responses": ok}}},
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="flaky")
    return router


def _call(router: SchemaRouter) -> None:
    with contextlib.suppress(SchemaRouterError):  # a 500 raises or answers not ok
        router.call(ROUTE, {}, policy=POLICY)


def test_calls_in_flight_together_are_one_failure_and_calls_in_turn_are_each() -> None:
    with LoopbackServer(_failing) as server:
        router = _router(server.base_url)
        threads = [threading.Thread(target=_call, args=(router,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(server.requests) == 8
        assert router.is_healthy(ROUTE), router.cooldown_reason(ROUTE)  # one outage
        for _ in range(2):  # two more, one after another: three in a row
            _call(router)
        assert not router.is_healthy(ROUTE)
        assert "3 failed attempts in a row (HTTP 500)" in (router.cooldown_reason(ROUTE) or "")
