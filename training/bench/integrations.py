"""Benchmarks of the agent-facing parts: tool-definition tokens, and ``schemarouter serve``.

    python -m schemarouter.training.bench.integrations tokens
    python -m schemarouter.training.bench.integrations search --routes 10000 [--queries 200]
    python -m schemarouter.training.bench.integrations call [--calls 200]
    python -m schemarouter.training.bench.integrations coldstart [--runs 5]

- ``tokens``: on the bundled catalog, with the shipped router, the k=5 tool definitions
  (each format) against the k=5 contracts ``result.contracts()`` gives, in MiniLM word
  pieces (:class:`~schemarouter.training.baselines.TokenCounter`), over the labelled queries.
- ``search``: ``search_tools`` round trips over stdio against a real ``schemarouter serve`` process
  (a real MCP client session) at a generated catalog of ``--routes`` routes
  (:mod:`schemarouter.training.datasets.recombined`, from ``../shared/data``), fusion only
  (``--no-rerank``), the index built first with ``schemarouter index build`` and loaded with
  ``--index``.
- ``call``: the cost ``call_tool`` adds to an HTTP call: a loopback HTTP route answered by
  this process, called directly with httpx and through the server's ``call_tool`` over stdio;
  also in process (``router.call``) and the bare MCP round trip (``describe_tool``).
- ``coldstart``: from starting ``schemarouter serve`` (bundled catalog, shipped
  defaults) to the first ``search_tools`` answer, with warm caches (one start first).

Figures are printed (and written as JSON with ``--out``); nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["main"]

_BUNDLED = Path(str(resources.files("schemarouter.data").joinpath("catalogs", "materials")))
_QUERIES = Path(str(resources.files("schemarouter.data").joinpath("queries", "materials.json")))


def _ms(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {
        "p50_ms": round(1000 * statistics.median(ordered), 2),
        "p90_ms": at(0.9),
        "n": len(ordered),
    }


def _serve(*args: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable, args=["-m", "schemarouter.cli", "serve", *args]
    )


# -- tokens ----------------------------------------------------------------------------------


def bench_tokens(_: argparse.Namespace) -> dict[str, Any]:
    from schemarouter.router import SchemaRouter
    from schemarouter.training.baselines import TokenCounter

    counter = TokenCounter()
    router = SchemaRouter.from_catalog(_BUNDLED)
    queries = [q["query"] for q in json.loads(_QUERIES.read_text())["queries"]]

    def tokens(data: Any) -> int:
        return counter.count(json.dumps(data, separators=(",", ":"), ensure_ascii=False))

    totals = {"contracts": 0, "anthropic": 0, "openai": 0, "mcp": 0}
    answered = 0
    for query in queries:
        found = router.retrieve(query, k=5)
        if not found.candidates:
            continue
        answered += 1
        totals["contracts"] += tokens(found.contracts())
        for api in ("anthropic", "openai", "mcp"):
            totals[api] += tokens(list(found.tools(api)))
    means = {key: round(value / answered, 1) for key, value in totals.items()}
    ratios = {
        api: round(totals[api] / totals["contracts"], 4) for api in ("anthropic", "openai", "mcp")
    }
    print(f"k=5 on the bundled catalog, {answered} answered queries ({counter.identity}):")
    print(f"  contracts      {means['contracts']:>9} tokens per query")
    for api in ("anthropic", "openai", "mcp"):
        print(
            f"  {api:<14} {means[api]:>9} tokens per query  ({100 * ratios[api]:.1f}% of contracts)"
        )
    return {"queries": answered, "mean_tokens": means, "ratio": ratios, "counter": counter.identity}


# -- search ----------------------------------------------------------------------------------


def _catalog(routes: int, folder: Path, data: Path | None) -> Path:
    from schemarouter.training.datasets.recombined import catalog_document, synth_providers
    from schemarouter.training.datasets.shared_data import shared_data_dir

    path = folder / f"catalog-{routes}.json"
    if not path.exists():
        providers = synth_providers(routes, seed=0, data=data or shared_data_dir())
        path.write_text(json.dumps(catalog_document(providers, name=f"synth-{routes}")))
    return path


def _probe_queries(count: int, data: Path | None) -> list[str]:
    from schemarouter.training.bench.index import sample_queries
    from schemarouter.training.datasets.shared_data import shared_data_dir

    return list(sample_queries(data or shared_data_dir(), count, seed=1))


def bench_search(args: argparse.Namespace) -> dict[str, Any]:
    import mcp

    folder = Path(args.work)
    folder.mkdir(parents=True, exist_ok=True)
    catalog = _catalog(args.routes, folder, args.data)
    index = folder / f"index-{args.routes}"
    if not (index / "manifest.json").exists() and not index.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "schemarouter.cli",
                "index",
                "build",
                str(catalog),
                "--out",
                str(index),
                "--quiet",
            ],
            check=True,
        )
    queries = _probe_queries(args.queries, args.data)

    async def run() -> list[float]:
        scope = () if args.executable_only else ("--all-routes",)
        params = _serve("--catalog", str(catalog), "--index", str(index), "--no-rerank", *scope)
        async with mcp.Client(params) as client:
            for query in queries[:10]:  # warm up
                await client.call_tool("search_tools", {"query": query, "k": 5})
            times = []
            for query in queries:
                t0 = time.perf_counter()
                result = await client.call_tool("search_tools", {"query": query, "k": 5})
                times.append(time.perf_counter() - t0)
                assert not result.is_error, result.content
            return times

    figures = _ms(asyncio.run(run()))
    scope = "executable routes" if args.executable_only else "all routes"
    print(f"search_tools(k=5) over stdio at {args.routes} routes, fusion only, {scope}: {figures}")
    return {"routes": args.routes, "scope": scope, "search_tools": figures}


# -- call ------------------------------------------------------------------------------------


#: A keep-alive JSON route in its own process (so neither the direct client nor the router
#: shares an interpreter lock with it); Nagle off, as a production server would have it.
_ROUTE_SERVER = """
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
BODY = json.dumps({"city": "Paris", "days": [{"date": "2025-06-01", "temp_max": 30.5}]}).encode()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def _openapi(base_url: str) -> dict[str, Any]:
    day = {
        "type": "object",
        "properties": {"date": {"type": "string"}, "temp_max": {"type": "number"}},
    }
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "array", "items": day}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Weather", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/forecast": {
                "get": {
                    "operationId": "getForecast",
                    "parameters": [
                        {
                            "name": "city",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }


async def _in_memory(
    router: Any, url: str, arguments: dict[str, Any], calls: int
) -> dict[str, list[float]]:
    """``call_tool`` through the server's code with the SDK's in-memory transport (no pipes,
    no second process): what the server itself adds to the HTTP call."""
    import httpx
    import mcp

    from schemarouter.serve import Gateway, GatewayConfig, build_server

    server = build_server(Gateway(router, GatewayConfig()))
    call = {"name": "weather__rest__get_forecast", "arguments": arguments}
    times: dict[str, list[float]] = {"memory_http": [], "memory_tool": []}
    async with httpx.AsyncClient() as client, mcp.Client(server) as session:
        for round_ in range(calls + 20):
            t0 = time.perf_counter()
            (await client.get(url)).json()
            http = time.perf_counter() - t0
            t0 = time.perf_counter()
            result = await session.call_tool("call_tool", call)
            tool = time.perf_counter() - t0
            assert not result.is_error, result.content
            if round_ >= 20:
                times["memory_http"].append(http)
                times["memory_tool"].append(tool)
    return times


def bench_call(args: argparse.Namespace) -> dict[str, Any]:
    import httpx
    import mcp

    from schemarouter.index import HashingEncoder
    from schemarouter.router import SchemaRouter

    route = subprocess.Popen(
        [sys.executable, "-c", _ROUTE_SERVER], stdout=subprocess.PIPE, text=True
    )
    assert route.stdout is not None
    base = f"http://127.0.0.1:{route.stdout.readline().strip()}"
    url = f"{base}/forecast?city=Paris"
    arguments = {"city": "Paris"}
    with tempfile.TemporaryDirectory() as tmp, httpx.Client() as client:
        spec = Path(tmp) / "weather.json"
        spec.write_text(json.dumps(_openapi(base)))
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, reranker=None, abstention=None
        )
        router.add_openapi(spec, provider="weather")

        def direct() -> None:
            client.get(url).json()

        def in_process() -> None:
            router.call("weather/rest/get_forecast", arguments, client=client)

        async def run() -> dict[str, list[float]]:
            params = _serve("--openapi", f"weather={spec}", "--no-rerank")
            call = {"name": "weather__rest__get_forecast", "arguments": arguments}
            describe = {"name": "weather__rest__get_forecast"}
            times: dict[str, list[float]] = {k: [] for k in ("http", "inproc", "tool", "mcp")}
            async with mcp.Client(params) as session:
                for round_ in range(args.calls + 20):  # interleaved: the same machine load
                    spent = []
                    for job in (direct, in_process):
                        t0 = time.perf_counter()
                        job()
                        spent.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    result = await session.call_tool("call_tool", call)
                    spent.append(time.perf_counter() - t0)
                    assert not result.is_error, result.content
                    t0 = time.perf_counter()
                    await session.call_tool("describe_tool", describe)
                    spent.append(time.perf_counter() - t0)
                    if round_ >= 20:  # after the warm-up
                        for key, value in zip(times, spent, strict=True):
                            times[key].append(value)
            return times

        times = asyncio.run(run())
        times.update(asyncio.run(_in_memory(router, url, arguments, args.calls)))
    route.terminate()
    route.wait(timeout=10)

    def paired(a: list[float], b: list[float]) -> float:
        return round(1000 * statistics.median(x - y for x, y in zip(a, b, strict=True)), 2)

    figures: dict[str, Any] = {
        "http_direct": _ms(times["http"]),
        "router_call_in_process": _ms(times["inproc"]),
        "call_tool_over_stdio": _ms(times["tool"]),
        "mcp_round_trip_describe_tool": _ms(times["mcp"]),
        "call_tool_in_memory_session": _ms(times["memory_tool"]),
        "overhead_ms (median of paired differences)": {
            "call_tool_minus_http": paired(times["tool"], times["http"]),
            "call_tool_in_memory_minus_http": paired(times["memory_tool"], times["memory_http"]),
            "router_call_minus_http": paired(times["inproc"], times["http"]),
        },
    }
    for key, value in figures.items():
        print(f"  {key:<30} {value}")
    return figures


# -- cold start ------------------------------------------------------------------------------


def bench_coldstart(args: argparse.Namespace) -> dict[str, Any]:
    import mcp

    async def once() -> float:
        t0 = time.perf_counter()
        async with mcp.Client(_serve()) as client:
            result = await client.call_tool(
                "search_tools", {"query": "band gap of GaN from the Materials Project", "k": 5}
            )
            elapsed = time.perf_counter() - t0
            assert not result.is_error, result.content
        return elapsed

    asyncio.run(once())  # warm the caches (embeddings, the exported encoder)
    times = [asyncio.run(once()) for _ in range(args.runs)]
    figures = {
        "median_s": round(statistics.median(times), 3),
        "min_s": round(min(times), 3),
        "max_s": round(max(times), 3),
        "runs": len(times),
    }
    print(f"serve (bundled catalog, default router) to the first search_tools answer: {figures}")
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tokens").set_defaults(run=bench_tokens)
    search = commands.add_parser("search")
    search.add_argument("--routes", type=int, default=10_000)
    search.add_argument("--queries", type=int, default=200)
    search.add_argument("--data", type=Path, help="../shared/data")
    search.add_argument("--work", default="out/bench-integrations", help="catalog and index here")
    search.add_argument(
        "--executable-only",
        action="store_true",
        help="search as the gateway does by default (executable routes only; default: all)",
    )
    search.set_defaults(run=bench_search)
    call = commands.add_parser("call")
    call.add_argument("--calls", type=int, default=200)
    call.set_defaults(run=bench_call)
    cold = commands.add_parser("coldstart")
    cold.add_argument("--runs", type=int, default=5)
    cold.set_defaults(run=bench_coldstart)
    args = parser.parse_args(argv)
    figures = args.run(args)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
