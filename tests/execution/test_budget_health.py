"""A call cut short by its own request's time budget says nothing about its route's health:
the route was not given its time (trial W2: three requests of a web service, each with
``Budget(max_seconds=0.3)``, called a route that answers in 1 s; each timed out at the
budget, and the route was then refused to every other request for 60 s, "3 failed attempts
in a row (timed out after 0.3 s)"). A timeout within the policy's own timeout still counts.
A real server on loopback, sync and async calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import BudgetExceededError, InvocationError
from schemarouter.execution.policy import Budget, ExecutionPolicy
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

ROUTE = "carrier/rest/get_quote"


def _slow(request: Request) -> Response:
    answer = json_response({"quote": 12.5})
    answer.delay = 0.6
    return answer


def _router(base: str) -> SchemaRouter:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "carrier", "version": "1"},
        "servers": [{"url": base}],
        "paths": {"/quote": {"get": {"operationId": "getQuote", "responses": ok}}},
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="carrier")
    return router


@pytest.mark.parametrize("mode", ["call", "acall"])
def test_calls_cut_short_by_their_time_budget_do_not_take_the_route_offline(mode: str) -> None:
    with LoopbackServer(_slow) as server:
        router = _router(server.base_url)
        for _ in range(3):  # three impatient requests, one after another
            with pytest.raises(BudgetExceededError, match=r"time budget of 0\.2 s spent"):
                if mode == "call":
                    router.call(ROUTE, {}, budget=Budget(max_seconds=0.2))
                else:
                    asyncio.run(router.acall(ROUTE, {}, budget=Budget(max_seconds=0.2)))
        assert router.is_healthy(ROUTE), router.cooldown_reason(ROUTE)
        # the patient request after them is served
        assert router.call(ROUTE, {}).output == {"quote": 12.5}
        assert len(server.requests) == 4


def test_timeouts_within_the_policys_own_timeout_still_count() -> None:
    with LoopbackServer(_slow) as server:
        router = _router(server.base_url)
        policy = ExecutionPolicy(timeout=0.2, max_attempts=1, failure_threshold=3)
        for _ in range(3):  # a budget longer than the timeout: the route had its time
            with pytest.raises(InvocationError, match=r"timed out after 0\.2 s"):
                router.call(ROUTE, {}, policy=policy, budget=Budget(max_seconds=5))
        assert not router.is_healthy(ROUTE)
        assert "3 failed attempts in a row" in (router.cooldown_reason(ROUTE) or "")
