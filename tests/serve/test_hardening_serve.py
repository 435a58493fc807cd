"""``schemarouter serve`` on an open network and its upstream processes (issue #24, findings 6
and 20): a bearer token, no exposed bind without one, Host/Origin checks kept for the names
configured; no upstream server outlives its router, its gateway or its process."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import mcp
import pytest
import yaml
from mcp.client.stdio import StdioServerParameters

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.errors import ArgumentError, RegistrationError
from schemarouter.index import HashingEncoder
from schemarouter.serve.security import check_bind, read_token

from servers.interleave import Interleaved
from servers.processes import free_port, serving
from servers.processes import gone as _gone

SERVERS = Path(__file__).parents[1] / "mcp_servers"
HOSTILE = SERVERS / "hostile_server.py"
GATEWAY = SERVERS / "gateway_server.py"
TOKEN_ENV = "SR_TEST_SERVE_TOKEN"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _config(folder: Path, upstream: list[str]) -> Path:
    config = {
        "name": "hardened",
        "mcp_servers": [{"provider": "h", "command": upstream, "trusted": True, "timeout": 60}],
        "search": {"rerank": False},
    }
    path = folder / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


# -- 6: a bearer token, and no exposed bind without one ---------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "gateway.example.org"])
def test_a_non_loopback_bind_without_a_token_is_refused(host: str) -> None:
    """``serve --host 0.0.0.0`` listened with no authentication option and dropped the
    Host/Origin checks, with no warning."""
    with pytest.raises(ArgumentError, match="without a bearer token"):
        check_bind(host, token=None, insecure=False, allowed_hosts=["gw.test"])
    check_bind(host, token="t" * 20, insecure=False, allowed_hosts=["gw.test"])
    check_bind(host, token=None, insecure=True, allowed_hosts=["gw.test"])
    for loopback in ("127.0.0.1", "localhost", "::1"):
        check_bind(loopback, token=None, insecure=False, allowed_hosts=[])


def test_a_wildcard_bind_needs_the_names_clients_use() -> None:
    with pytest.raises(ArgumentError, match="needs the names clients use"):
        check_bind("0.0.0.0", token="t" * 20, insecure=True, allowed_hosts=[])


def test_the_cli_refuses_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCHEMAROUTER_SERVE_TOKEN", raising=False)
    pids = tmp_path / "pids"
    config = _config(tmp_path, [sys.executable, str(HOSTILE), "--pid-file", str(pids)])
    argv = ["serve", "--config", str(config), "--transport", "http", "--host", "0.0.0.0"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "[SR001]" in err and "without a bearer token" in err and "--insecure" in err
    assert _pids(pids) == []  # no upstream was started
    monkeypatch.setenv(TOKEN_ENV, "short")
    assert main([*argv, "--token-env", TOKEN_ENV]) == 1
    assert "needs at least 16" in capsys.readouterr().err


def test_a_token_comes_from_the_environment_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = secrets.token_urlsafe()
    monkeypatch.setenv("SCHEMAROUTER_SERVE_TOKEN", token)
    assert read_token() == token
    monkeypatch.delenv("SCHEMAROUTER_SERVE_TOKEN")
    assert read_token() is None
    with pytest.raises(ArgumentError, match="is not set"):
        read_token(env="SR_NO_SUCH_VARIABLE")
    path = tmp_path / "token"
    path.write_text(f"{token}\n")
    assert read_token(file=path) == token
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ArgumentError, match="FIFO"):
        read_token(file=fifo)


def _post(port: int, *, token: str | None, host: str | None = None) -> httpx.Response:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if host is not None:
        headers["Host"] = host
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers, timeout=30)


def _list_tools(port: int, token: str, host: str | None = None) -> list[str]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> list[str]:
        headers = {"Authorization": f"Bearer {token}"}
        if host is not None:
            headers["Host"] = host
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            mcp.Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            ) as client,
        ):
            return sorted(t.name for t in (await client.list_tools()).tools)

    return asyncio.run(run())


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_the_bearer_token_and_host_checks_hold_on_a_real_server(
    host: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = secrets.token_urlsafe()
    monkeypatch.setenv(TOKEN_ENV, token)
    config = _config(tmp_path, [sys.executable, str(HOSTILE)])
    port = free_port()
    command = [sys.executable, str(GATEWAY), str(config), "http", str(port)]
    command += ["--host", host, "--allowed-host", "gw.test", "--token-env", TOKEN_ENV]
    with serving(command, port):
        assert _post(port, token=None).status_code == 401
        assert _post(port, token=("y" if token[0] == "x" else "x") + token[1:]).status_code == 401
        assert _post(port, token=token[:-1]).status_code == 401
        refused = _post(port, token=None)
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert _post(port, token=token).status_code == 200
        # Host/Origin checks stay on: a configured name passes, another is refused
        assert _post(port, token=token, host=f"gw.test:{port}").status_code == 200
        assert _post(port, token=token, host="evil.example").status_code in (400, 403, 421)
        tools = ["call_tool", "describe_tool", "search_tools"]
        assert _list_tools(port, token) == tools
        assert _list_tools(port, token, host=f"gw.test:{port}") == tools


# -- 20: no upstream process outlives its router, gateway or process ----------------------


def test_a_server_that_never_answers_initialize_is_stopped(tmp_path: Path) -> None:
    """Left running after the RegistrationError, after router.close() and after the
    process exited. The 15 s leave a loaded machine time to start the server (and write its
    pid); the process it left running would never end."""
    pids = tmp_path / "pids"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
    command = [sys.executable, str(HOSTILE), "--mute", "--pid-file", str(pids)]
    started = time.monotonic()
    with pytest.raises(RegistrationError, match="did not list its tools within 15 s"):
        router.add_mcp_server(command, provider="m", timeout=15)
    assert time.monotonic() - started < 15 + 30
    (pid,) = _pids(pids)
    assert _gone(pid, within=10)  # stopped with the error, before router.close()
    router.close()


def test_router_close_stops_its_servers(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
    router.add_mcp_server(
        [sys.executable, str(HOSTILE), "--pid-file", str(pids)], provider="h", trusted=True
    )
    (pid,) = _pids(pids)
    assert not _gone(pid, within=0.2)
    router.close()
    assert _gone(pid, within=10)  # left running, it would never end


def test_add_mcp_server_whose_provider_another_thread_removed_stops_its_server(
    tmp_path: Path,
) -> None:
    """``remove_provider`` between ``add_mcp_server``'s registration and its binding made it
    raise "RegistryLookupError: no route ... is registered" after it had registered, and
    left its server running: no route was bound to the session, so nothing closed it."""
    pids = tmp_path / "pids"
    router = Interleaved()
    router.between = lambda: router.remove_provider("h")
    change = router.add_mcp_server(
        [sys.executable, str(HOSTILE), "--pid-file", str(pids)], provider="h", trusted=True
    )
    assert "h/mcp/pid" in change.added
    assert len(router.snapshot()) == 0 and router.bindings() == {}
    (pid,) = _pids(pids)
    assert _gone(pid, within=5)


SCRIPT = """
import sys
from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
router.add_mcp_server(sys.argv[1:], provider="h", trusted=True)
print(router.call("h/mcp/pid", {}).output["pid"], flush=True)
# exits without router.close()
"""


def test_a_process_that_exits_without_closing_leaves_no_server(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = [sys.executable, "-c", SCRIPT, sys.executable, str(HOSTILE)]
    done = subprocess.run(
        [*command, "--pid-file", str(pids)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (pid,) = _pids(pids)
    assert int(done.stdout.split()[0]) == pid
    assert _gone(pid, within=5)


def test_a_gateway_that_ends_leaves_no_upstream(tmp_path: Path) -> None:
    """The gateway run left one orphan too."""
    pids = tmp_path / "pids"
    config = _config(tmp_path, [sys.executable, str(HOSTILE), "--pid-file", str(pids)])

    async def session() -> Any:
        params = StdioServerParameters(command=sys.executable, args=[str(GATEWAY), str(config)])
        async with mcp.Client(params) as client:
            called = await client.call_tool("call_tool", {"name": "h__mcp__pid"})
            return json.loads(called.content[0].text)["output"]["pid"]

    upstream = asyncio.run(session())  # the client closes the gateway's stdin: it ends
    assert _pids(pids) == [upstream]
    assert _gone(upstream, within=15)
