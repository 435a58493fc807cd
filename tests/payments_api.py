"""A payments API whose refund the amount tests vary, on loopback, and what a request's plan
POSTs there (importable: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError

from helpers import WRITES, ok, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
PAYMENT = {"type": "object", "properties": {"id": _S, "status": _S}}
CURRENCY = {"type": "string", "enum": ["KRW", "USD", "EUR"]}
REFUND = "pay/rest/refund_payment"


def _app(request: Request) -> Response:
    return json_response({"id": request.path.split("/")[2], "status": "refunded"})


@contextmanager
def serving_payments() -> Iterator[LoopbackServer]:
    """A server that answers every request as a refunded payment (and records them)."""
    with LoopbackServer(_app) as running:
        yield running


def payments_router(server: LoopbackServer, refund: dict[str, Any], **router: Any) -> SchemaRouter:
    """``GET /payments/{payment_id}`` and ``refund`` (the operation ``refund_payment``) as
    ``POST /payments/{payment_id}/refund`` at ``server``, registered as ``pay``."""
    get = {"operationId": "get_payment", "summary": "Get a payment", "responses": ok(PAYMENT)}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Payments", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": {
            "/payments/{payment_id}": {"parameters": path_id("payment_id"), "get": get},
            "/payments/{payment_id}/refund": {
                "parameters": path_id("payment_id"),
                "post": {"operationId": "refund_payment", "responses": ok(PAYMENT), **refund},
            },
        },
    }
    routed = SchemaRouter(embedding_cache=None, abstention=None, **router)
    routed.add_openapi(document, provider="pay")
    return routed


def refund_posts(
    server: LoopbackServer, router: SchemaRouter, text: str
) -> tuple[Any, list[tuple[str, Any]]]:
    """The plan of ``text`` (its one step the refund) and what executing it POSTs (path and
    JSON body); a plan with missing arguments is refused at execution."""
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.route_ids == (REFUND,), (plan.route_ids, plan.reason, plan.warnings)
    if plan.missing_arguments:
        with pytest.raises(ParameterValidationError):
            router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    else:
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    posts = [r for r in server.requests if r.method == "POST"]
    return plan, [(r.path, json.loads(r.body) if r.body else None) for r in posts]
