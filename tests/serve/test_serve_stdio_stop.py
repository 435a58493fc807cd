"""SIGTERM of ``schemarouter serve`` over stdio while a call is under way (user trial X4): a
real ``serve`` process, its MCP client speaking JSON-RPC lines on its stdin and stdout, and
a real slow upstream API on loopback that records the writes it ran."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter.serve.stdio_drain import Drain

from servers.serve_process import MODELS, SERVE, build
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")

ALERT_TOOL = "weather__rest__create_alert"


@contextmanager
def slow_alerts(seconds: float) -> Iterator[tuple[str, threading.Event, list[Any]]]:
    """An alerts API that answers a POST after ``seconds``; the event is set when one came,
    the list holds the bodies it answered (the writes it ran)."""
    came, ran = threading.Event(), []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            came.set()
            time.sleep(seconds)
            data = json.dumps({"id": 7, "status": "created"}).encode()
            self.send_response(201)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            ran.append(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", came, ran
    finally:
        server.shutdown()
        server.server_close()


class StdioClient:
    """JSON-RPC lines to ``process``'s stdin; its stdout's lines in a queue."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process, self.lines = process, queue.Queue[Any]()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.process.stdin.flush()

    def answers(self, seconds: float = 60) -> dict[Any, Any]:
        """Every answer until stdout ends, by id."""
        found: dict[Any, Any] = {}
        deadline = time.monotonic() + seconds
        while (line := self.lines.get(timeout=max(0.1, deadline - time.monotonic()))) is not None:
            found[line.get("id")] = line
        return found


def logged(log: Path, text: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while text not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.05)


def test_sigterm_over_stdio_lets_the_call_under_way_finish_and_refuses_new_ones(
    tmp_path: Path,
) -> None:
    """Before, the process ended at the signal: the upstream ran the write and the client
    never got its answer; a request sent after the signal got nothing either."""
    with slow_alerts(1.5) as (base_url, came, ran):
        source = tmp_path / "weather.yaml"
        source.write_text(yaml.safe_dump(weather_openapi(base_url)))
        build(source, tmp_path / "index")
        argv = [sys.executable, "-c", SERVE, "serve", "--openapi", f"weather={source}"]
        argv += ["--index", str(tmp_path / "index"), "--allow-write", ALERT_TOOL, *MODELS]
        log = tmp_path / "serve.log"
        with log.open("wb") as stderr:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
            )
        try:
            client = StdioClient(process)
            hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
            hello["clientInfo"] = {"name": "tests", "version": "1"}
            client.send({"id": 0, "method": "initialize", "params": hello})
            assert client.lines.get(timeout=60)["id"] == 0
            client.send({"method": "notifications/initialized"})
            alert = {"city": "Paris", "message": "storm"}
            arguments = {"name": ALERT_TOOL, "arguments": {"body": alert}}
            call = {"name": "call_tool", "arguments": arguments}
            client.send({"id": 1, "method": "tools/call", "params": call})
            assert came.wait(60), log.read_text()
            process.send_signal(signal.SIGTERM)
            logged(log, "stopping: 1 request under way, waiting up to 25 s")
            search = {"name": "search_tools", "arguments": {"query": "forecast"}}
            client.send({"id": 2, "method": "tools/call", "params": search})
            answers = client.answers()
            assert process.wait(30) == 128 + signal.SIGTERM
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
    assert ran == [alert]  # the write ran once, and its client was told
    result = answers[1]["result"]
    assert result["structuredContent"]["status"] == "ok", result
    assert answers[2]["error"]["code"] == -32000
    assert "stopping" in answers[2]["error"]["message"]
    assert "cut" not in log.read_text()


def test_a_request_the_client_cancelled_is_not_waited_for() -> None:
    """The server sends no answer to a request its client cancelled: the stop must not wait
    25 s for it."""
    drain = Drain()
    call = {"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {}}
    assert drain.admit(json.dumps(call)) is None
    assert drain.admit(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"})) is None
    cancel = {"method": "notifications/cancelled", "params": {"requestId": "c1"}}
    assert drain.admit(json.dumps({"jsonrpc": "2.0", **cancel})) is None
    assert drain.stop() == 1
    refused = drain.admit(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}))
    assert refused is not None and json.loads(refused)["error"]["code"] == -32000
    drain.answered(json.dumps({"jsonrpc": "2.0", "id": 5, "result": {}}))
    assert drain.wait(0) == 0


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1.0, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
        {"id": 5, "method": "tools/list"},
    ],
)
def test_a_message_the_sdk_answers_nothing_is_not_waited_for(message: dict[str, Any]) -> None:
    """The SDK reads a request whose id is no string or integer as a notification, and a
    message without ``jsonrpc`` as no message: it answers neither, and SIGTERM waited the
    whole 25 s for it, then logged "1 request still under way after 25 s: cut" (trial Y1)."""
    drain = Drain()
    assert drain.admit(json.dumps(message)) is None
    assert drain.admit(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})) is None
    assert drain.stop() == 1  # the request the SDK does answer
    drain.answered(json.dumps({"jsonrpc": "2.0", "id": 7, "result": {}}))
    assert drain.wait(0) == 0


def test_an_sdk_without_the_lowlevel_server_serves_stdio_as_before(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The drain reaches a private attribute of the MCP SDK's server; an SDK without it
    serves stdio the SDK's own way (no drain), saying so, rather than failing at start."""
    from schemarouter.serve.stdio_drain import serve_stdio

    class OtherSdkServer:  # an MCPServer of an SDK that renamed _lowlevel_server
        def __init__(self) -> None:
            self.ran: list[str] = []

        def run(self, transport: str) -> None:
            self.ran.append(transport)

    server = OtherSdkServer()
    with caplog.at_level("WARNING", logger="schemarouter.serve.stdio_drain"):
        serve_stdio(server, Drain())
    assert server.ran == ["stdio"]
    assert "without the drain" in caplog.text and "_lowlevel_server" in caplog.text
