"""SIGTERM of ``schemarouter serve --transport http`` while a call is under way (user trial
W4). A real ``serve`` process, a real slow upstream API on loopback, an MCP client on httpx."""

from __future__ import annotations

import json
import signal
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

from servers.serve_process import build, serving, settled, tool_call
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")


@contextmanager
def slow_weather(seconds: float) -> Iterator[tuple[str, threading.Event, list[str]]]:
    """A forecast API that answers after ``seconds``; the event is set when a request came,
    the list holds the paths it answered."""
    came, answered = threading.Event(), []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            came.set()
            time.sleep(seconds)
            body = {"city": "Paris", "units": "metric", "days": []}
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            answered.append(self.path)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", came, answered
    finally:
        server.shutdown()
        server.server_close()


def call_forecast(port: int, answers: list[Any]) -> None:
    arguments = {"name": "weather__rest__get_forecast", "arguments": {"city": "Paris"}}
    answers.append(tool_call(port, "call_tool", arguments))


def test_sigterm_lets_the_call_under_way_finish_and_says_so(tmp_path: Path) -> None:
    """Before, the call reached the upstream (a write would have run there) and its client
    got an empty answer: the stream was ended at the signal."""
    with slow_weather(1.5) as (base_url, came, answered):
        spec = weather_openapi(base_url)
        source = tmp_path / "weather.yaml"
        source.write_text(yaml.safe_dump(spec))
        build(source, tmp_path / "index")
        flags = ("--openapi", f"weather={source}", "--index", str(tmp_path / "index"))
        log = tmp_path / "serve.log"
        with serving(*flags, log=log) as (process, port):
            assert settled(port).status_code == 200
            answers: list[Any] = []
            caller = threading.Thread(target=call_forecast, args=(port, answers))
            caller.start()
            assert came.wait(30)
            process.send_signal(signal.SIGTERM)
            caller.join(60)
            assert process.wait(30) == -signal.SIGTERM  # ends by the signal, as uvicorn does
        assert answered == ["/forecast?city=Paris"]
        (result,) = answers
        assert result["structuredContent"]["status"] == "ok", result
        assert "stopping: 1 request under way" in log.read_text()
