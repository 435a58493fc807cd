"""``schemarouter serve`` over stdio, attacked by its own MCP client (eleventh security
review): a real ``serve`` process whose client writes raw JSON-RPC lines on its stdin, in
front of a real weather API on loopback that records every request it gets."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter.serve.stdio_frames import MAX_IN_FLIGHT, MAX_LINE_CHARS

from servers.loopback import LoopbackServer
from servers.serve_process import MODELS, SERVE, build
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

ALERT = "weather__rest__create_alert"
FORECAST = "weather__rest__get_forecast"


class Client:
    """Lines to the gateway's stdin; its stdout's messages in a queue once ``reading``."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process, self.lines = process, queue.Queue[Any]()

    def reading(self) -> None:
        def read() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.lines.put(json.loads(line))
            self.lines.put(None)

        threading.Thread(target=read, daemon=True).start()

    def raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.raw((json.dumps(message) + "\n").encode())

    def next(self, seconds: float = 30) -> dict[str, Any]:
        line = self.lines.get(timeout=seconds)
        assert line is not None, "the gateway ended"
        return dict(line)


@contextmanager
def gateway(tmp_path: Path, base_url: str) -> Iterator[tuple[Client, Path]]:
    """``serve`` over stdio of the weather API at ``base_url`` (its write allowed), after
    ``initialize``; its log in the returned file."""
    source = tmp_path / "weather.yaml"
    source.write_text(yaml.safe_dump(weather_openapi(base_url)))
    build(source, tmp_path / "index")
    argv = [sys.executable, "-c", SERVE, "serve", "--openapi", f"weather={source}"]
    argv += ["--index", str(tmp_path / "index"), "--allow-write", ALERT, *MODELS]
    log = tmp_path / "serve.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
    try:
        client = Client(process)
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "tests", "version": "1"}
        client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert process.stdout is not None
        assert json.loads(process.stdout.readline())["id"] == 0
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield client, log
    finally:
        process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a write the pipe still held
                    pipe.close()


