"""Real servers in child processes: a free loopback port, waiting for it, an MCP server
script served over streamable HTTP for the length of a ``with`` block."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie nobody will run again) within seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
                if "State:\tZ" in handle.read():
                    return True
        except OSError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def wait_for_port(port: int, process: subprocess.Popen[bytes], *, timeout: float = 60) -> None:
    """Until something listens on ``port`` (the process must stay alive meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:g} s")


@contextmanager
def serving(
    command: Sequence[str], port: int, *, env: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` (a server that listens on ``port``; ``env`` added to this process's
    environment) until the block ends."""
    process = subprocess.Popen(
        list(command),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env} if env else None,
    )
    try:
        wait_for_port(port, process)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=20)


@contextmanager
def http_mcp_server(script: Path) -> Iterator[str]:
    """``python SCRIPT http PORT`` (an MCP server over streamable HTTP); yields its URL."""
    port = free_port()
    with serving([sys.executable, str(script), "http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"
