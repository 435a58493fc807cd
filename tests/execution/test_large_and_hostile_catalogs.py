"""An MCP server with a catalog too large to register, one whose listing runs to many pages,
and one that answers its calls under another JSON-RPC id (the sixteenth review's left
items), each a real stdio server written without the SDK: tests/mcp_servers/catalog_server.py.
Figures (time, peak memory) are in docs/faults.md, not here."""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError, InvocationError, RegistrationError
from schemarouter.execution.invokers.mcp_listing import PageCount, tools_begun
from schemarouter.index import HashingEncoder

from servers.processes import free_port, serving

CATALOG = Path(__file__).parents[1] / "mcp_servers" / "catalog_server.py"


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)


def _add(router: SchemaRouter, *server_args: str, **options: Any) -> Any:
    command = [sys.executable, str(CATALOG), *server_args]
    return router.add_mcp_server(command, provider="cat", trusted=True, **options)


def test_a_server_past_max_tools_is_refused_saying_how_many_and_what_to_do() -> None:
    """12,000 tools in pages of 1,000 registered before (the node limit refused 100,000 only
    at tools[50000], after 10 to 32 s); now the listing stops at the twelfth page."""
    router = _router()
    try:
        with pytest.raises(RegistrationError) as caught:
            _add(router, "12000", "--page", "1000", timeout=120)
        said = str(caught.value)
        assert "lists more than max_tools (10,000) tools: 11,000 in 11 pages" in said, said
        assert "split it into servers of at most 10,000 tools each" in said
        assert "raise max_tools" in said
        assert not router.snapshot().routes
        # raised, the same server registers whole
        change = _add(router, "12000", "--page", "1000", timeout=120, max_tools=12_000)
        assert len(change.added) == 12_000
    finally:
        router.close()


def test_one_page_past_max_tools_is_refused_before_the_sdk_reads_its_tools() -> None:
    router = _router()
    started = time.monotonic()
    try:
        with pytest.raises(RegistrationError) as caught:
            _add(router, "30000", timeout=120)
    finally:
        router.close()
    said = str(caught.value)
    assert "lists 30,000 tools in one page, more than max_tools (10,000)" in said, said
    assert time.monotonic() - started < 60  # a hang's bound, not a timing


def test_a_listing_is_read_past_a_hundred_pages() -> None:
    """1,500 tools in pages of 10: the first 100 pages (1,000 tools) registered, the rest
    dropped without a word."""
    router = _router()
    try:
        change = _add(router, "1500", "--page", "10", timeout=120)
    finally:
        router.close()
    assert len(change.added) == 1500


def test_a_recorded_listing_past_max_tools_is_refused_before_it_is_compiled() -> None:
    tools = [
        {"name": f"t{i}", "inputSchema": {"type": "object"}, "description": "x"}
        for i in range(10_001)
    ]
    router = _router()
    with pytest.raises(DocumentError, match=r"10,001 tools, more than max_tools \(10,000\)"):
        router.add_mcp_tools(tools, provider="cat")
    assert len(router.add_mcp_tools(tools, provider="cat", max_tools=10_001).added) == 10_001


def test_a_reply_under_another_id_ends_the_session_and_says_so() -> None:
    """Before: the reply was dropped (the SDK logs it at DEBUG), and each of the read's three
    attempts waited for its timeout: "timed out after 5 s (after 3 attempts, 15.7 s in all)"."""
    router = _router()
    try:
        _add(router, "3", "--other-id", timeout=5)
        with pytest.raises(InvocationError) as caught:
            router.call("cat/mcp/lookup_0", {"key": "k"})
    finally:
        router.close()
    said = str(caught.value)
    assert "the server answered id 5, which no request in flight has" in said, said
    assert "the one request in flight was 4 (tools/call lookup_0)" in said
    assert "after 3 attempts" in said
    assert "timed out" not in said


def test_a_large_listing_says_how_far_it_got(caplog: pytest.LogCaptureFixture) -> None:
    """100,000 tools took a gateway two minutes to list and compile (on a loaded machine),
    and nothing was said until the end; now a line at INFO each 5,000 tools of each step."""
    router = _router()
    try:
        with caplog.at_level(logging.INFO, logger="schemarouter"):
            _add(router, "10000", "--page", "1000", timeout=120)
    finally:
        router.close()
    said = [r.getMessage() for r in caplog.records if "tools listed" in r.getMessage()]
    said += [r.getMessage() for r in caplog.records if "tools compiled" in r.getMessage()]
    assert [line.split(": ")[-1] for line in said] == [
        "5000 tools listed (5 pages)",
        "10000 tools listed (10 pages)",
        "5000 of 10000 tools compiled",
        "10000 of 10000 tools compiled",
    ]


def test_list_mcp_tools_reads_every_page_within_max_tools() -> None:
    """``list_mcp_tools`` had a loop of its own, cut at 100 pages as well: 300 tools in pages
    of 2 listed 200."""
    import asyncio

    from schemarouter.adapters.live_mcp import list_mcp_tools

    command = [sys.executable, str(CATALOG), "300", "--page", "2"]
    assert len(asyncio.run(list_mcp_tools(command, timeout=120))) == 300
    with pytest.raises(RegistrationError, match=r"lists more than max_tools \(250\) tools"):
        asyncio.run(list_mcp_tools(command, timeout=120, max_tools=250))


