"""One large catalog as a user meets it (run on demand; not a test): register, build, save,
load, restore, and a stale and a corrupt index refused.

    python -m schemarouter.training.bench.one_catalog [--tools 100000] [--folder DIR]
        [--out DIR] [--data PATH]

``--tools`` MCP tool definitions in one ``add_mcp_tools`` call (one provider), each named and
described after a tooltrain Seal-Tools tool (cycled, numbered: ``clean_room_123``), with one
string parameter, read-only; :class:`~schemarouter.index.HashingEncoder`, no embedding cache,
no reranker, no abstention (the catalog's own cost, not a model's). Each step runs in a
process of its own, one after another (its progress on standard error), and prints one JSON
line: wall seconds, peak RSS
(``resource.getrusage``) and, where an index is up, ``retrieve(k=5, rerank=False)`` p50 / p95
over 200 real queries (:func:`~schemarouter.training.bench.index.sample_queries`) after one
warm-up query.

- ``build``: register, build the index, save it to ``--folder``.
- ``load``: register again, then load the saved index (``SchemaRouter(index=DIR)``).
- ``from_index``: ``SchemaRouter.from_index(DIR)`` (the registry restored from the folder).
- ``stale``: register the tools with one description changed, then load: refused.
- ``corrupt``: one byte of the largest ``.npy`` file flipped, then load: refused.

With ``--out``, the lines are written to ``one_catalog.json`` there too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["main", "tools"]

STEPS = ("build", "load", "from_index", "stale", "corrupt")


def tools(n: int, data: Path, *, changed: bool = False) -> list[dict[str, Any]]:
    """``n`` MCP tool definitions named and described after Seal-Tools' tools (module
    docstring); ``changed``: the 124th tool's description edited."""
    sources = []
    with (data / "tooltrain" / "seal_tools.tools.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            tool = json.loads(line)
            sources.append((str(tool.get("name", "tool")), str(tool.get("description", ""))[:300]))
    out = []
    for i in range(n):
        name, description = sources[i % len(sources)]
        out.append(
            {
                "name": f"{name}_{i}",
                "description": description + (" (changed)" if changed and i == 123 else ""),
                "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}},
                "annotations": {"readOnlyHint": True},
            }
        )
    return out


def _router(**settings: Any) -> Any:
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    return SchemaRouter(
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
        reranker=None,
        progress=True,
        **settings,
    )


def _latency(router: Any, data: Path) -> dict[str, float]:
    import numpy as np

    from schemarouter.training.bench.index import sample_queries

    queries = sample_queries(data, 201, seed=1)
    router.retrieve(queries[0], k=5, rerank=False)
    spent = []
    for query in queries[1:]:
        started = time.perf_counter()
        router.retrieve(query, k=5, rerank=False)
        spent.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": float(np.percentile(spent, 50)), "p95_ms": float(np.percentile(spent, 95))}


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step(name: str, n: int, folder: Path, data: Path) -> dict[str, Any]:
    """One step (module docstring), in this process."""
    out: dict[str, Any] = {"step": name, "tools": n}
    started = time.monotonic()
    if name in ("build", "load", "stale", "corrupt"):
        router = _router(**({} if name == "build" else {"index": str(folder)}))
        router.add_mcp_tools(tools(n, data, changed=name == "stale"), provider="cat", max_tools=n)
        out["register_s"] = time.monotonic() - started
        began = time.monotonic()
        try:
            router.build_index()
        except Exception as exc:  # stale, corrupt: what the user reads
            out["refused"] = f"{type(exc).__name__}: {exc}"[:600]
        out["index_s"] = time.monotonic() - began
        if name == "build":
            began = time.monotonic()
            router.index.save(str(folder))
            out["save_s"] = time.monotonic() - began
            out["disk_mb"] = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6
    else:
        from schemarouter import SchemaRouter
        from schemarouter.index import HashingEncoder

        router = SchemaRouter.from_index(
            str(folder),
            encoder=HashingEncoder(),
            embedding_cache=None,
            abstention=None,
            reranker=None,
        )
        out["from_index_s"] = time.monotonic() - started
    out["rss_mib"] = _rss_mib()
    if name in ("build", "load", "from_index"):
        out.update(_latency(router, data))
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in out.items()}


def _corrupt(folder: Path) -> None:
    largest = max(folder.rglob("*.npy"), key=lambda p: p.stat().st_size)
    content = bytearray(largest.read_bytes())
    content[len(content) // 2] ^= 0xFF
    largest.write_bytes(bytes(content))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, help="where the index is saved (default: a temp)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--data", type=Path, default=None, help="shared data folder")
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)  # one step, here
    args = parser.parse_args(argv)
    data = args.data or Path(os.environ.get("SCHEMAROUTER_SHARED_DATA", "../shared/data"))
    if args.step:
        print(json.dumps(step(args.step, args.tools, args.folder, data)), flush=True)
        return 0
    folder = args.folder or Path(tempfile.mkdtemp(prefix="one-catalog-"))
    lines = []
    for name in STEPS:
        if name == "corrupt":
            _corrupt(folder)
        print(f"{name} ...", file=sys.stderr, flush=True)
        command = [
            sys.executable,
            "-m",
            __spec__.name if __spec__ else "schemarouter.training.bench.one_catalog",
        ]
        command += [
            "--step",
            name,
            "--tools",
            str(args.tools),
            "--folder",
            str(folder),
            "--data",
            str(data),
        ]
        done = subprocess.run(
            command, stdout=subprocess.PIPE, text=True, check=True
        )  # progress: stderr
        line = done.stdout.strip().splitlines()[-1]
        print(line, flush=True)
        lines.append(json.loads(line))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "one_catalog.json").write_text(json.dumps(lines, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