def call(request_id: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": "call_tool", "arguments": {"name": tool, "arguments": arguments}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def wire(message: Any) -> bytes:
    return json.dumps(message).encode()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


ALERT_ARGS = {"body": {"city": "Paris", "message": "storm"}}


def test_every_bad_line_is_answered_or_dropped_with_a_log_record_and_nothing_runs(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before: a line nested 100,000 deep ended the gateway (``RecursionError`` in its
    reader: every later request of the client unanswered); a 5 MiB line was read whole
    (300 MB: 1.15 GB) and answered as a ping; invalid JSON, a batch, ``"jsonrpc": "1.0"``,
    a request with ``params`` of the wrong type or an id that is an object, a fraction or
    null got no answer at all (the client waits for ever) and no log record."""
    weather.requests.clear()
    with gateway(tmp_path, weather.base_url) as (client, log):
        client.reading()
        alert = call(1, ALERT, ALERT_ARGS)["params"]
        deep = b"[" * 500 + b"]" * 500
        huge = b"x" * (MAX_LINE_CHARS + 10)
        odd_id = {**call(None, ALERT, ALERT_ARGS), "id": {"a": 7}}
        bad: list[tuple[bytes, Any, int]] = [  # line, the id answered, the error's code
            (b"{not json", None, -32700),
            (b"[" * 100_000 + b"]" * 100_000, None, -32700),
            (b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": ' + deep + b"}", 3, -32700),
            (wire([call(4, ALERT, ALERT_ARGS)]), None, -32600),
            (b'{"jsonrpc": "1.0", "id": 5, "method": "ping"}', 5, -32600),
            (wire({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "x"}), 6, -32600),
            (wire(odd_id), None, -32600),
            (wire(call(8.5, ALERT, ALERT_ARGS)), 8.5, -32600),
            (wire(call(None, ALERT, ALERT_ARGS)), None, -32600),
            (
                b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"p": "' + huge + b'"}}',
                9,
                -32600,
            ),
        ]
        for line, request_id, code in bad:
            client.raw(line + b"\n")
            answer = client.next()
            assert answer["id"] == request_id, answer
            assert answer["error"]["code"] == code, answer
        # a tools/call without an id is a notification: dropped (it would run unanswered)
        client.send({"jsonrpc": "2.0", "method": "tools/call", "params": alert})
        client.raw(b"\n")  # a blank line: nothing to say
        # the gateway still serves, and the next answer is the ping's
        client.send({"jsonrpc": "2.0", "id": 10, "method": "ping"})
        assert client.next() == {"jsonrpc": "2.0", "id": 10, "result": {}}
        said = log.read_text()
    assert weather.requests == []  # none of those tools/call ran
    assert said.count("stdio client sent a bad line") == len(bad) + 1
    assert "dropped: a 'tools/call' without an id" in said
    assert "nested deeper than 128 levels" in said and "longer than the limit" in said


def test_tool_names_that_only_look_like_a_registered_one_run_nothing(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Held: a case change, a trailing space, a Cyrillic a, a full-width w, a NUL, a path
    of the route id's shape, and a registered tool called as an MCP tool of the gateway's
    own: each is refused, nothing reaches the API; the real name then runs."""
    weather.requests.clear()
    names = [
        "Weather__rest__create_alert",
        ALERT + " ",
        ALERT.replace("a", "\u0430", 1),
        "\uff57" + ALERT[1:],
        ALERT + "\x00",
        "weather/rest/create_alert/",
        "../weather/rest/create_alert",
    ]
    with gateway(tmp_path, weather.base_url) as (client, _):
        client.reading()
        for i, name in enumerate(names):
            client.send(call(i + 1, name, ALERT_ARGS))
            answer = client.next()["result"]
            assert answer["isError"], (repr(name), answer)
            assert "[SR400] no registered tool" in answer["content"][0]["text"]
        direct = {"name": ALERT, "arguments": ALERT_ARGS}
        client.send({"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": direct})
        assert client.next()["result"]["isError"]
        assert weather.requests == []
        client.send(call(51, ALERT, ALERT_ARGS))
        assert not client.next()["result"]["isError"]
    assert [r.path for r in weather.requests] == ["/alerts"]


def test_a_client_that_never_reads_its_answers_is_not_read_either(
    tmp_path: Path, weather: LoopbackServer
) -> None:
    """Before, the gateway read every request of a client that never read stdout, and held
    each answer: 57,000 requests in 40 s took it from 130 MB to 1.2 GB, growing. Now at
    most MAX_IN_FLIGHT requests are under way: its stdin pipe fills and the client's
    writes block within a few hundred lines; once it reads, every request is answered."""
    with gateway(tmp_path, weather.base_url) as (client, _):
        process = client.process
        assert process.stdin is not None
        start = rss_mib(process.pid)
        fd = process.stdin.fileno()
        os.set_blocking(fd, False)
        sent, pending, deadline = 0, b"", time.monotonic() + 8
        while time.monotonic() < deadline and sent < 20_000:
            if not pending:
                describe = {"name": "describe_tool", "arguments": {"name": FORECAST}}
                message = {"jsonrpc": "2.0", "id": sent + 1, "method": "tools/call"}
                pending = json.dumps({**message, "params": describe}).encode() + b"\n"
                sent += 1
            try:
                pending = pending[os.write(fd, pending) :]
            except BlockingIOError:
                time.sleep(0.05)
        grown = rss_mib(process.pid) - start
        # the pipe (64 KiB) and the reader's buffer hold the rest: a few hundred lines
        assert sent < 10 * MAX_IN_FLIGHT + 2000, sent
        assert grown < 40, f"{grown:.0f} MiB more after {sent} requests"
        os.set_blocking(fd, True)
        client.reading()
        os.write(fd, pending)  # the line it was writing when the pipe filled
        answered = {client.next()["id"] for _ in range(sent)}
        assert answered == set(range(1, sent + 1))
        client.send({"jsonrpc": "2.0", "id": "last", "method": "ping"})
        assert client.next()["id"] == "last"
