"""What the log says of a failed call (trial X3): at INFO and WARNING (``serve``'s default)
the route, the error's code and its own words up to the first ": " ("HTTP 400", "the output
breaks ..."); never what follows, which quoted the server's error body (echoing the request's
arguments, holding output) or the value that broke the output schema. DEBUG has it all, for
an operator who asks. A real server on loopback."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

SECRET_BODY = '{"error": "no note ARG-SECRET-in-body; balance OUTPUT-SECRET"}'


def _app(request: Request) -> Response:
    if request.path.startswith("/notes"):
        return Response(400, SECRET_BODY.encode(), {"Content-Type": "application/json"})
    return json_response({"count": "VALUE-SECRET-not-an-int"})


def _document(base: str) -> dict[str, Any]:
    count = {"type": "object", "properties": {"count": {"type": "integer"}}}
    answer = {"200": {"description": "ok", "content": {"application/json": {"schema": count}}}}
    query = [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "notes", "version": "1"},
        "servers": [{"url": base}],
        "paths": {
            "/notes": {"get": {"operationId": "getNote", "parameters": query, "responses": answer}},
            "/count": {"get": {"operationId": "getCount", "responses": answer}},
        },
    }


@pytest.mark.parametrize("level", [logging.INFO, logging.DEBUG])
def test_a_failed_calls_log_holds_no_server_text_above_debug(
    level: int, caplog: pytest.LogCaptureFixture
) -> None:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_document(server.base_url), provider="notes")
        with caplog.at_level(level, logger="schemarouter"):
            for route, arguments in (
                ("notes/rest/get_note", {"q": "ARG-SECRET-in-query"}),
                ("notes/rest/get_count", {}),
            ):
                try:
                    result = router.call(route, arguments)
                except SchemaRouterError:
                    continue
                assert not result.ok
    above_debug = "\n".join(r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG)
    assert "notes/rest/get_note" in above_debug and "HTTP 400" in above_debug
    for secret in ("ARG-SECRET", "OUTPUT-SECRET", "VALUE-SECRET"):
        assert secret not in above_debug, above_debug
    if level == logging.DEBUG:  # asked for: the server's words are there
        assert "OUTPUT-SECRET" in caplog.text
