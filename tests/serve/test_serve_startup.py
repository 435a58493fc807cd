"""``serve`` answers at once and its upstream servers join when ready (issue #25): they
connect all at once in the background, a slow one never holds up the first answer or the
others (a search waits ``search.upstream_wait`` seconds for them, then says which are still
connecting), and one that fails is named with why."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import mcp
import yaml
from mcp.client.stdio import StdioServerParameters

SERVERS = Path(__file__).parents[1] / "mcp_servers"
NOTES = SERVERS / "notes_server.py"
GATEWAY = SERVERS / "gateway_server.py"


def _slow(gate: Path) -> list[str]:
    """The notes server, started only once ``gate`` exists (the test opens it when it has
    seen what it wants to see while the server is still starting; no race with the clock)."""
    code = (
        "import os, runpy, sys, time\n"
        f"deadline = time.monotonic() + 120\n"
        f"while not os.path.exists({str(gate)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
        f"sys.argv = [{str(NOTES)!r}]\n"
        f"runpy.run_path({str(NOTES)!r}, run_name='__main__')\n"
    )
    return [sys.executable, "-c", code]


def test_the_first_answer_does_not_wait_for_upstreams(tmp_path: Path) -> None:
    gate = tmp_path / "slow-may-start"
    config = {
        "mcp_servers": [
            {"provider": "fast", "command": [sys.executable, str(NOTES)]},
            {"provider": "slow", "command": _slow(gate)},
            {"provider": "broken", "command": [sys.executable, "-c", "raise SystemExit(3)"]},
        ],
        "allow": {"write": ["fast/mcp/*", "slow/mcp/*"]},
        "search": {"rerank": False, "upstream_wait": 1},  # a search waits 1 s, not 10
    }
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))

    async def run() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        started = time.monotonic()
        params = StdioServerParameters(
            command=sys.executable, args=[str(GATEWAY), str(path), "stdio", "0", "--background"]
        )
        async with mcp.Client(params) as client:
            # answered while the slow upstream cannot even start (a gateway that waited
            # for it would never answer: the timeout fails the test instead of hanging)
            listed = await asyncio.wait_for(client.list_tools(), timeout=60)
            seen["tools"] = sorted(t.name for t in listed.tools)
            while True:  # the fast upstream joins while the slow one still connects
                res = await client.call_tool("search_tools", {"query": "search research notes"})
                answer = res.structured_content
                assert answer is not None, f"search_tools answered an error: {res.content}"
                names = {t["name"] for t in answer["tools"]}
                if "fast__mcp__search_notes" in names or time.monotonic() - started > 60:
                    seen["fast_joined"] = (names, answer.get("connecting", ""))
                    break
                await asyncio.sleep(0.2)
            gate.touch()  # now the slow upstream starts, and joins when it has listed
            while True:
                res = await client.call_tool("search_tools", {"query": "search research notes"})
                answer = res.structured_content
                assert answer is not None, f"search_tools answered an error: {res.content}"
                names = {t["name"] for t in answer["tools"]}
                if "slow__mcp__search_notes" in names or time.monotonic() - started > 90:
                    seen["slow_joined"] = (names, answer)
                    break
                await asyncio.sleep(0.5)
        return seen

    seen = asyncio.run(run())
    assert seen["tools"] == ["call_tool", "describe_tool", "search_tools"]
    names, connecting = seen["fast_joined"]
    assert "slow__mcp__search_notes" not in names
    assert "still connecting (slow)" in connecting
    names, answer = seen["slow_joined"]
    assert {"fast__mcp__search_notes", "slow__mcp__search_notes"} <= names
    assert "connecting" not in answer
    assert "exited with status 3 before it listed its tools" in answer["unavailable"]["broken"]


def _binding_later(seconds: float, wait: float) -> tuple[Any, Any]:
    """A gateway whose notes upstream has registered its tools (a real listing of the real
    server) and binds them ``seconds`` later, as ``connect_server`` does once it has embedded
    them; a call waits ``wait`` seconds for it (``search.upstream_wait``)."""
    from schemarouter import SchemaRouter
    from schemarouter.execution.invokers.mcp import MCPConnection, bind_mcp_session
    from schemarouter.index import HashingEncoder
    from schemarouter.serve import Gateway, GatewayConfig

    config = GatewayConfig(
        mcp_servers=[{"provider": "notes", "command": [sys.executable, str(NOTES)]}],
        search={"upstream_wait": wait},
    )
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    conn = MCPConnection([sys.executable, str(NOTES)]).open()
    router.add_mcp_tools(conn.list_tools(), provider="notes", trusted=True)
    gateway = Gateway(router, config)

    def connect(spec: Any) -> None:
        time.sleep(seconds)
        bind_mcp_session(router, conn, provider="notes")

    gateway.upstreams.start(config.mcp_servers, connect)
    return gateway, conn


def test_a_call_made_while_its_upstream_binds_waits_for_it() -> None:
    """A call right after the gateway started found the tool registered but not bound yet
    and failed with "not bound ... Bind it (router.bind ...)", a Python call the agent
    cannot make (user trial S #4); a search waited for the upstream."""
    gateway, conn = _binding_later(1.0, wait=30)
    try:
        result = gateway.call("notes__mcp__search_notes", {"query": "band gap"})
        assert result.ok and result.output["total"] == 1
    finally:
        gateway.close()
        conn.close()


def test_a_call_whose_upstream_is_still_connecting_says_to_call_again() -> None:
    from schemarouter.errors import PolicyError

    gateway, conn = _binding_later(3.0, wait=0.2)
    try:
        try:
            gateway.call("notes__mcp__search_notes", {"query": "band gap"})
        except PolicyError as refused:
            assert "cannot run yet" in refused.what and "still connecting" in refused.what
            assert refused.hint == "Call it again in a few seconds"
            assert "router.bind" not in str(refused)
        else:
            raise AssertionError("a tool whose upstream is still connecting ran")
    finally:
        gateway.close()
        conn.close()


def test_an_upstream_down_at_start_joins_once_it_is_up() -> None:
    """A server that was down when the gateway started never joined, even once it was up,
    until the gateway restarted (user trial S #7). It is tried again after each of
    ``retry_delays`` (the last repeats) until it joins; meanwhile searches name it as
    unavailable, with when it is tried again, and never wait for it."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder
    from schemarouter.serve import Gateway, GatewayConfig
    from schemarouter.serve.sources import connect_server

    from servers.processes import free_port, serving

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    config = GatewayConfig(
        mcp_servers=[{"provider": "notes", "url": url, "timeout": 5, "trusted": True}],
        search={"upstream_wait": 0, "rerank": False},
    )
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    gateway = Gateway(router, config)
    gateway.upstreams.retry_delays = (0.3,)
    gateway.upstreams.start(config.mcp_servers, lambda spec: connect_server(router, spec))
    try:
        assert gateway.upstreams.wait(30)  # the first attempt ended: nothing listens
        (why,) = gateway.upstreams.failed().values()
        assert "trying again every 0.3 s" in why
        assert "notes" in gateway.search("search my notes")["unavailable"]
        with serving([sys.executable, str(NOTES), "http", str(port)], port):
            deadline = time.monotonic() + 60
            while gateway.upstreams.failed() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not gateway.upstreams.failed()
            names = [t["name"] for t in gateway.search("search my notes")["tools"]]
            assert "notes__mcp__search_notes" in names
            assert gateway.call("notes__mcp__search_notes", {"query": "band gap"}).ok
    finally:
        gateway.close()
    assert not any(t.is_alive() for t in gateway.upstreams._threads)  # close stops retrying
