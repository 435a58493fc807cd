"""The gateway's search while providers are registered, replaced and removed on another thread
(what ``serve`` does as upstreams join or are listed again): no search ends in an error.
Threads and a wall-clock run: marked slow (the deterministic case is in
test_honest_tool_lists.py)."""

from __future__ import annotations

import random
import threading
import time
import traceback
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig

from helpers import openapi_document


def _document(tag: str, n: int) -> dict[str, Any]:
    ok = {"200": {"description": "ok"}}
    notes = {f"get_{tag}_note_{i}": f"read notes about {tag} number {i}" for i in range(n)}
    return openapi_document(
        tag,
        {
            f"/{op}": {"get": {"operationId": op, "summary": summary, "responses": ok}}
            for op, summary in notes.items()
        },
    )


@pytest.mark.slow
def test_searches_never_fail_while_providers_change() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    router.add_openapi(_document("base", 5), provider="base")
    gateways = [
        Gateway(router, GatewayConfig()),
        Gateway(router, GatewayConfig(search={"executable_only": False})),
    ]
    stop = time.monotonic() + 8
    errors: list[str] = []
    rng = random.Random(0)

    def writer() -> None:
        i = 0
        while time.monotonic() < stop:
            i += 1
            tag = f"p{i % 5}"
            try:
                router.add_openapi(
                    _document(tag, rng.randint(1, 8)),
                    provider=tag,
                    replace=True,
                )
                if i % 4 == 0 and f"p{(i + 2) % 5}" in router.snapshot().providers:
                    router.remove_provider(f"p{(i + 2) % 5}")
            except Exception:
                errors.append(traceback.format_exc())

    def reader(gateway: Gateway) -> None:
        while time.monotonic() < stop:
            try:
                gateway.search(rng.choice(["read notes about p3", "note number 2"]), k=5)
            except Exception:
                errors.append(traceback.format_exc())

    threads = [threading.Thread(target=writer)]
    threads += [threading.Thread(target=reader, args=(g,)) for g in gateways for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
