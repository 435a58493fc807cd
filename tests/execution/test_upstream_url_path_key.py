"""A hosted MCP server's key in its URL's path is hidden as one in its query is (trial X1).

Hosted MCP servers give each user a URL with the key in its path
(``https://actions.zapier.com/mcp/sk-ak-KEY/sse``). Its label (the routes' ``server``, the
saved index, the log) and the redactor of the HTTP client's request log knew a URL's
userinfo and query only, so the key was shown, and logged at INFO with every request."""

from __future__ import annotations

import logging

import pytest

from schemarouter import SchemaRouter
from schemarouter.execution.invokers.mcp import MCPConnection
from schemarouter.index import HashingEncoder
from schemarouter.placement import command_secrets, shown_command
from tests.servers.loopback import LoopbackServer, Request, Response

KEY = "sk-ak-PathKey0123456789abcdef"


@pytest.mark.parametrize(
    ("server", "shown"),
    [
        (
            f"https://actions.zapier.com/mcp/{KEY}/sse",
            "https://actions.zapier.com/mcp/[redacted]/sse",
        ),
        (
            ["npx", "mcp-remote", f"https://mcp.example.com/s/{KEY}/mcp"],
            "npx mcp-remote 'https://mcp.example.com/s/[redacted]/mcp'",
        ),
    ],
)
def test_a_key_in_a_server_urls_path_is_redacted(server: str | list[str], shown: str) -> None:
    assert shown_command(server) == shown
    assert KEY in command_secrets(server)
    assert KEY not in repr(MCPConnection(server))


@pytest.mark.parametrize(
    "url", ["https://mcp.example.com/v1/mcp", "https://h/2024-11-05/mcp", "https://h/a_b_c_d/mcp"]
)
def test_a_plain_path_is_shown(url: str) -> None:
    assert shown_command(url) == url
    assert command_secrets(url) == []


def test_a_path_key_is_in_no_log_line_or_error(caplog: pytest.LogCaptureFixture) -> None:
    def refuse(request: Request) -> Response:
        return Response(404, b"not here", {"content-type": "text/plain"})

    router = SchemaRouter(encoder=HashingEncoder(64), embedding_cache=None, abstention=None)
    with LoopbackServer(refuse) as server, caplog.at_level(logging.DEBUG):
        with pytest.raises(Exception) as failed:
            router.add_mcp_server(f"{server.base_url}/mcp/{KEY}/mcp", provider="hosted")
        assert server.requests, "the server was reached"
    router.close()
    assert KEY not in str(failed.value)
    assert KEY not in caplog.text