def test_pages_that_repeat_their_tools_end_the_listing_saying_so() -> None:
    """A server listing its first ten tools again on every page, under new cursors, was read
    to max_tools and refused as too large ("lists more than max_tools (50) tools: 60 in 6
    pages", with the advice to split it; eighteenth security review)."""
    router = _router()
    try:
        with pytest.raises(RegistrationError) as caught:
            _add(router, "1000", "--page", "10", "--repeat", timeout=60, max_tools=50)
    finally:
        router.close()
    said = str(caught.value)
    assert "page 2 lists tool 'lookup_0' again, which an earlier page listed" in said, said
    assert "split it" not in said


@pytest.mark.parametrize("sse", [False, True], ids=["json", "event"])
def test_an_http_page_past_max_tools_is_refused_as_it_arrives(sse: bool) -> None:
    """Over streamable HTTP a page of 30,000 tools was read whole, made the SDK's objects and
    then counted: "lists more than max_tools (10,000) tools: 30,000 in 1 pages" (80,000
    tools: 6.5 s and 760 MB; docs/faults.md). Now its reading stops once more than 10,000
    tools have arrived, with the stdio transport's words."""
    port = free_port()
    command = [sys.executable, str(CATALOG), "30000", "--http", str(port)]
    router = _router()
    started = time.monotonic()
    with serving([*command, "--sse"] if sse else command, port):
        try:
            with pytest.raises(RegistrationError) as caught:
                router.add_mcp_server(
                    f"http://127.0.0.1:{port}/mcp", provider="cat", trusted=True, timeout=120
                )
        finally:
            router.close()
    said = str(caught.value)
    assert "the MCP server lists at least 10," in said, said
    assert "tools in one page, more than max_tools (10,000); the page was not read" in said
    assert "split it into servers of at most 10,000 tools each" in said
    assert not router.snapshot().routes
    assert time.monotonic() - started < 60  # a hang's bound, not a timing


@pytest.mark.parametrize("sse", [False, True], ids=["json", "event"])
def test_an_http_page_within_max_tools_registers_whole(sse: bool) -> None:
    port = free_port()
    command = [sys.executable, str(CATALOG), "1200", "--http", str(port)]
    router = _router()
    with serving([*command, "--sse"] if sse else command, port):
        try:
            change = router.add_mcp_server(
                f"http://127.0.0.1:{port}/mcp", provider="cat", trusted=True, max_tools=1200
            )
            with pytest.raises(
                RegistrationError,
                match=r"lists (at least )?1,\d{3} tools in one page, more than max_tools \(999\)",
            ):
                router.add_mcp_server(
                    f"http://127.0.0.1:{port}/mcp", provider="other", trusted=True, max_tools=999
                )
        finally:
            router.close()
    assert len(change.added) == 1200


def _reply(tools: list[dict[str, Any]]) -> bytes:
    message = {"jsonrpc": "2.0", "id": 3, "result": {"nextCursor": "x", "tools": tools}}
    return json.dumps(message, indent=1).encode()


def test_a_page_is_counted_by_its_tools_not_by_its_name_keys() -> None:
    """Each tool below has three ``"name"`` keys (its own and two properties'): 40 tools
    are within a limit of 50 wherever the reply is cut, 60 are past it."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    tool = {"inputSchema": schema, "name": "t", "outputSchema": schema}
    for count in (40, 50, 60):
        reply = _reply([tool] * count)
        counted = PageCount(50, lambda body: body.decode())
        said = [counted.feed(reply[:end], whole=False) for end in range(1, len(reply), 97)]
        said.append(counted.feed(reply, whole=True))
        first = next((error for error in said if error is not None), None)
        if count <= 50:
            assert first is None
        else:
            assert first is not None
            seen, limit, _ = first["data"]["schemarouter.max_tools"]
            assert 50 < seen <= 60 and limit == 50
    assert tools_begun(_reply([tool] * 3).decode()) == (3, True)
    assert tools_begun(_reply([tool] * 3).decode()[:-40]) == (2, False)
    assert tools_begun('{"id": 1, "result": {"tools": "no list"}}') == (0, False)


def test_only_a_tools_list_request_has_its_reply_counted() -> None:
    import httpx2

    from schemarouter.execution.invokers.mcp_transport import _listing_id

    def asked(body: Any) -> Any:
        return httpx2.Request("POST", "http://127.0.0.1:9/mcp", json=body)

    assert _listing_id(asked({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})) == 7
    assert _listing_id(asked({"jsonrpc": "2.0", "id": 8, "method": "tools/call"})) is None
    assert _listing_id(asked({"jsonrpc": "2.0", "method": "tools/list"})) is None  # no id

    async def pieces() -> Any:
        yield b'{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}'

    streamed = httpx2.Request("POST", "http://127.0.0.1:9/mcp", content=pieces())
    assert _listing_id(streamed) is None  # its body is not read here: the reply goes as it is
