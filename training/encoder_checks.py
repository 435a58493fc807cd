"""The checks of a ``train-encoder`` model (:mod:`.encoder`): dense-only Recall@k on
tooltrain's validation split (:func:`validate_encoder`), and how closely the exported ONNX
files (fp32, int8) embed like the torch model (:func:`agreement`). On a user's own held-out
requests the recall is :func:`.requests_rows.dense_recall`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "agreement",
    "corpus_texts",
    "request_texts",
    "torch_encode",
    "validate_encoder",
    "validation_line",
]


# -- validation on tooltrain's held-out tools -----------------------------------------------------


def validate_encoder(
    encode: Callable[[Sequence[str]], np.ndarray],
    corpus: Any,
    *,
    per_source: int = 400,
    max_catalog: int = 2000,
    k: int = 5,
    seed: int = 0,
) -> dict[str, Any]:
    """Dense-only Recall@k on the tooltrain ``val`` split, each source over its catalog.

    ``encode`` maps texts to L2-normalized rows. Tool texts are the index's dense endpoint
    texts. At most ``per_source`` requests per source (seeded sample), over at most
    ``max_catalog`` tools: every tool they need plus seeded distractors from the catalog.
    """
    import random

    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.datasets.tooltrain import tool_route

    rng = random.Random(seed)
    out: dict[str, Any] = {}
    recalls: list[float] = []
    for source, records in sorted(corpus.by_source("val").items()):
        records = [r for r in records if r.positives]
        if not records:
            continue
        if len(records) > per_source:
            records = rng.sample(records, per_source)
        keys = corpus.catalogs[source]
        if len(keys) > max_catalog:  # every tool the requests need, and seeded distractors
            needed = {p for r in records for p in r.positives}
            others = [k for k in keys if k not in needed]
            keys = sorted(needed) + rng.sample(others, max(0, max_catalog - len(needed)))
        texts = [endpoint_texts(tool_route(corpus.tools[key]))[1] for key in keys]
        row_of = {key: i for i, key in enumerate(keys)}
        docs = encode(texts)
        queries = encode([r.query for r in records])
        scores = queries @ docs.T
        top = np.argsort(-scores, axis=1)[:, :k]
        hits = []
        for r, row in zip(records, top, strict=True):
            gold = {row_of[p] for p in r.positives if p in row_of}
            hits.append(len(gold & set(row.tolist())) / max(1, len(gold)))
        out[source] = {
            "queries": len(records),
            "tools": len(keys),
            f"recall@{k}": float(np.mean(hits)),
        }
        recalls.append(float(np.mean(hits)))
    out["macro"] = {f"recall@{k}": float(np.mean(recalls)) if recalls else 0.0}
    return out


def torch_encode(model: Any) -> Callable[[Sequence[str]], np.ndarray]:
    def encode(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(
            model.encode(
                list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False
            ),
            dtype=np.float32,
        )

    return encode


def corpus_texts(corpus: Any, n: int = 300) -> list[str]:
    """Held-out tooltrain requests and tool descriptions: what :func:`agreement` compares on."""
    texts = [r.query for r in corpus.records if r.split == "val"][: n // 2]
    texts += [corpus.tools[k].description[:280] for k in list(corpus.tools)[: n // 2]]
    return [t for t in texts if t.strip()]


def agreement(model: Any, fp32: Path, int8: Any, texts: Sequence[str]) -> dict[str, Any]:
    """Cosine of the ONNX vectors (fp32 and int8) to the torch model's on ``texts``."""
    from schemarouter.index.encoders.onnx import OnnxEncoder

    texts = [t for t in texts if t.strip()]
    reference = torch_encode(model)(texts)
    rows = {}
    for name, encoder in (
        ("fp32_onnx", OnnxEncoder.from_file(fp32, int8.folder)),
        ("int8_onnx", int8),
    ):
        cos = np.sum(reference * encoder.encode(texts), axis=1)
        rows[f"{name}_vs_torch"] = {
            "texts": len(texts),
            "mean_cosine": float(cos.mean()),
            "min_cosine": float(cos.min()),
        }
    return {
        "method": "onnxruntime.quantization.quantize_dynamic(per_channel=True, weight_type=QInt8)",
        **rows,
    }


def request_texts(triplets: Sequence[Any], n: int = 300) -> list[str]:
    """A user's requests and route texts (``--requests``), for :func:`agreement`."""
    return list(dict.fromkeys([t.query for t in triplets] + [t.positive for t in triplets]))[:n]


def validation_line(v: dict[str, Any]) -> str:
    """The card's validation in one line, for the command's last words."""
    if "skipped" in v:
        return f"validation skipped ({v['skipped']})"

    def r5(entry: dict[str, Any]) -> float:
        return float(entry.get("macro", entry).get("recall@5", float("nan")))

    where = "held-out requests" if "macro" not in v["trained_torch"] else "tooltrain val"
    return (
        f"{where} dense R@5 base {r5(v['base_minilm_torch']):.3f} -> trained "
        f"{r5(v['trained_torch']):.3f} (int8 {r5(v['trained_int8_onnx']):.3f})"
    )
