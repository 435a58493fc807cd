"""The shipped encoder and abstention model on a catalog nobody trained on: a small bookstore
OpenAPI document. Requests it serves keep their routes; requests for another domain are
rejected with a reason; the relevance of a route is the same number whatever else the
registry holds."""

from __future__ import annotations

import pytest

from schemarouter import SchemaRouter
from schemarouter.retrieval.abstention import AbstentionModel

from helpers import BUNDLED_CATALOG

BOOKSTORE = {
    "openapi": "3.0.3",
    "info": {"title": "Bookstore", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9/api"}],
    "paths": {
        "/books": {
            "get": {
                "operationId": "searchBooks",
                "summary": "Search the catalogue of books by title, author or ISBN",
                "parameters": [
                    {
                        "name": "q",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "title, author or ISBN",
                    }
                ],
                "responses": {
                    "200": {
                        "description": "matching books",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "isbn": {"type": "string"},
                                            "title": {"type": "string"},
                                            "author": {"type": "string"},
                                        },
                                    },
                                }
                            }
                        },
                    }
                },
            }
        },
        "/books/{isbn}/stock": {
            "get": {
                "operationId": "getStock",
                "summary": "How many copies of a book are in stock in each shop",
                "parameters": [
                    {"name": "isbn", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "stock per shop"}},
            }
        },
    },
}


def _plain(router: SchemaRouter) -> SchemaRouter:
    """The same routes without an abstention model."""
    plain = SchemaRouter(embedding_cache=None, abstention=None)
    plain.add_openapi(BOOKSTORE, provider="bookstore")
    return plain


@pytest.fixture(scope="module")
def bookstore() -> SchemaRouter:
    model = AbstentionModel.shipped()
    if model is None or model.card.get("scope") != "encoder":
        pytest.skip("the shipped abstention model is not calibrated for any registry")
    router = SchemaRouter(embedding_cache=None)
    router.add_openapi(BOOKSTORE, provider="bookstore")
    return router


def test_requests_the_catalog_serves_keep_their_routes(bookstore: SchemaRouter) -> None:
    found = bookstore.retrieve("find books by Ursula K. Le Guin", k=2)
    assert not found.abstained
    assert found.route_ids[0] == "bookstore/rest/search_books"
    stock = bookstore.retrieve("is 'The Dispossessed' in stock?", k=2)
    assert not stock.abstained and stock.route_ids[0] == "bookstore/rest/get_stock"


@pytest.mark.parametrize(
    "request_text",
    ["book a flight from Paris to Rome next Monday", "what's the weather in Berlin tomorrow"],
)
def test_requests_for_another_domain_are_rejected(
    bookstore: SchemaRouter, request_text: str
) -> None:
    found = bookstore.retrieve(request_text, k=5)
    # flagged, never hidden by default: the caller sees the verdict and the best routes
    assert found.off_catalog and found.reason and not found.abstained
    assert found.candidates
    assert found.route_ids == _plain(bookstore).retrieve(request_text, k=5).route_ids
    hidden = bookstore.retrieve(request_text, k=5, abstain=True)
    assert hidden.abstained and hidden.candidates == () and hidden.reason == found.reason


def test_relevance_barely_depends_on_the_rest_of_the_registry(bookstore: SchemaRouter) -> None:
    # the bundled catalog beside the user's routes neither flags them nor moves their score
    # much: the one catalog-wide signal is the share of the request's words the catalog
    # knows ("find", "by": 0.17 of them alone, 0.5 beside the bundled catalog), which
    # takes 0.05 from this route's relevance (0.17 -> 0.11), well above the threshold
    mixed = SchemaRouter.from_catalog(BUNDLED_CATALOG, embedding_cache=None)
    mixed.add_openapi(BOOKSTORE, provider="bookstore")
    query = "find books by Ursula K. Le Guin"
    alone = bookstore.retrieve(query, k=1)
    beside = mixed.retrieve(query, k=1)
    assert beside.route_ids == alone.route_ids == ("bookstore/rest/search_books",)
    assert not alone.off_catalog and not beside.off_catalog
    a, b = alone.candidates[0].relevance, beside.candidates[0].relevance
    assert a is not None and b is not None
    assert b == pytest.approx(a, abs=0.08)
