"""Registration benchmark (run on demand; not a test): one provider per call, as a user adding
MCP servers or APIs one by one does (issue #26).

    python -m schemarouter.training.bench.registration [--tools 10000] [--routes 100000]
        [--modes one,batch] [--out DIR]

**Real tool definitions** (``--tools``): MCP ``tools/list`` entries written from the shared
data, in this order: StableToolBench G1 ``api_list`` entries (one provider per RapidAPI
tool, its APIs as tools, parameters as the input schema), LiveMCPBench listings (one provider
per server) and the tooltrain ``*.tools.jsonl`` catalogs (one provider per
:func:`~schemarouter.training.datasets.tooltrain.provider_of` name; the names that hold more
than 50 independent tools (tldr commands, Seal-Tools, BFCL functions) give one provider per
tool), cut at ``--tools`` definitions. Each provider is one ``router.add_mcp_tools`` call.

**Generated routes** (``--routes``): :mod:`schemarouter.training.datasets.recombined`
providers (real endpoints recombined), each written as an MCP listing (name, description,
input schema) and registered with one ``add_mcp_tools`` call.

Modes: ``one`` registers call after call; ``batch`` makes the same calls inside
``router.batch()``. Both print the total, the compile (adapter) and registry shares, the cost
per call in each tenth of the run (flat when registration is linear), and the registry
fingerprint (equal across modes). No index is built (that is
:mod:`schemarouter.training.bench.scale`). With ``--out``, writes ``registration.json`` and
``registration.png`` (seconds per 1,000 routes against routes registered).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["generated_listings", "main", "real_listings", "run"]

#: A tooltrain provider name with more tools than this is a set of independent tools.
_SPLIT_ABOVE = 50
_G1_FILES = ("G1_category", "G1_instruction", "G1_tool")
_G1_TYPES = {"STRING": "string", "NUMBER": "number", "BOOLEAN": "boolean", "ARRAY": "array"}

Listing = tuple[str, str, dict[str, Any]]  # provider id, display name, tools/list result


def _slug(text: str, taken: set[str]) -> str:
    from schemarouter.registry.compile import slugify

    base = slugify(text, max_length=60)
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}-{n}", n + 1
    taken.add(ident)
    return ident


def _g1_tool(api: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required = []
    for kind in ("required_parameters", "optional_parameters"):
        for p in api.get(kind) or []:
            name = str(p.get("name") or "")[:200]
            if not name:
                continue
            schema: dict[str, Any] = {"description": str(p.get("description") or "")[:500]}
            if p.get("type") in _G1_TYPES:
                schema["type"] = _G1_TYPES[p["type"]]
            props[name] = schema
            if kind == "required_parameters":
                required.append(name)
    input_schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        input_schema["required"] = sorted(set(required))
    return {
        "name": api["api_name"][:256],
        "description": str(api.get("api_description") or ""),
        "inputSchema": input_schema,
    }


def real_listings(data: Path) -> Iterator[tuple[int, Listing]]:
    """``(definitions, (provider id, display name, listing))`` in the order above."""
    from schemarouter.training.datasets.tooltrain import load_tooltrain, provider_of

    taken: set[str] = set()
    g1: dict[str, dict[str, dict[str, Any]]] = {}
    for name in _G1_FILES:
        for item in json.loads((data / "stabletoolbench" / f"{name}.json").read_text()):
            for api in item["api_list"]:
                g1.setdefault(api["tool_name"], {}).setdefault(api["api_name"], _g1_tool(api))
    for tool_name, apis in g1.items():
        tools = list(apis.values())
        yield len(tools), (_slug(tool_name, taken), tool_name, {"tools": tools})
    for server in json.loads((data / "mcp" / "livemcp_tools.json").read_text()):
        tools = [t for listing in server.get("tools", {}).values() for t in listing["tools"]]
        unique = list({t["name"]: t for t in tools}.values())
        if unique:
            yield len(unique), (_slug(server["name"], taken), server["name"], {"tools": unique})
    corpus = load_tooltrain(data)
    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for key in sorted(corpus.tools):
        tool = corpus.tools[key]
        display, name = provider_of(tool)
        schema = dict(tool.parameters) if tool.parameters else {}
        if schema.get("type") != "object" or not isinstance(schema.get("properties", {}), dict):
            schema = {"type": "object", "properties": {}}
        entry: dict[str, Any] = {
            "name": name[:256],
            "description": tool.description,
            "inputSchema": schema,
        }
        groups.setdefault((tool.source, display), {}).setdefault(entry["name"], entry)
    for (source, display), by_name in groups.items():
        tools = list(by_name.values())
        parts = [[t] for t in tools] if len(tools) > _SPLIT_ABOVE else [tools]
        for part in parts:
            label = f"{display} {part[0]['name']}" if len(parts) > 1 else display
            yield len(part), (_slug(f"{source}-{label}", taken), label[:256], {"tools": part})


def generated_listings(n_routes: int, data: Path) -> Iterator[tuple[int, Listing]]:
    """The recombined providers of ``n_routes`` routes as MCP listings."""
    from schemarouter.training.datasets.recombined import load_pool, synth_providers

    for p in synth_providers(n_routes, seed=0, pool=load_pool(data)):
        tools = []
        for e in p.endpoints:
            schema = e.input_schema or {"type": "object", "properties": {}}
            tools.append(
                {"name": e.name[:256], "description": e.description, "inputSchema": schema}
            )
        yield len(tools), (p.provider.id, p.provider.display_name, {"tools": tools})


def _take(listings: Iterator[tuple[int, Listing]], limit: int) -> list[Listing]:
    out, total = [], 0
    for n, listing in listings:
        if total >= limit:
            break
        if total + n > limit:  # cut the last listing to land on ``limit`` exactly
            tools = listing[2]["tools"][: limit - total]
            listing, n = (listing[0], listing[1], {"tools": tools}), len(tools)
        out.append(listing)
        total += n
    return out


def run(listings: Sequence[Listing], *, mode: str) -> dict[str, Any]:
    """Register ``listings`` with one ``add_mcp_tools`` call each; figures of the run."""
    from schemarouter.adapters.mcp import mcp_tools_registration
    from schemarouter.contracts import Provider
    from schemarouter.router import SchemaRouter

    router = SchemaRouter(abstention=None, reranker=None)
    registry = router.registry
    providers = [Provider(id=pid, display_name=name or pid) for pid, name, _ in listings]
    compile_s = 0.0
    register_s = 0.0
    marks: list[tuple[int, float]] = []
    routes = 0

    def one(i: int) -> None:
        nonlocal compile_s, register_s, routes
        t0 = time.perf_counter()
        registration = mcp_tools_registration(listings[i][2], provider=providers[i])
        t1 = time.perf_counter()
        router.register(registration)  # what add_mcp_tools does after compiling
        t2 = time.perf_counter()
        compile_s += t1 - t0
        register_s += t2 - t1
        routes += len(registration.routes)

    step = max(1, len(listings) // 10)
    start = time.perf_counter()
    batch: Any = getattr(router, "batch", None)  # the code before issue #26 has none
    if mode == "batch" and batch is None:
        return {"mode": mode, "skipped": "this code has no router.batch()"}
    with batch() if mode == "batch" else contextlib.nullcontext():
        for i in range(len(listings)):
            one(i)
            if (i + 1) % step == 0 or i + 1 == len(listings):
                marks.append((routes, time.perf_counter() - start))
    total = time.perf_counter() - start
    snapshot = registry.snapshot()
    fingerprint = snapshot.fingerprint
    per_k = []
    for (r0, t0), (r1, t1) in zip([(0, 0.0), *marks], marks, strict=False):
        per_k.append((r1, round(1000 * (t1 - t0) / max(r1 - r0, 1), 4)))
    return {
        "mode": mode,
        "calls": len(listings),
        "routes": len(snapshot),
        "total_s": round(total, 2),
        "compile_s": round(compile_s, 2),
        "register_s": round(register_s, 2),
        "register_ms_per_call": round(1000 * register_s / max(len(listings), 1), 4),
        "s_per_1000_routes": per_k,
        "registry_fingerprint": fingerprint,
        "version": snapshot.version,
    }


def _plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for r in results:
        if "s_per_1000_routes" not in r:
            continue
        xs = [x for x, _ in r["s_per_1000_routes"]]
        ys = [y for _, y in r["s_per_1000_routes"]]
        ax.plot(xs, ys, marker="o", label=f"{r['set']}, {r['mode']} ({r.get('code', 'this')})")
    ax.set_xlabel("routes registered")
    ax.set_ylabel("seconds per 1,000 routes (compile + register)")
    ax.set_yscale("log")
    ax.set_title("add_mcp_tools, one provider per call (2 shared CPU cores)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.training.datasets.shared_data import shared_data_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="the shared data folder")
    parser.add_argument("--tools", type=int, default=10_000, help="real definitions (0: none)")
    parser.add_argument("--routes", type=int, default=100_000, help="generated routes (0: none)")
    parser.add_argument("--modes", default="one,batch")
    parser.add_argument("--code", default="this", help="a label for the code measured")
    parser.add_argument("--out", default=None, help="folder for registration.json / .png")
    args = parser.parse_args(argv)
    data = shared_data_dir(args.data)
    results: list[dict[str, Any]] = []
    sets = []
    if args.tools:
        sets.append(("real", _take(real_listings(data), args.tools)))
    if args.routes:
        sets.append(("generated", _take(generated_listings(args.routes, data), args.routes)))
    for name, listings in sets:
        for mode in args.modes.split(","):
            row = {"set": name, "code": args.code, **run(listings, mode=mode)}
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        earlier = out / "registration.json"
        kept = json.loads(earlier.read_text()) if earlier.exists() else []
        kept = [r for r in kept if r.get("code") != args.code]
        (out / "registration.json").write_text(json.dumps(kept + results, indent=1))
        _plot(kept + results, out / "registration.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
