"""A thing word before its id is a noun, a request's first word may be the change a route's
name ends with, and a number alone is no id (the plan harnesses of trials Y1 and Z3, run
after trial Y2's merge: three plans it broke).

"Ship order O-5002 to DE" planned the refund of O-5002 (``refund_order``, second) in place of
the shipment ranked first: its "order" was read as the verb to order. "End my listing
vintage-strat-1962" planned a list of every listing: ``put_my_listings_state_end`` (a name
of its method and path) opens with no verb, so the request was read as asking no change.
"Make an offer of 450 USD on listing 998877" left the listing's id open: the bare 450 was
read as a second listing id, of the same shape as 998877."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

_S = {"type": "string"}


def _op(summary: str, *, op: str | None = None, body: dict[str, Any] | None = None) -> dict:
    out: dict[str, Any] = {"summary": summary, "responses": {"200": {"description": "ok"}}}
    if op:
        out["operationId"] = op
    if body is not None:
        schema = {"type": "object", "properties": {k: _S for k in body}, "required": []}
        schema["required"] = [k for k, need in body.items() if need]
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return out


def _path(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": _S}]


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    paths = {
        "/orders/{order_id}": {"parameters": _path("order_id"), "get": _op("Get an order")},
        "/orders/{order_id}/refund": {
            "parameters": _path("order_id"),
            "post": _op("Refund an order", op="refund_order", body={"amount": False}),
        },
        "/shipments": {
            "post": _op(
                "Ship an order to a country",
                op="create_shipment",
                body={"order_id": True, "country": True},
            )
        },
        "/listings/all": {"get": _op("List every listing")},
        "/my/listings/{slug}/state/end": {
            "parameters": _path("slug"),
            "put": _op("End a listing of mine", body={"reason": False}),
        },
        "/listings/{id}/offer": {
            "parameters": _path("id"),
            "post": _op("Make an offer on a listing", op="make_offer", body={"price": False}),
        },
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    }
    out = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    out.add_openapi(document, provider="shop")
    return out


def _plan(router: SchemaRouter, query: str) -> tuple[str, dict[str, Any], tuple[str, ...]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    step = plan.steps[0]
    return step.route_id.rsplit("/", 1)[-1], dict(step.arguments), plan.warnings


def test_a_thing_word_before_its_id_is_no_verb(router: SchemaRouter) -> None:
    assert (
        router.retrieve("Ship order O-5002 to DE", k=2)
        .candidates[0]
        .route_id.endswith("create_shipment")
    )
    route, arguments, warnings = _plan(router, "Ship order O-5002 to DE")
    assert route == "create_shipment"
    assert arguments["body"]["order_id"] == "O-5002"
    assert not any("asks to order" in w for w in warnings)


def test_a_first_word_a_routes_name_ends_with_asks_that_change(router: SchemaRouter) -> None:
    route, arguments, _ = _plan(router, "End my listing vintage-strat-1962")
    assert route == "put_my_listings_state_end"
    assert arguments["slug"] == "vintage-strat-1962"
    # a read verb first still reads
    assert _plan(router, "List every listing")[0] == "get_listings_all"


def test_a_number_alone_is_no_id_of_a_things_shape(router: SchemaRouter) -> None:
    route, arguments, _ = _plan(router, "Make an offer of 450 USD on listing 998877")
    assert route == "make_offer"
    assert arguments["id"] == "998877"


def test_a_change_named_by_the_best_routes_first_word_keeps_the_order(
    router: SchemaRouter,
) -> None:
    """ "Refund O-1 and then create a shipment of it": refund is a verb no table knows, so it
    read as asking one change (create), planned before the refund ranked first."""
    from schemarouter.planning.asked_changes import asked_change_first

    snapshot = router.snapshot()
    ranked = ["shop/rest/refund_order", "shop/rest/create_shipment"]
    warnings: list[str] = []
    query = "Refund O-1 and then create a shipment of it"
    assert asked_change_first(query, snapshot, ranked, warnings) == ranked
    assert warnings == []
