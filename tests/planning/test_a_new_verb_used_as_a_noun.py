"""A change's word used as a noun sends no change (eighteenth security review).

This stop's write verbs (retry, snooze, escalate, roll back, void, ...) read as the request's
change where a noun phrase or a statement uses them: on a loopback server, with every effect
allowed and approved, "retry count of job J-1" sent ``POST /jobs/J-1/retry`` and "the snooze
on alert A-1 expired" sent ``POST /alerts/A-1/snooze``, "the refund on order O-1 failed" ``POST
/orders/O-1/refund``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from helpers import WRITES, ok, path_id
from servers.loopback import LoopbackServer, json_response


def _operation(name: str, summary: str, thing: str) -> dict[str, Any]:
    return {
        "operationId": name,
        "summary": summary,
        "parameters": path_id(f"{thing}_id"),
        "responses": ok({"type": "object"}),
    }


PATHS = {
    "/jobs/{job_id}": {"get": _operation("getJob", "Get a job and its retry count", "job")},
    "/jobs/{job_id}/retry": {"post": _operation("retryJob", "Retry a job", "job")},
    "/alerts/{alert_id}": {"get": _operation("getAlert", "Get an alert", "alert")},
    "/alerts/{alert_id}/snooze": {"post": _operation("snoozeAlert", "Snooze an alert", "alert")},
    "/orders/{order_id}": {"get": _operation("getOrder", "Get an order", "order")},
    "/orders/{order_id}/refund": {"post": _operation("refundOrder", "Refund an order", "order")},
}


@pytest.fixture(scope="module")
def ops() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(lambda request: json_response({"ok": True})) as server:
        document = {
            "openapi": "3.0.3",
            "info": {"title": "Ops", "version": "1"},
            "servers": [{"url": server.base_url}],
            "paths": PATHS,
        }
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(document, provider="ops")
        yield router, server


def _sent(ops: tuple[SchemaRouter, LoopbackServer], query: str) -> list[str]:
    router, server = ops
    server.requests.clear()
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES), max_calls=2)
    with contextlib.suppress(ParameterValidationError):  # nothing planned to send
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [f"{r.method} {r.path}" for r in server.requests]


@pytest.mark.parametrize(
    "query",
    [
        "retry count of job J-1",
        "the snooze on alert A-1 expired",
        "the refund on order O-1 failed",
        "the refund of order O-1 failed, why?",
    ],
)
def test_a_change_used_as_a_noun_sends_no_change(
    ops: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    assert not [s for s in _sent(ops, query) if s.startswith("POST")]


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("retry job J-1", "POST /jobs/J-1/retry"),
        ("snooze alert A-1", "POST /alerts/A-1/snooze"),
        ("refund order O-1", "POST /orders/O-1/refund"),
    ],
)
def test_the_change_asked_is_still_sent(
    ops: tuple[SchemaRouter, LoopbackServer], query: str, sent: str
) -> None:
    assert _sent(ops, query) == [sent]
