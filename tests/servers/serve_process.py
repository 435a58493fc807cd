"""``schemarouter serve --transport http`` in a child process (the CLI itself), an index
folder saved with the model-free hashing encoder, and an MCP client on plain httpx."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from servers.processes import free_port, wait_for_port

SERVE = "from schemarouter.cli import main; raise SystemExit(main())"
MODELS = ["--no-rerank", "--ranking", "none"]
HEAD = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def build(source: Path, index: Path, *, provider: str = "weather") -> dict[str, Any]:
    """``index build --openapi PROVIDER=SOURCE --out INDEX`` with the hashing encoder; the
    manifest it committed."""
    router = SchemaRouter(encoder=HashingEncoder(64), embedding_cache=None, abstention=None)
    router.add_openapi(source, provider=provider)
    router.build_index()
    router.index.save(index)
    manifest: dict[str, Any] = json.loads((index / "manifest.json").read_text())
    return manifest


@contextmanager
def serving(*flags: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``schemarouter serve FLAGS --transport http`` on a free port, its stderr in ``log``."""
    port = free_port()
    argv = [sys.executable, "-c", SERVE, "serve", *flags, *MODELS]
    argv += ["--transport", "http", "--port", str(port), "--no-progress"]
    with log.open("wb") as stderr:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            wait_for_port(port, process)
            yield process, port
        finally:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=40)


def readyz(port: int) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)


def settled(port: int, seconds: float = 60) -> httpx.Response:
    """``/readyz`` once the index is no longer loading."""
    deadline = time.monotonic() + seconds
    answer = readyz(port)
    while answer.json().get("index", {}).get("state") == "loading":
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)
        answer = readyz(port)
    return answer


def tool_call(port: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC result of ``tools/call`` of ``tool``, over a fresh MCP session."""
    url = f"http://127.0.0.1:{port}/mcp"
    with httpx.Client(timeout=30, headers=HEAD) as client:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "tests", "version": "1"}
        opened = client.post(
            url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        )
        client.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": tool, "arguments": arguments}
        answer = client.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
        )
    data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
    result: dict[str, Any] = json.loads(data[0] if data else answer.text)["result"]
    return result
