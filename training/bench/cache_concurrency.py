"""Two processes embedding into one embedding cache at once (run on demand; not a test).

    python -m schemarouter.training.bench.cache_concurrency [--runs 20] [--texts 360]
        [--batch 12] [--processes 2] [--encoder hashing|default]

Each run starts ``--processes`` fresh Python processes on an empty cache folder; they wait
for a common start time, then each embeds its ``--texts`` texts (a third of them shared with
the next process) through :func:`~schemarouter.index.cache.embed_texts` in batches of
``--batch``, the way a router embeds as providers register one after another. When all have
finished, a new :class:`~schemarouter.index.cache.EmbeddingCache` reads every text back and
compares its vector with the encoder's own: a *wrong* vector belongs to another text (the
fault of issue #24, finding 5), a *lost* one is missing. Prints one line per run and the
totals; ``--json`` prints them as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["check_cache", "main", "run_once", "texts_for"]


def _encoder(name: str) -> Any:
    if name == "hashing":
        from schemarouter.index import HashingEncoder

        return HashingEncoder(64)
    from schemarouter.index.encoders.defaults import default_encoder

    return default_encoder()


def texts_for(worker: int, count: int) -> list[str]:
    """``count`` texts for ``worker``; the last third are also the next worker's first."""
    shared = count // 3
    start = worker * (count - shared)
    return [
        f"route {i}: fetch record {i} of collection {i % 17} by id"
        for i in range(start, start + count)
    ]


def _worker(args: argparse.Namespace) -> int:
    from schemarouter.index.cache import EmbeddingCache, embed_texts

    encoder = _encoder(args.encoder)
    texts = texts_for(args.worker, args.texts)
    delay = args.start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    for lo in range(0, len(texts), args.batch):
        # a cache per batch, as a router per registration: each reads what others wrote
        embed_texts(encoder, texts[lo : lo + args.batch], cache=EmbeddingCache(args.cache))
    return 0


def check_cache(cache: Path, texts: list[str], encoder: Any) -> dict[str, int]:
    """How many of ``texts`` the cache at ``cache`` holds with the right vector, with another
    text's vector, or not at all."""
    from schemarouter.index.cache import EmbeddingCache

    vectors, found = EmbeddingCache(cache).get(encoder.identity, texts, encoder.dim)
    expected = encoder.encode(texts)
    right = np.isclose(vectors, expected, atol=1e-6).all(axis=1)
    return {
        "texts": len(texts),
        "right": int((found & right).sum()),
        "wrong": int((found & ~right).sum()),
        "lost": int((~found).sum()),
    }


def run_once(
    cache: Path, *, processes: int, texts: int, batch: int, encoder: str, timeout: float = 600
) -> dict[str, Any]:
    """One run on the empty folder ``cache``: what the processes left there."""
    start_at = time.time() + 3.0  # time for every interpreter to start and import
    command = [sys.executable, "-m", "schemarouter.training.bench.cache_concurrency", "--worker"]
    common = ["--cache", str(cache), "--texts", str(texts), "--batch", str(batch)]
    common += ["--encoder", encoder, "--start-at", str(start_at)]
    children = [
        subprocess.Popen(
            [*command, str(i), *common], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for i in range(processes)
    ]
    failures = []
    for child in children:
        _, err = child.communicate(timeout=timeout)
        if child.returncode:
            failures.append(err.decode("utf-8", "replace")[-2000:])
    everything = sorted({t for i in range(processes) for t in texts_for(i, texts)})
    result: dict[str, Any] = check_cache(cache, everything, _encoder(encoder))
    result["segments"] = len(list(cache.rglob("seg-*.json")))
    result["worker_failures"] = failures
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--texts", type=int, default=360, help="texts per process")
    parser.add_argument("--batch", type=int, default=12, help="texts per embed_texts call")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--encoder", choices=["hashing", "default"], default="hashing")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        return _worker(args)
    runs = []
    for number in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="sr-cache-") as folder:
            result = run_once(
                Path(folder) / "cache",
                processes=args.processes,
                texts=args.texts,
                batch=args.batch,
                encoder=args.encoder,
            )
        runs.append(result)
        if not args.json:
            print(
                f"run {number:2d}: {result['texts']} texts, {result['right']} right, "
                f"{result['wrong']} wrong, {result['lost']} lost, {result['segments']} segments"
                + (
                    f", {len(result['worker_failures'])} workers failed"
                    if result["worker_failures"]
                    else ""
                )
            )
    totals = {key: sum(r[key] for r in runs) for key in ("texts", "right", "wrong", "lost")}
    totals["runs"] = len(runs)
    totals["worker_failures"] = sum(len(r["worker_failures"]) for r in runs)
    if args.json:
        print(json.dumps({"totals": totals, "runs": runs}, indent=1))
    else:
        print(
            f"{totals['runs']} runs: {totals['wrong']} wrong vectors, {totals['lost']} lost, "
            f"{totals['right']} right of {totals['texts']} texts read back"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
