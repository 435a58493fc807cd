"""A word that follows a number is its unit only where it is no preposition before another
word (trial Y1).

"Monitors with at least 3 in stock under 200 EUR" on a shop's search with
``screen_size_cm_min`` planned ``screen_size_cm_min=7.62``: "3 in" was read as three inches,
though "in stock" says how many are on hand; "at least 2 at once" read "at" as an
atmosphere. A unit written last ("at least 27 in") is still one."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments


def _parameter(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": {"type": "number"}, "description": description}


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "shop", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/products": {
            "get": {
                "operationId": "search_products",
                "summary": "Search the products.",
                "parameters": [
                    _parameter("screen_size_cm_min", "Smallest screen diagonal in cm."),
                    _parameter("pressure_bar_max", "Highest pressure it takes, in bar."),
                    _parameter("price_eur_max", "Highest price in EUR."),
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("Monitors with at least 3 in stock under 200 EUR", {"price_eur_max": 200}),
        ("Pumps, at most 2 at a time, under 90 EUR", {"price_eur_max": 90}),
        ("Monitors of at least 27 in", {"screen_size_cm_min": 68.58}),
        (
            "Monitors of at least 27 in, under 300 EUR",
            {"screen_size_cm_min": 68.58, "price_eur_max": 300},
        ),
    ],
)
def test_a_preposition_after_a_number_is_no_unit(
    request_text: str, arguments: dict[str, Any]
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(DOCUMENT, provider="shop")
    route = router.snapshot().routes["shop/rest/search_products"]
    assert fill_arguments(route, request_text) == arguments
