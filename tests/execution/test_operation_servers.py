"""An operation's own ``servers`` (or its path item's) say where it is sent (user trial M).

OpenAPI 3 lets a path item or an operation name other servers than the document's (an
upload host beside the API host, a region per operation). They were read from the
document's first server only, so such an operation went, silently, to the wrong server.
"""

from __future__ import annotations

from typing import Any

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, ok

OK = {"200": {"description": "", "content": {"application/json": {"schema": {"type": "object"}}}}}


def _document(base: str) -> dict[str, Any]:
    zone = {"default": "z1", "enum": ["z1", "z2"]}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Split", "version": "1"},
        "servers": [{"url": f"{base}/main"}],
        "paths": {
            "/a": {"get": {"operationId": "getA", "responses": OK}},
            "/files": {
                "servers": [{"url": f"{base}/uploads"}],
                "get": {"operationId": "listFiles", "responses": OK},
                "post": {
                    "operationId": "addFile",
                    "servers": [{"url": f"{base}/{{zone}}/write", "variables": {"zone": zone}}],
                    "responses": OK,
                },
            },
        },
    }


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def test_an_operation_is_sent_to_its_own_servers(server: LoopbackServer) -> None:
    router = _router()
    router.add_openapi(_document(server.base_url))
    server.reset()
    router.call("split/rest/get_a", {})
    router.call("split/rest/list_files", {})
    router.call("split/rest/add_file", {}, allow_effects=["write"], approve=lambda r, a: True)
    assert server.paths() == ["/main/a", "/uploads/files", "/z1/write/files"]
    snapshot = router.snapshot()
    assert snapshot.route("split/rest/list_files").access.base_url == f"{server.base_url}/uploads"


def test_base_url_given_still_wins_over_every_server(server: LoopbackServer) -> None:
    router = _router()
    router.add_openapi(_document("https://api.example.com"), base_url=f"{server.base_url}/mine")
    server.reset()
    router.call("split/rest/get_a", {})
    router.call("split/rest/list_files", {})
    assert server.paths() == ["/mine/a", "/mine/files"]


def test_an_operation_sent_to_another_host_says_so_with_its_credentials(
    server: LoopbackServer,
) -> None:
    """User trial X3: a document served at one host whose one operation names another
    server sent the document's API key there, and registration said nothing: a reviewer of
    the document's ``servers`` could not know. The registration's warnings now name it."""
    document = _document(server.base_url)
    document["components"] = {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}
    }
    document["security"] = [{"key": []}]
    with LoopbackServer(ok) as other:
        document["paths"]["/a"]["get"]["servers"] = [{"url": f"{other.base_url}/x"}]
        change = _router().add_openapi(document)
        origin = other.base_url.lower()
        named = [w for w in change.warnings if origin in w]
        assert len(named) == 1, change.warnings
        assert named[0].startswith("paths./a.get.servers[0].url: ")
        assert "credentials" in named[0] and "base_url=" in named[0]
    # the same host, another path (the /uploads and /{zone}/write servers): nothing said
    assert not [w for w in change.warnings if "uploads" in w or "write" in w]
