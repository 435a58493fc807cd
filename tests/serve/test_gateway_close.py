"""Closing the gateway never waits for an upstream server still connecting (user trial S:
Ctrl-C of ``schemarouter serve`` took about 30 s, the upstreams' timeout and 5 s, while one
server had not answered ``initialize``). Connections still opening are cancelled, a stdio
server the gateway started is stopped, a server waiting to be tried again is not tried, and
the log says which; ``serve`` ends on SIGINT or SIGTERM, over stdio too, leaving no upstream
process behind."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from servers.processes import free_port, gone, wait_for_port

SERVERS = Path(__file__).parents[1] / "mcp_servers"
NOTES = SERVERS / "notes_server.py"
GATEWAY = SERVERS / "gateway_server.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")


def _slow_server(pids: Path) -> list[str]:
    """The notes MCP server, started after a 10-minute sleep (a server slow to start: it
    reads nothing meanwhile, so its stdin ending does not stop it); it writes its process
    id to ``pids`` first."""
    code = (
        "import os, runpy, sys, time\n"
        f"with open({str(pids)!r}, 'a') as f: f.write(f'{{os.getpid()}}\\n')\n"
        "time.sleep(600)\n"
        f"sys.argv = [{str(NOTES)!r}]\n"
        f"runpy.run_path({str(NOTES)!r}, run_name='__main__')\n"
    )
    return [sys.executable, "-c", code]


def _pids(path: Path, within: float = 60.0) -> list[int]:
    """The process ids ``path`` lists, once it lists one (a server started)."""
    deadline = time.monotonic() + within
    while not (path.exists() and path.read_text().split()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def test_closing_the_gateway_cancels_upstreams_still_connecting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stdio server slow to start (it answers ``initialize`` in 10 minutes), an HTTP port that never answers,
    and a URL nothing listens on (waiting to be tried again): ``Gateway.close()`` returns in
    about the second a stdio server takes to stop, not the upstreams' 20 s timeout."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder
    from schemarouter.serve import Gateway, GatewayConfig
    from schemarouter.serve.sources import connect_server

    pids = tmp_path / "pids"
    # a port that takes connections (the kernel's backlog) and never answers a request
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    mute_port, refused_port = silent.getsockname()[1], free_port()
    config = GatewayConfig(
        mcp_servers=[
            {
                "provider": "stuck",
                "command": _slow_server(pids),
                "timeout": 120,
            },
            {"provider": "silent", "url": f"http://127.0.0.1:{mute_port}/mcp", "timeout": 120},
            {"provider": "down", "url": f"http://127.0.0.1:{refused_port}/mcp", "timeout": 120},
        ],
        search={"upstream_wait": 0, "rerank": False},
    )
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    gateway = Gateway(router, config)
    gateway.upstreams.retry_delays = (30.0,)
    with silent:
        gateway.upstreams.start(config.mcp_servers, lambda spec: connect_server(router, spec))
        (pid,) = _pids(pids)  # the stdio server runs, and does not answer
        deadline = time.monotonic() + 30
        while "down" not in gateway.upstreams.failed() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(gateway.upstreams.connecting()) == {"stuck", "silent"}
        assert "trying again every 30 s" in gateway.upstreams.failed()["down"]
        time.sleep(0.3)  # both attempts are well under way
        with caplog.at_level(logging.WARNING, logger="schemarouter.serve"):
            before = len(caplog.records)
            started = time.monotonic()
            gateway.close()
            took = time.monotonic() - started
            # moments; waiting for the upstreams would take their 120 s timeout
            assert took < 15, f"close took {took:.1f} s"
            assert gateway.upstreams.join(15)  # no thread left trying
    closing = [r.getMessage() for r in caplog.records[before:]]
    assert gone(pid, within=10)  # the stdio server was stopped, not left running
    assert sorted(m for m in closing if "gateway closing" in m) == [
        "gateway closing: upstream down had not connected: it is not tried again",
        "gateway closing: upstream silent was still connecting: cancelled",
        "gateway closing: upstream stuck was still connecting: cancelled (its server "
        "process was stopped)",
    ]
    # the cancelled attempts are not reported as failures to connect, to be tried again
    assert not any("did not connect" in m for m in closing)


@pytest.mark.parametrize(
    ("transport", "signum"),
    [("http", signal.SIGINT), ("stdio", signal.SIGTERM), ("stdio", signal.SIGINT)],
)
def test_serve_ends_on_a_signal_while_an_upstream_connects(
    tmp_path: Path, transport: str, signum: int
) -> None:
    """``serve`` (the shipped ``run_server``) with a stdio upstream slow to start: a SIGINT over HTTP waited for it (the trial's 29 s); over stdio a
    SIGTERM ended the gateway at once but left the upstream server running (orphaned), and
    a SIGINT closed the gateway but the process waited for its stdin to end."""
    pids = tmp_path / "pids"
    upstream = _slow_server(pids)
    config = tmp_path / "gateway.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "mcp_servers": [{"provider": "stuck", "command": upstream, "timeout": 120}],
                "search": {"rerank": False},
            }
        )
    )
    port = free_port()
    command = [sys.executable, str(GATEWAY), str(config), transport, str(port), "--background"]
    log = tmp_path / "gateway.log"
    with log.open("wb") as err:
        gateway = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "COLUMNS": "400"},  # the SDK's log lines, unwrapped
        )
        try:
            if transport == "http":
                wait_for_port(port, gateway)
            (pid,) = _pids(pids)
            time.sleep(0.5)  # the gateway waits for initialize
            started = time.monotonic()
            gateway.send_signal(signum)
            stopped = gone(pid, within=30)  # the gateway waited 120 s (its timeout)
            took = time.monotonic() - started
            # then the process ends (its interpreter's own exit takes seconds on a busy
            # machine); over stdio it waited for its stdin to end
            with contextlib.suppress(subprocess.TimeoutExpired):  # said below
                gateway.wait(timeout=60)
            ended = gateway.poll() is not None
        finally:
            gateway.kill()
            gateway.wait()
            assert gateway.stdin is not None
            gateway.stdin.close()
    if not gone(pid, within=0.1):  # do not leave it to the next test
        subprocess.run(["kill", "-9", str(pid)], check=False)
    name = signal.Signals(signum).name
    assert stopped, f"the upstream server outlived the gateway's {name} by {took:.1f} s"
    assert ended, f"the gateway did not end in 60 s after {name}"
    assert "upstream stuck was still connecting: cancelled" in log.read_text(errors="replace")
