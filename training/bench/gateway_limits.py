"""The gateway against a hostile upstream (run on demand; not a test): issue #24's targets.

    python -m schemarouter.training.bench.gateway_limits [--mb 200] [--error-chars 100000]
        [--rounds 20] [--json]

Starts :mod:`.hostile_mcp` over streamable HTTP, then ``schemarouter serve --transport http``
(the shipped CLI, its logging included: the SDK server installs a Rich handler) with that
upstream and a second copy over stdio. Through the gateway, as an MCP client would:

- **a huge reply**, per upstream transport: ``call_tool`` of a ``--mb`` MB reply; the seconds
  until the refusal, the gateway's RSS before and its peak during the call (VmHWM, reset
  first), and the seconds the next call on the same upstream takes;
- **a long error**: client A calls a tool answering a JSON-RPC error of ``--error-chars``
  characters while client B calls a small tool; B's latency (median and max over
  ``--rounds``) against B alone.

Targets: RSS at most +64 MB, the session usable within 2 s of the refusal, another client's
call delayed at most 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["main"]

HOSTILE = [sys.executable, "-m", "schemarouter.training.bench.hostile_mcp"]


def _status(pid: int, key: str) -> int:
    """``VmRSS`` / ``VmHWM`` of process ``pid`` in MiB."""
    with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024
    raise KeyError(key)


def _reset_peak(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="utf-8") as handle:
            handle.write("5")  # resets VmHWM to the current RSS
        return True
    except OSError:
        return False


class _Sampler:
    """The highest RSS of a process, sampled every 5 ms while running (VmHWM may not be
    resettable where /proc/PID/clear_refs is closed)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _status(self.pid, "VmRSS"))
            time.sleep(0.005)

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _wait_port(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"nothing listens on port {port}")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _call(url: str, name: str, arguments: dict[str, Any]) -> tuple[float, bool, str]:
    """One ``call_tool`` through the gateway on a fresh client: (seconds, is_error, text)."""
    import mcp

    async with mcp.Client(url) as client:
        started = time.perf_counter()
        result = await client.call_tool("call_tool", {"name": name, "arguments": arguments})
        took = time.perf_counter() - started
    text = str(getattr(result.content[0], "text", "")) if result.content else ""
    return took, bool(result.is_error), text


async def _huge(url: str, pid: int, tool: str, mb: int) -> dict[str, Any]:
    await _call(url, f"{tool}__mcp__echo", {"text": "warm"})
    before = _status(pid, "VmRSS")
    resettable = _reset_peak(pid)
    with _Sampler(pid) as sampler:
        took, error, text = await _call(url, f"{tool}__mcp__huge", {"mb": mb})
    peak = max(sampler.peak, _status(pid, "VmHWM") if resettable else 0)
    nxt, next_error, _ = await _call(url, f"{tool}__mcp__echo", {"text": "next"})
    return {
        "mb": mb,
        "refused_s": round(took, 3),
        "refused": error,
        "message": text[:200],
        "rss_before_mib": before,
        "rss_peak_mib": peak,
        "rss_growth_mib": peak - before,
        "next_call_s": round(nxt, 3),
        "next_call_ok": not next_error,
    }


async def _latency(url: str, rounds: int) -> list[float]:
    import mcp

    async with mcp.Client(url) as client:
        out = []
        for _ in range(rounds):
            started = time.perf_counter()
            await client.call_tool(
                "call_tool", {"name": "h__mcp__echo", "arguments": {"text": "b"}}
            )
            out.append(time.perf_counter() - started)
        return out


async def _error_delay(url: str, chars: int, rounds: int) -> dict[str, Any]:
    import mcp

    alone = await _latency(url, rounds)
    stop = asyncio.Event()

    async def hostile() -> int:
        count = 0
        async with mcp.Client(url) as client:
            while not stop.is_set():
                arguments = {"chars": chars}
                await client.call_tool(
                    "call_tool", {"name": "h__mcp__long_error", "arguments": arguments}
                )
                count += 1
        return count

    task = asyncio.create_task(hostile())
    await asyncio.sleep(0.5)  # the hostile calls are under way
    during = await _latency(url, rounds)
    stop.set()
    errors = await task
    med_alone, med_during = statistics.median(alone), statistics.median(during)
    return {
        "error_chars": chars,
        "hostile_calls": errors,
        "b_alone_median_ms": round(med_alone * 1000, 1),
        "b_during_median_ms": round(med_during * 1000, 1),
        "b_during_max_ms": round(max(during) * 1000, 1),
        "delay_median_ms": round((med_during - med_alone) * 1000, 1),
        "delay_max_ms": round((max(during) - med_alone) * 1000, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--error-chars", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    upstream_port, gateway_port = _free_port(), _free_port()
    with tempfile.TemporaryDirectory(prefix="sr-gateway-") as folder:
        config = Path(folder) / "gateway.json"
        config.write_text(
            json.dumps(
                {
                    "mcp_servers": [
                        {
                            "provider": "h",
                            "url": f"http://127.0.0.1:{upstream_port}/mcp",
                            "trusted": True,
                        },
                        {"provider": "hs", "command": HOSTILE, "trusted": True},
                    ],
                    "search": {"rerank": False},
                }
            )
        )
        upstream = subprocess.Popen([*HOSTILE, "http", str(upstream_port)])
        serve = ["serve", "--config", str(config), "--transport", "http"]
        serve += ["--port", str(gateway_port), "--no-rerank"]
        gateway = subprocess.Popen([sys.executable, "-m", "schemarouter.cli", *serve])
        try:
            _wait_port(upstream_port, upstream, 60)
            _wait_port(gateway_port, gateway, 300)
            url = f"http://127.0.0.1:{gateway_port}/mcp"
            results = {
                "huge_http": asyncio.run(_huge(url, gateway.pid, "h", args.mb)),
                "huge_stdio": asyncio.run(_huge(url, gateway.pid, "hs", args.mb)),
                "long_error": asyncio.run(_error_delay(url, args.error_chars, args.rounds)),
            }
        finally:
            for process in (gateway, upstream):
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for name in ("huge_http", "huge_stdio"):
        r = results[name]
        print(
            f"{name}: {r['mb']} MB reply refused={r['refused']} in {r['refused_s']} s; gateway RSS "
            f"{r['rss_before_mib']} -> peak {r['rss_peak_mib']} MiB (+{r['rss_growth_mib']}); "
            f"next call {r['next_call_s']} s ok={r['next_call_ok']}"
        )
    e = results["long_error"]
    print(
        f"long_error: {e['error_chars']} characters x {e['hostile_calls']} calls; another "
        f"client's call {e['b_alone_median_ms']} ms alone, {e['b_during_median_ms']} ms "
        f"(max {e['b_during_max_ms']}) meanwhile: delay median {e['delay_median_ms']} ms, "
        f"max {e['delay_max_ms']} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
