"""``schemarouter serve --index DIR`` against a folder rebuilt every night (user trial W4).

Real ``serve`` processes on loopback (the CLI in a child process), an index folder saved with
the model-free hashing encoder, probes and MCP requests over httpx."""

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
import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

from servers.processes import free_port, wait_for_port
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")

SERVE = "from schemarouter.cli import main; raise SystemExit(main())"
MODELS = ["--no-rerank", "--ranking", "none"]
HEAD = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def document(folder: Path, *, operation: str = "getForecast") -> Path:
    """The weather API's document, its forecast operation named ``operation``."""
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / "weather.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def build(source: Path, index: Path) -> dict[str, Any]:
    """``index build --openapi weather=SOURCE --out INDEX`` with the hashing encoder; the
    manifest it committed."""
    router = SchemaRouter(encoder=HashingEncoder(64), embedding_cache=None, abstention=None)
    router.add_openapi(source, provider="weather")
    router.build_index()
    router.index.save(index)
    manifest: dict[str, Any] = json.loads((index / "manifest.json").read_text())
    return manifest


@contextmanager
def serving(*flags: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    argv = [sys.executable, "-c", SERVE, "serve", *flags, *MODELS]
    argv += ["--transport", "http", "--port", str(port), "--no-progress"]
    with log.open("wb") as stderr:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            wait_for_port(port, process)
            yield process, port
        finally:
            process.terminate()
            process.wait(timeout=20)


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


def test_readiness_waits_for_the_index_and_says_which_generation_it_serves(
    tmp_path: Path,
) -> None:
    """Before, ``/readyz`` said ready as soon as the port was open, loaded or not, and said
    nothing of the index: replicas serving two nights looked alike."""
    manifest = build(document(tmp_path), tmp_path / "index")
    with serving("--index", str(tmp_path / "index"), log=tmp_path / "serve.log") as (_, port):
        answer = settled(port)
        assert answer.status_code == 200, answer.text
        index = answer.json()["index"]
        assert index["state"] == "open"
        assert index["generation"] == manifest["generation"]
        assert index["registry_fingerprint"] == manifest["registry_fingerprint"]
        assert time.strptime(index["loaded_at"], "%Y-%m-%dT%H:%M:%SZ")


def test_an_index_that_did_not_open_is_not_ready(tmp_path: Path) -> None:
    """The nightly case: ``serve --openapi DOC --index DIR`` restarted after the document
    changed and before the index was rebuilt. Its index is stale, every search fails, and
    ``/readyz`` answered 200 all the same, so a load balancer kept sending it traffic."""
    build(document(tmp_path), tmp_path / "index")
    renamed = document(tmp_path, operation="getDailyForecast")
    flags = ("--openapi", f"weather={renamed}", "--index", str(tmp_path / "index"))
    with serving(*flags, log=tmp_path / "serve.log") as (_, port):
        answer = settled(port)
        assert answer.status_code == 503, answer.text
        assert answer.json()["ready"] is False
        assert answer.json()["index"] == {"state": "failed", "error": "SR301"}
        assert "weather" not in answer.text  # counts and codes only
