"""HNSW parameters by measured recall (run on demand; not a test): issue #26.

    python -m schemarouter.training.bench.hnsw [--texts 20000] [--queries 300] [--out DIR]

Embeds real tool texts (the endpoint documents' dense texts of the shared data's G1,
LiveMCPBench, MetaTool and OpenAPI endpoints, recombined into providers by
:mod:`schemarouter.training.datasets.recombined`, so each text is as the index would embed it)
with the default encoder (the shipped one, through the embedding cache), and real queries
(G1 and MetaTool); ``--hashing`` uses ``HashingEncoder(384)`` instead. For each FAISS
layout (``IndexHNSWFlat`` / ``IndexHNSWSQ`` 8-bit) and each
``M`` and ``efConstruction``, it times the build (all vectors in one ``add``) and measures
recall@50 against exact inner-product search at efSearch 64 / 128 / 256, and the size of the
serialized index. Prints one row per setting; ``--out`` writes ``hnsw.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main", "sweep"]


def _texts(data: Path, n: int) -> list[str]:
    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.datasets.recombined import load_pool, synth_providers

    out: dict[str, None] = {}
    for p in synth_providers(n, seed=0, pool=load_pool(data)):
        for route in p.routes():
            out[endpoint_texts(route)[1]] = None
    return list(out)[:n]


def sweep(
    vectors: np.ndarray,
    queries: np.ndarray,
    *,
    ms: Sequence[int] = (16, 32),
    efcs: Sequence[int] = (40, 80),
    efs: Sequence[int] = (64, 128, 256),
    k: int = 50,
) -> list[dict[str, Any]]:
    import faiss as faiss_module

    faiss: Any = faiss_module
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(vectors)
    _, truth = exact.search(queries, k)
    rows = []
    for layout in ("flat", "sq8"):
        for m in ms:
            for efc in efcs:
                if layout == "flat":
                    index = faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
                else:
                    index = faiss.IndexHNSWSQ(
                        vectors.shape[1], faiss.ScalarQuantizer.QT_8bit, m,
                        faiss.METRIC_INNER_PRODUCT,
                    )  # fmt: skip
                index.hnsw.efConstruction = efc
                t0 = time.perf_counter()
                if layout == "sq8":
                    index.train(vectors)
                index.add(vectors)
                build_s = time.perf_counter() - t0
                row: dict[str, Any] = {
                    "layout": layout,
                    "M": m,
                    "efConstruction": efc,
                    "build_s": round(build_s, 2),
                    "bytes": int(faiss.serialize_index(index).size),
                }
                for ef in efs:
                    params = faiss.SearchParametersHNSW(efSearch=max(ef, k))
                    t0 = time.perf_counter()
                    _, found = index.search(queries, k, params=params)
                    ms_per_q = 1000 * (time.perf_counter() - t0) / len(queries)
                    hits = [len(set(f) & set(t)) / k for f, t in zip(found, truth, strict=True)]
                    row[f"recall@{k}_ef{ef}"] = round(float(np.mean(hits)), 4)
                    row[f"ms_per_query_ef{ef}"] = round(ms_per_q, 3)
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    from schemarouter.index.build import default_embedding_cache
    from schemarouter.index.cache import embed_texts
    from schemarouter.index.encoders.defaults import default_encoder
    from schemarouter.index.encoders.dense import HashingEncoder, encode_request
    from schemarouter.training.bench.index import sample_queries
    from schemarouter.training.datasets.shared_data import shared_data_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None)
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hashing", action="store_true", help="HashingEncoder(384) vectors")
    parser.add_argument("--ms", default="16,32", help="HNSW M values")
    parser.add_argument("--efc", default="40,80", help="efConstruction values")
    parser.add_argument("--ef", default="64,128,256", help="efSearch values")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    import faiss

    faiss.omp_set_num_threads(args.threads)
    data = shared_data_dir(args.data)
    encoder = HashingEncoder(384) if args.hashing else default_encoder()
    texts = _texts(data, args.texts)
    t0 = time.perf_counter()
    cache = None if args.hashing else default_embedding_cache()
    vectors, stats = embed_texts(encoder, texts, cache=cache)
    embed_s = time.perf_counter() - t0
    queries = np.stack(
        [encode_request(encoder, q) for q in sample_queries(data, args.queries, seed=1)]
    )
    head = {
        "encoder": encoder.identity,
        "texts": len(texts),
        "encoded": stats.encoded,
        "from_cache": stats.cached,
        "embed_s": round(embed_s, 1),
        "queries": len(queries),
    }
    print(json.dumps(head), flush=True)
    rows = sweep(
        np.ascontiguousarray(vectors),
        np.ascontiguousarray(queries, dtype=np.float32),
        ms=[int(x) for x in args.ms.split(",")],
        efcs=[int(x) for x in args.efc.split(",")],
        efs=[int(x) for x in args.ef.split(",")],
    )
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "hnsw.json").write_text(json.dumps({"head": head, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
