"""A plan that picks a route its document marks ``deprecated`` says so (user trial M).

``retrieve_executable`` (and so the MCP gateway) leaves a deprecated route out as
"registered as deprecated", while ``plan`` planned it, and ``execute`` ran it, without a
word: the same route was unavailable to one and silently chosen by the other.
"""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder


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


def test_a_planned_deprecated_route_is_named_in_the_warnings() -> None:
    router = _router(deprecated=True)
    blocked = router.retrieve_executable("list pet-shop orders", k=3).blocked
    assert "registered as deprecated" in str(blocked)
    plan = router.plan("list pet-shop orders")
    assert plan.route_ids == ("order_desk/rest/list_legacy_orders",)
    said = [w for w in plan.warnings if "deprecated" in w]
    assert said == [
        "order_desk/rest/list_legacy_orders is deprecated by the document: planned as the "
        "best route, it runs as any other (retrieve_executable and the MCP gateway leave it "
        "out); where its provider names a replacement, call that with "
        "router.call(route_id, ...)"
    ]


def test_a_route_still_in_service_gets_no_such_warning() -> None:
    plan = _router(deprecated=False).plan("list pet-shop orders")
    assert plan.route_ids == ("order_desk/rest/list_legacy_orders",)
    assert not [w for w in plan.warnings if "deprecated" in w]
