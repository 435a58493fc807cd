"""A read of one thing the request names by its id never reads a list's first entry instead
(trial 13).

"도서 BK-56 대출 가능한지 알려줘" (is book BK-56 available?) on a library API bound BK-56 to
nothing (도서 was in no glossary), so ``get_book`` was chained after ``search_books`` and read
the first book listed: ``GET /books/BK-55``, an answer about another book, with no error.
Now a read's id is not taken from a list where the request names an id of that thing, or of
no thing, that no step takes: the id stays missing and the warning says how to give it; where
the id binds (도서 glosses as book), ``GET /books/BK-56`` is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from helpers import ok, page, path_id
from servers.loopback import LoopbackServer, Request, Response, json_response

_S = {"type": "string"}
_BOOK = {"type": "object", "properties": {"id": _S, "title": _S, "available_copies": _S}}


def _app(request: Request) -> Response:
    if request.path == "/books":
        return json_response({"items": [{"id": "BK-55", "title": "A"}, {"id": "BK-56"}]})
    return json_response({"id": request.path.split("/")[2], "title": "B"})


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(_app) as running:
        yield running


def _router(server: LoopbackServer, described: str = "Book id, e.g. BK-55") -> SchemaRouter:
    book_id = [{**path_id("book_id")[0], "description": described}]
    paths: dict[str, Any] = {
        "/books": {"get": {"operationId": "searchBooks", "summary": "도서 검색",
                           "description": "Search the catalogue by title words or author.",
                           "parameters": [{"name": "q", "in": "query", "schema": _S}],
                           "responses": page(_BOOK)}},
        "/books/{book_id}": {"get": {"operationId": "getBook", "summary": "Get a book",
                                     "description": "도서 상세: title, author, available copies.",
                                     "parameters": book_id, "responses": ok(_BOOK)}},
    }  # fmt: skip
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": server.base_url}],
        "paths": paths,
    }
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="lib")
    return router


def _sent(server: LoopbackServer, router: SchemaRouter, text: str) -> list[str]:
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text), max_calls=3)
    if plan.missing_arguments:
        with pytest.raises(ParameterValidationError):
            router.execute(plan)
    else:
        router.execute(plan)
    return [r.path for r in server.requests]


@pytest.mark.parametrize(
    "text",
    ["Tell me about book BK-56", "도서 BK-56 대출 가능한지 알려줘", "도서 BK-56 정보 알려줘"],
)
def test_the_id_named_is_read(server: LoopbackServer, text: str) -> None:
    assert _sent(server, _router(server), text) == ["/books/BK-56"]


@pytest.mark.parametrize("text", ["Is BK-56 available?", "책 BK-56 알려줘"])
def test_an_id_bound_to_nothing_is_not_read_as_the_first_listed(
    server: LoopbackServer, text: str
) -> None:
    router = _router(server, "Book id")  # no example: the id written bare binds to nothing
    plan = router.plan(PlanRequest(query=text), max_calls=3)
    assert plan.route_ids == ("lib/rest/get_book",)
    assert plan.missing_arguments == {"lib/rest/get_book": ("book_id",)}
    assert any("{'book_id': 'BK-56'}" in w for w in plan.warnings), plan.warnings
    assert "/books/BK-55" not in _sent(server, router, text)


def test_the_first_entry_asked_is_still_read(server: LoopbackServer) -> None:
    assert _sent(server, _router(server), "Tell me about the first book") == [
        "/books",
        "/books/BK-55",
    ]


@pytest.mark.parametrize("text", ["Is BK-56 available?", "책 BK-56 알려줘"])
def test_an_id_of_the_shape_its_description_shows_is_read(
    server: LoopbackServer, text: str
) -> None:
    """ "Book id, e.g. BK-55" shows what a book's id looks like: BK-56 written bare is one
    (user trial 20; ``planning/example_ids.py``)."""
    assert _sent(server, _router(server), text) == ["/books/BK-56"]
