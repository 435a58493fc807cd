"""A route its document marks ``deprecated`` runs, and every surface says so (user trial M).

``retrieve_executable`` (and so the MCP gateway) left a deprecated route out as
"registered as deprecated", while ``plan`` planned it, and ``execute`` ran it, without a
word: the same route was unavailable to one and silently chosen by the other. A deprecated
operation still runs: it is offered where it may run, its tool description says
"Deprecated by its provider", and a plan that picks it says so in its warnings.
"""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.contracts import AvailabilityStatus
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig


def _document(deprecated: bool) -> dict[str, Any]:
    orders = {"type": "array", "items": {"type": "object", "properties": {"id": {}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Order Desk", "version": "1"},
        "servers": [{"url": "https://orders.example.com"}],
        "paths": {
            "/legacy/orders": {
                "get": {
                    "operationId": "listLegacyOrders",
                    "summary": "List pet-shop orders",
                    "deprecated": deprecated,
                    "responses": {
                        "200": {
                            "description": "",
                            "content": {"application/json": {"schema": orders}},
                        }
                    },
                }
            }
        },
    }


def _router(deprecated: bool) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(deprecated))
    return router


ROUTE = "order_desk/rest/list_legacy_orders"


def test_a_deprecated_route_runs_and_every_surface_says_so() -> None:
    router = _router(deprecated=True)
    found = router.retrieve_executable("list pet-shop orders", k=3)
    assert found.route_ids == (ROUTE,)
    assert not found.blocked
    assert found.candidates[0].availability is AvailabilityStatus.DEPRECATED
    (tool,) = Gateway(router, GatewayConfig()).search("list pet-shop orders", k=3)["tools"]
    assert "Deprecated by its provider" in tool["description"]
    plan = router.plan("list pet-shop orders")
    assert plan.route_ids == (ROUTE,)
    said = [w for w in plan.warnings if "deprecated" in w]
    assert said == [
        f"{ROUTE} is deprecated by the document: planned as the best route, it runs as any "
        "other; where its provider names a replacement, call that with "
        "router.call(route_id, ...)"
    ]


def test_a_route_still_in_service_gets_no_such_warning() -> None:
    plan = _router(deprecated=False).plan("list pet-shop orders")
    assert plan.route_ids == (ROUTE,)
    assert not [w for w in plan.warnings if "deprecated" in w]
