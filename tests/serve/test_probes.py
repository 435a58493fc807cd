"""``GET /healthz`` and ``/readyz`` of ``schemarouter serve --transport http`` (trial P, low:
an operator had no way to ask the gateway how it was but an MCP session with the token).

A real gateway process on loopback (tests/mcp_servers/gateway_server.py: the shipped
``load_config``, ``Gateway.from_config(background=True)`` and ``run_server``), behind a bearer
token, in front of real upstream MCP servers over stdio."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from servers.processes import free_port, serving

SERVERS = Path(__file__).parents[1] / "mcp_servers"
GATEWAY = SERVERS / "gateway_server.py"
TOKEN_ENV = "SR_TEST_PROBE_TOKEN"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")


def _gateway(folder: Path, upstreams: list[dict[str, object]]) -> Path:
    path = folder / "gateway.yaml"
    config = {"name": "probed", "mcp_servers": upstreams, "search": {"rerank": False}}
    path.write_text(yaml.safe_dump(config))
    return path


def _get(port: int, path: str, method: str = "GET") -> httpx.Response:
    return httpx.request(method, f"http://127.0.0.1:{port}{path}", timeout=10)


def _ready_within(port: int, seconds: float) -> httpx.Response:
    deadline = time.monotonic() + seconds
    answer = _get(port, "/readyz")
    while answer.status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
        answer = _get(port, "/readyz")
    return answer


def test_the_probes_answer_without_the_token_and_say_counts_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Liveness at once; readiness 503 while an upstream is still connecting for the first
    time (one that never answers ``initialize``), with counts and no names; the MCP endpoint
    still wants the token."""
    monkeypatch.setenv(TOKEN_ENV, secrets.token_urlsafe())
    mute = [sys.executable, str(SERVERS / "hostile_server.py"), "--mute"]
    config = _gateway(tmp_path, [{"provider": "quiet_one", "command": mute, "timeout": 120}])
    port = free_port()
    command = [sys.executable, str(GATEWAY), str(config), "http", str(port), "--background"]
    with serving([*command, "--token-env", TOKEN_ENV], port):
        alive = _get(port, "/healthz")
        assert (alive.status_code, alive.json()) == (200, {"status": "ok"})
        assert alive.headers["cache-control"] == "no-store"
        waiting = _get(port, "/readyz")
        assert waiting.status_code == 503
        assert waiting.json() == {
            "ready": False,
            "routes": 0,
            "upstreams": {"ready": 0, "connecting": 1, "failed": 0},
            "index": {"state": "lazy"},  # a gateway not started by serve opens it on use
        }
        assert "quiet_one" not in waiting.text
        head = _get(port, "/readyz", "HEAD")
        assert (head.status_code, head.content) == (503, b"")
        posted = _get(port, "/healthz", "POST")
        assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"
        assert _get(port, "/mcp").status_code == 401  # the token still guards the rest


def test_readiness_comes_once_the_upstreams_joined(tmp_path: Path) -> None:
    """An upstream that lists its tools makes the gateway ready, its routes counted; one that
    cannot start is counted failed and does not hold the gateway back (it serves the rest)."""
    notes = [sys.executable, str(SERVERS / "hostile_server.py")]
    missing = [sys.executable, str(tmp_path / "no_such_server.py")]
    config = _gateway(
        tmp_path,
        [
            {"provider": "h", "command": notes, "trusted": True, "timeout": 60},
            {"provider": "gone", "command": missing, "timeout": 5},
        ],
    )
    port = free_port()
    command = [sys.executable, str(GATEWAY), str(config), "http", str(port), "--background"]
    with serving(command, port):
        ready = _ready_within(port, 60)
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert body["ready"] is True and body["routes"] > 0
        assert body["upstreams"] == {"ready": 1, "connecting": 0, "failed": 1}
        assert "gone" not in ready.text and "no_such_server" not in ready.text


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/healthz/"])
def test_an_mcp_path_that_is_a_probes_is_refused_before_anything_starts(
    path: str, tmp_path: Path
) -> None:
    """Trial X4 (medium): ``serve --transport http --path /healthz`` started, said it served
    MCP at /healthz, and answered every MCP request ``405 /healthz answers GET and HEAD only``
    (the probes answer first). Now refused at once, naming --path and what to do; no upstream
    is started. (Before, the command served until the timeout here.)"""
    pids = tmp_path / "pids"
    hostile = [sys.executable, str(SERVERS / "hostile_server.py"), "--pid-file", str(pids)]
    config = _gateway(tmp_path, [{"provider": "h", "command": hostile, "trusted": True}])
    serve = "from schemarouter.cli import main; raise SystemExit(main())"
    argv = [sys.executable, "-c", serve, "serve", "--config", str(config)]
    argv += ["--transport", "http", "--port", str(free_port()), "--path", path]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve --path {path} was not refused: it served for 60 s")
    assert done.returncode == 1, done.stderr
    assert "is a health probe's" in done.stderr and "--path /mcp" in done.stderr
    assert not pids.exists()  # no upstream was started
