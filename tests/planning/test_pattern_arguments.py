"""A required parameter whose schema's pattern one token of the request plainly matches
takes it, wherever the request writes it (trial K: "ORD-20240001 주문 취소해줘" writes the id
before its thing, as Korean does, and ``order_id`` stayed open)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter.adapters.openapi import openapi_registration
from schemarouter.contracts import Route
from schemarouter.planning.arguments import fill_arguments
from schemarouter.retrieval.analysis import find_values


def _document(parameters: list[dict[str, Any]], *, method: str = "post") -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "paths": {
            "/orders/{order_id}/cancel": {
                method: {
                    "operationId": "cancelOrder",
                    "summary": "주문 취소",
                    "parameters": parameters,
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }


def _route(parameters: list[dict[str, Any]]) -> Route:
    (route,) = openapi_registration(_document(parameters), provider="shop").routes
    return route


ORDER = {
    "name": "order_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^ORD-[0-9]{8}$"},
}
CUSTOMER = {
    "name": "customer_id",
    "in": "query",
    "required": True,
    "schema": {"type": "string", "pattern": "^C-[0-9]{4}$"},
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ORD-20240001 주문 취소해줘", {"order_id": "ORD-20240001"}),
        (
            "ORD-20240001 주문 취소해줘 C-1001",
            {"order_id": "ORD-20240001", "customer_id": "C-1001"},
        ),
        # two tokens fit: neither is taken
        ("ORD-20240001 and ORD-20240002 취소", {}),
        # a token that does not fit the pattern is not taken
        ("ORD-2024 주문 취소해줘", {}),
    ],
)
def test_a_token_that_plainly_fits_a_required_parameters_pattern_is_taken(
    text: str, expected: dict[str, str]
) -> None:
    route = _route([ORDER, CUSTOMER])
    assert fill_arguments(route, text, find_values(text)) == expected


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^[0-9]+$"},  # a shape, not an id of its own
        {"type": "string", "pattern": "ORD-[0-9]+"},  # not anchored
        # a top-level | anchors only its ends: the second branch is any number
        {"type": "string", "pattern": "^ORD-[0-9]+|[0-9]+$"},
        # an optional literal is no literal
        {"type": "string", "pattern": "^(ORD-)?[0-9]+$"},
        {"type": "string", "pattern": "^O?[0-9]+$"},
        {"type": "string", "pattern": "^(?:ORD-|[0-9])[0-9]+$"},
        {"type": "string", "pattern": "^(?i)[0-9]+$"},
    ],
)
def test_a_pattern_that_says_too_little_takes_nothing(schema: dict[str, Any]) -> None:
    route = _route([{**ORDER, "schema": schema}])
    assert fill_arguments(route, "cancel 20240001 please", find_values("cancel 20240001")) == {}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("^ORD-[0-9]{8}$", True),
        ("^cus_\\w+$", True),
        ("^(ORD|INV)-[0-9]+$", True),
        ("^(?:ORD|INV)[0-9]+$", True),
        ("^(?P<kind>ORD)[0-9]+$", True),
        ("^[A-Z]{3}[0-9]+$", False),
        ("^(ORD|[0-9])[0-9]+$", False),
        ("^(ORD){0,2}[0-9]+$", False),
        ("^ORD*$", True),
        ("^OR(D$", False),  # unbalanced: not read
        ("^[0-9]+\\$", False),  # an escaped dollar anchors nothing
    ],
)
def test_which_patterns_name_an_id_of_their_own(pattern: str, expected: bool) -> None:
    from schemarouter.planning.id_patterns import specific

    assert specific(pattern) is expected


def test_an_optional_parameter_is_not_taken_by_its_pattern() -> None:
    route = _route([ORDER, {**CUSTOMER, "required": False}])
    text = "ORD-20240001 취소 C-1001"
    assert fill_arguments(route, text, find_values(text)) == {"order_id": "ORD-20240001"}


def test_a_pattern_that_backtracks_costs_no_time() -> None:
    """A document's pattern is matched with RE2 (linear in the token), as the gate matches
    it: Python's ``re`` would take hours on ``^(A+)+1$`` against a long token."""
    import time

    route = _route([{**ORDER, "schema": {"type": "string", "pattern": "^(A+)+1-$"}}])
    text = "cancel " + "A" * 60 + "9-x please"
    started = time.process_time()  # CPU: other jobs' load is not ours
    assert fill_arguments(route, text, find_values(text)) == {}
    assert time.process_time() - started < 5.0


def test_an_id_after_a_path_parameter_named_after_its_thing_binds() -> None:
    """Trial W: "Adjust inventory of SKU ABC-1" on ``PATCH /inventory/{sku}/adjust`` left
    ``sku`` open and warned that no step takes "sku id 'ABC-1'": only ``<thing>_id`` names
    (and aliases) were read as the thing's id. A path parameter named the thing takes it."""
    from schemarouter import PlanRequest, SchemaRouter
    from schemarouter.contracts import Effect
    from schemarouter.index import HashingEncoder

    operation = {
        "operationId": "adjustInventory",
        "parameters": [
            {"name": "sku", "in": "path", "required": True, "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "ok"}},
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "paths": {"/inventory/{sku}/adjust": {"patch": operation}},
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="shop")
    writes = frozenset({Effect.READ, Effect.WRITE})
    plan = router.plan(PlanRequest(query="Adjust inventory of SKU ABC-1", allowed_effects=writes))
    assert plan.steps[0].arguments == {"sku": "ABC-1"}
    assert not plan.missing_arguments
    assert not any("sku id" in w for w in plan.warnings)


def test_an_id_typed_in_full_width_binds_as_ascii() -> None:
    """An id typed "ＯＲＤ－２０２４０００１" (an input method in full-width mode) bound nothing: no
    ``^ORD-[0-9]{8}$`` pattern takes a full-width hyphen. The request is read as ASCII, so
    the plan binds ``ORD-20240001``."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.register(openapi_registration(_document([ORDER], method="get"), provider="shop"))
    plan = router.plan("ＯＲＤ－２０２４０００１ 주문 조회해줘")
    assert [(s.route_id, dict(s.arguments)) for s in plan.steps] == [
        ("shop/rest/cancel_order", {"order_id": "ORD-20240001"})
    ]


def test_an_optional_parameter_named_after_the_things_id_takes_it() -> None:
    """Trial B (low): "stock of item SKU-1001 in warehouse W-7" on ``GET
    /warehouses/{warehouse_id}/stock?item_id=`` left the optional ``item_id`` open and
    warned that no step takes "item id 'SKU-1001'": only required parameters were read as a
    named thing's id. The request names the thing, so ``item_id`` takes it; a bare
    "SKU-1001" (no thing named) still binds nothing."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    document = {
        "openapi": "3.0.3",
        "info": {"title": "acme", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/warehouses/{warehouse_id}/stock": {
                "get": {
                    "operationId": "getStock",
                    "summary": "Stock levels in a warehouse",
                    "parameters": [
                        {**ORDER, "name": "warehouse_id", "schema": {"type": "string"}},
                        {"name": "item_id", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="acme")
    named = router.plan("stock of item SKU-1001 in warehouse W-7")
    assert [dict(s.arguments) for s in named.steps] == [
        {"warehouse_id": "W-7", "item_id": "SKU-1001"}
    ]
    assert not any("SKU-1001" in w for w in named.warnings)
    bare = router.plan("stock of SKU-1001 in warehouse W-7")
    assert [dict(s.arguments) for s in bare.steps] == [{"warehouse_id": "W-7"}]
