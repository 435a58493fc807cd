"""An approval that waits on I/O (a database, a person) in an async service: ``acall`` and
``aexecute`` await an ``async def`` approval, and the event loop serves other requests
meanwhile. Trial W2: the approval was asked synchronously on the loop (a 0.3 s lookup
stalled the whole service 304 ms) and an ``async def`` one was refused. Sync ``call`` and
``execute`` still take a plain function only. A real server on loopback."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Route
from schemarouter.errors import ArgumentError, PolicyError
from schemarouter.index import HashingEncoder

from servers import catalogs
from servers.loopback import LoopbackServer, Request, Response, json_response

ROUTE = "shop/rest/create_order"
WRITES = ["read", "write"]


def _orders(request: Request) -> Response:
    return json_response({"order_id": "O-9", **json.loads(request.body)}, 201)


def _router(base: str) -> SchemaRouter:
    body = {"type": "object", "properties": {"customer_id": {"type": "string"}}}
    created = {"description": "created", "content": {"application/json": {"schema": {}}}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/orders": {
                "post": {
                    "operationId": "createOrder",
                    "requestBody": {"content": {"application/json": {"schema": body}}},
                    "responses": {"201": created},
                }
            }
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    return router


async def _lag_while(work: Any) -> tuple[Any, float]:
    """``work``'s result and the longest the loop was late for a 10 ms tick meanwhile."""
    lags: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        while not done.is_set():
            start = time.monotonic()
            await asyncio.sleep(0.01)
            lags.append(time.monotonic() - start - 0.01)

    ticker = asyncio.ensure_future(tick())
    try:
        return await work, max(lags, default=0.0)
    finally:
        done.set()
        await ticker


def test_acall_and_aexecute_await_an_async_approval_without_blocking_the_loop() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def ask_the_manager(route: Route, arguments: Mapping[str, Any]) -> bool:
        await asyncio.sleep(0.3)  # a lookup the approval waits for
        seen.append((route.route_id, dict(arguments["body"])))
        return arguments["body"]["customer_id"] != "C-blocked"

    with LoopbackServer(_orders) as server:
        router = _router(server.base_url)
        arguments = {"body": {"customer_id": "C-7"}}

        async def scenario() -> None:
            called, lag = await _lag_while(
                router.acall(ROUTE, arguments, allow_effects=WRITES, approve=ask_the_manager)
            )
            assert called.output == {"order_id": "O-9", "customer_id": "C-7"}
            assert lag < 0.15, lag
            snapshot = router.snapshot()
            plan = catalogs.plan(snapshot, catalogs.step(snapshot, ROUTE, [], arguments))
            executed, lag = await _lag_while(
                router.aexecute(plan, allow_effects=WRITES, approve=ask_the_manager)
            )
            assert executed.steps[0].status == "ok"
            assert lag < 0.15, lag
            with pytest.raises(PolicyError, match="refused"):
                await router.acall(
                    ROUTE,
                    {"body": {"customer_id": "C-blocked"}},
                    allow_effects=WRITES,
                    approve=ask_the_manager,
                )

            async def broken(route: Route, arguments: Mapping[str, Any]) -> bool:
                raise RuntimeError("approvals database down")

            with pytest.raises(PolicyError, match=r"callback failed.*database down"):
                await router.acall(ROUTE, arguments, allow_effects=WRITES, approve=broken)
            # a plain function still works under acall
            plain = await router.acall(
                ROUTE, arguments, allow_effects=WRITES, approve=lambda r, a: True
            )
            assert plain.output["order_id"] == "O-9"

        asyncio.run(scenario())
        assert [c[0] for c in seen] == [ROUTE, ROUTE, ROUTE]
        assert len(server.requests) == 3  # the refused and the failed approval sent nothing
        with pytest.raises(ArgumentError, match="which call cannot await"):
            router.call(ROUTE, arguments, allow_effects=WRITES, approve=ask_the_manager)
        assert len(server.requests) == 3
