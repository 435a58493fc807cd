"""A document fetched from a URL that carries a credential (``https://user:pw@host/...``,
``?api_key=...``) is named without it: the name is its routes' source and document, written
into a saved index's registry.json.gz and a catalog export and shown in errors (trial W1:
both kept the password and the key)."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response

SECRETS = ("docpass-8841", "doc-key-8842")


def _document(request: Request) -> Response:
    if request.path == "/missing.json":
        return json_response({"error": "no"}, status=404)
    return json_response(
        {
            "openapi": "3.0.3",
            "info": {"title": "Helpdesk", "version": "1"},
            "servers": [{"url": "/api"}],
            "paths": {
                "/tickets": {
                    "get": {
                        "operationId": "listTickets",
                        "summary": "List tickets",
                        "responses": {"200": {"description": "ok"}},
                    }
                }
            },
        }
    )


def _with_secrets(server: LoopbackServer, path: str) -> str:
    host = server.base_url.split("://", 1)[1]
    return f"http://docuser:{SECRETS[0]}@{host}{path}?api_key={SECRETS[1]}&v=1"


def test_a_document_urls_credential_is_in_no_route_export_or_saved_registry(
    tmp_path: Path,
) -> None:
    with LoopbackServer(_document) as server:
        router = SchemaRouter(
            encoder=HashingEncoder(64), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(_with_secrets(server, "/openapi.json"))
        exported = router.export_catalog(tmp_path / "catalog.json").read_text()
        router.build_index()
        router.index.save(tmp_path / "index")
        (route,) = router.snapshot()
        shown: Any = (route.source, route.access.document, route.access.base_url)
    saved = gzip.decompress(next((tmp_path / "index").glob("*/registry.json.gz")).read_bytes())
    for secret in SECRETS:
        assert secret not in exported and secret not in saved.decode()
        assert secret not in str(shown)
    assert route.source == f"{server.base_url}/openapi.json"


def test_a_failed_fetch_names_the_url_without_its_credential() -> None:
    with LoopbackServer(_document) as server, pytest.raises(DocumentError) as info:
        SchemaRouter(encoder=HashingEncoder(64)).add_openapi(_with_secrets(server, "/missing.json"))
    assert "HTTP 404" in str(info.value)
    for secret in SECRETS:
        assert secret not in str(info.value)
