"""A user's own library API: an OpenAPI document whose routes need identifiers other routes
return (``GET /author/{author_id}/books`` needs what ``GET /search/author`` lists), and an app
that answers it on loopback.

``library_openapi(base_url)`` is the document; ``LibraryApp`` answers its read routes from a
few authors and books (``/search/author?query=`` matches names case-insensitively; an
author the app knows nothing of lists nothing). ``LibraryApp.author_ids`` may be set to
``"text"`` to answer with ids as strings (a server that breaks the document's integers).
"""

from __future__ import annotations

import re
from typing import Any

from servers.loopback import Request, Response, json_response


def listing(item: dict[str, Any], container: str = "results") -> dict[str, Any]:
    return {
        "200": {
            "description": "ok",
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {container: {"type": "array", "items": item}},
                    }
                }
            },
        }
    }


AUTHOR = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
BOOK = {"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}
GENRE = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}


def get(op: str, summary: str, responses: dict[str, Any], params: list[Any]) -> dict[str, Any]:
    return {
        "get": {"operationId": op, "summary": summary, "parameters": params, "responses": responses}
    }


def search(op: str, summary: str, item: dict[str, Any]) -> dict[str, Any]:
    """A lookup: a GET taking a required text ``query``, listing ``results.*``."""
    text = {"name": "query", "in": "query", "required": True, "schema": {"type": "string"}}
    return get(op, summary, listing(item), [text])


def path_parameter(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "integer"}}


def library_openapi(base_url: str = "https://library.example.org") -> dict[str, Any]:
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Library", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/search/author": search("searchAuthors", "Search authors by name", AUTHOR),
            "/author/popular": get("popularAuthors", "The most read authors", listing(AUTHOR), []),
            "/author/{author_id}/books": get(
                "authorBooks",
                "Books written by an author",
                listing(BOOK),
                [path_parameter("author_id")],
            ),
            "/books/{id}": get(
                "getBook",
                "A book's details: title, pages, publisher",
                {"200": {"description": "ok", "content": {"application/json": {"schema": BOOK}}}},
                [path_parameter("id")],
            ),
            "/author/{author_id}/awards": get(
                "authorAwards",
                "Literary awards an author won",
                listing(GENRE),
                [path_parameter("author_id")],
            ),
            "/genre/list": get(
                "genres", "Every genre of the library", listing(GENRE, "genres"), []
            ),
        },
    }
    document["paths"]["/author"] = {
        "post": {
            "operationId": "addAuthor",
            "summary": "Add an author",
            "responses": {"201": document["paths"]["/author/popular"]["get"]["responses"]["200"]},
        }
    }
    return document


AUTHORS = {7: "Ursula K. Le Guin", 12: "Stanisław Lem"}
BOOKS = {7: [{"id": 70, "title": "The Dispossessed"}, {"id": 71, "title": "The Lathe of Heaven"}]}


class LibraryApp:
    def __init__(self) -> None:
        self.author_ids = "integer"

    def _author(self, key: int) -> dict[str, Any]:
        return {"id": str(key) if self.author_ids == "text" else key, "name": AUTHORS[key]}

    def __call__(self, request: Request) -> Response:
        if request.path == "/search/author":
            text = (request.arg("query") or "").lower()
            found = [
                self._author(k) for k, name in AUTHORS.items() if text and text in name.lower()
            ]
            return json_response({"results": found})
        if request.path == "/author/popular":
            return json_response({"results": [self._author(k) for k in AUTHORS]})
        match = re.fullmatch(r"/author/(\d+)/books", request.path)
        if match:
            return json_response({"results": BOOKS.get(int(match[1]), [])})
        return json_response({"error": "not found"}, status=404)
