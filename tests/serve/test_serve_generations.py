"""``schemarouter serve --index DIR`` against a folder rebuilt every night (user trial W4).

Real ``serve`` processes on loopback (the CLI in a child process), an index folder saved with
the model-free hashing encoder, probes and MCP requests over httpx."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from servers.serve_process import build, readyz, serving, settled, tool_call
from servers.user_api import weather_openapi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")


def document(folder: Path, *, operation: str = "getForecast") -> Path:
    """The weather API's document, its forecast operation named ``operation``."""
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / "weather.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


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
    with serving(*flags, log=tmp_path / "serve.log") as (process, port):
        answer = settled(port)
        assert answer.status_code == 503, answer.text
        assert answer.json()["ready"] is False
        assert answer.json()["index"] == {"state": "failed", "error": "SR301"}
        assert "weather" not in answer.text  # counts and codes only
        said = (tmp_path / "serve.log").read_text()
        assert "the index did not open: [SR301]" in said and "kill -HUP" in said
        fixed = build(renamed, tmp_path / "index")["generation"]  # as the log says
        process.send_signal(signal.SIGHUP)
        assert serving_generation(port, fixed)["ready"] is True
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_daily_forecast"


def search(port: int, query: str) -> list[str]:
    """The tool names ``search_tools`` answers ``query`` with, over a fresh MCP session."""
    result = tool_call(port, "search_tools", {"query": query, "k": 2})
    assert not result.get("isError"), result
    return [tool["name"] for tool in result["structuredContent"]["tools"]]


def serving_generation(port: int, generation: str, seconds: float = 60) -> dict[str, Any]:
    """``/readyz`` once it says ``generation`` is served."""
    deadline = time.monotonic() + seconds
    answer = readyz(port).json()
    while answer.get("index", {}).get("generation") != generation:
        assert time.monotonic() < deadline, answer
        time.sleep(0.1)
        answer = readyz(port).json()
    return dict(answer)


def logged(log: Path, text: str, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while text not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    return log.read_text()


def test_sighup_switches_to_the_rebuilt_index_and_keeps_it_where_the_next_is_damaged(
    tmp_path: Path,
) -> None:
    """Before, a running server kept its first generation until restarted (only a restart
    read the folder again). Now SIGHUP loads the new one beside it and switches; a damaged
    one is refused, the log says why, and the generation before keeps answering."""
    index, log = tmp_path / "index", tmp_path / "serve.log"
    first = build(document(tmp_path), index)["generation"]
    with serving("--index", str(index), log=log) as (process, port):
        serving_generation(port, first)
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_forecast"
        second = build(document(tmp_path, operation="getDailyForecast"), index)["generation"]
        assert readyz(port).json()["index"]["generation"] == first  # until told
        process.send_signal(signal.SIGHUP)
        now = serving_generation(port, second)
        assert now["ready"] is True and now["index"]["state"] == "open"
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_daily_forecast"
        third = build(document(tmp_path, operation="getForecastDays"), index)
        vectors = next(name for name in third["files"] if name.endswith(".npy"))
        (index / vectors).write_bytes(b"damaged")
        process.send_signal(signal.SIGHUP)
        said = logged(log, "reload refused")
        assert "generation " + second + " still answers" in said and "[SR302]" in said
        kept = readyz(port)
        assert kept.status_code == 200 and kept.json()["index"]["generation"] == second
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_daily_forecast"
        assert process.poll() is None


def test_sighup_with_sources_refuses_an_index_not_rebuilt_for_them(tmp_path: Path) -> None:
    """``serve --openapi DOC --index DIR``: the night's document changed but the index was
    not rebuilt (the build failed): the reload registers the document again, finds the index
    stale and keeps the old pair; once rebuilt, the next SIGHUP switches."""
    index, log = tmp_path / "index", tmp_path / "serve.log"
    source = document(tmp_path)
    first = build(source, index)["generation"]
    flags = ("--openapi", f"weather={source}", "--index", str(index))
    with serving(*flags, log=log) as (process, port):
        serving_generation(port, first)
        document(tmp_path, operation="getDailyForecast")  # the same file, changed
        process.send_signal(signal.SIGHUP)
        said = logged(log, "reload refused")
        assert "[SR301]" in said and "weather/rest/get_daily_forecast" in said
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_forecast"
        second = build(source, index)["generation"]
        process.send_signal(signal.SIGHUP)
        serving_generation(port, second)
        assert search(port, "daily weather forecast")[0] == "weather__rest__get_daily_forecast"
