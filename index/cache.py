"""A content-addressed embedding cache on disk, as plain files.

Layout under the cache folder::

    <sha256(model identity)[:16]>/
        identity.txt                 the model identity, for people
        seg-<n>.npy                  float32 (rows, dim)
        seg-<n>.json                 {"identity": ..., "keys": [sha256(identity + text), ...]}

A segment's ``.json`` is written (atomically) after its ``.npy``: it is the commit mark,
and a segment without one, or whose files disagree, is ignored. Texts are keyed by
``sha256(identity + "\\0" + text)``, so a rebuild, an incremental update or another index
embeds only texts no earlier run embedded with the same model, and identical texts are
embedded once. Nothing here is pickled.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["EmbedStats", "EmbeddingCache", "embed_texts"]

logger = logging.getLogger(__name__)

#: Texts are encoded (and cached) in chunks of this many, so an interrupted build keeps
#: what it has done.
ENCODE_CHUNK = 2048
#: More segments than this (say, after many small incremental updates) are merged.
MAX_SEGMENTS = 64


def _key(identity: str, text: str) -> str:
    return hashlib.sha256(f"{identity}\0{text}".encode()).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class EmbeddingCache:
    """Vectors by ``(model identity, text)``; thread-unsafe, process-safe for readers."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._loaded: dict[str, dict[str, tuple[int, int]]] = {}
        self._segments: dict[str, dict[int, np.ndarray]] = {}

    def _folder(self, identity: str) -> Path:
        return self.root / hashlib.sha256(identity.encode()).hexdigest()[:16]

    def _index(self, identity: str) -> dict[str, tuple[int, int]]:
        """key -> (segment, row), reading the committed segments once."""
        if identity in self._loaded:
            return self._loaded[identity]
        table: dict[str, tuple[int, int]] = {}
        folder = self._folder(identity)
        if folder.is_dir():
            for meta in sorted(folder.glob("seg-*.json")):
                try:
                    seg = int(meta.stem.split("-", 1)[1])
                    info = json.loads(meta.read_text(encoding="utf-8"))
                    if info.get("identity") != identity:
                        continue
                    for row, key in enumerate(info["keys"]):
                        table.setdefault(key, (seg, row))
                except (ValueError, KeyError, OSError, json.JSONDecodeError):
                    logger.warning("ignoring unreadable cache segment %s", meta)
        self._loaded[identity] = table
        self._segments.setdefault(identity, {})
        return table

    def _segment(self, identity: str, seg: int) -> np.ndarray:
        loaded = self._segments[identity]
        if seg not in loaded:
            path = self._folder(identity) / f"seg-{seg:06d}.npy"
            loaded[seg] = np.load(path, mmap_mode="r", allow_pickle=False)
        return loaded[seg]

    def __len__(self) -> int:
        return sum(len(t) for t in self._loaded.values())

    def get(self, identity: str, texts: Sequence[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, found)``: rows for found texts, zeros elsewhere, and the found mask."""
        table = self._index(identity)
        out = np.zeros((len(texts), dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
        by_segment: dict[int, list[tuple[int, int]]] = {}
        for i, text in enumerate(texts):
            hit = table.get(_key(identity, text))
            if hit is not None:
                by_segment.setdefault(hit[0], []).append((i, hit[1]))
        for seg, pairs in by_segment.items():
            try:
                matrix = self._segment(identity, seg)
                idx = np.array([p[0] for p in pairs])
                rows = np.array([p[1] for p in pairs])
                if matrix.ndim != 2 or matrix.shape[1] != dim or rows.max() >= len(matrix):
                    raise ValueError("shape")
                out[idx] = matrix[rows]
                found[idx] = True
            except (OSError, ValueError):
                logger.warning("cache segment %d of %s is unusable; re-embedding", seg, identity)
        return out, found

    def put(self, identity: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store a batch of vectors as one new segment."""
        if not texts:
            return
        table = self._index(identity)
        folder = self._folder(identity)
        folder.mkdir(parents=True, exist_ok=True)
        ident_file = folder / "identity.txt"
        if not ident_file.exists():
            _write_atomic(ident_file, identity.encode("utf-8"))
        existing = [int(p.stem.split("-", 1)[1]) for p in folder.glob("seg-*.npy")]
        seg = max(existing, default=-1) + 1
        keys = [_key(identity, t) for t in texts]
        npy = folder / f"seg-{seg:06d}.npy"
        tmp = npy.with_name(f".{npy.name}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as handle:
            np.save(handle, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, npy)
        meta = json.dumps({"identity": identity, "keys": keys}).encode("utf-8")
        _write_atomic(folder / f"seg-{seg:06d}.json", meta)
        for row, key in enumerate(keys):
            table.setdefault(key, (seg, row))
        if len(existing) + 1 > MAX_SEGMENTS:
            self.compact(identity)

    def compact(self, identity: str) -> None:
        """Merge every segment of ``identity`` into one (many small updates make many)."""
        table = self._index(identity)
        folder = self._folder(identity)
        old = sorted(folder.glob("seg-*.json"))
        if len(old) <= 1 or not table:
            return
        keys = list(table)
        dim = self._segment(identity, table[keys[0]][0]).shape[1]
        merged = np.zeros((len(keys), dim), dtype=np.float32)
        for i, key in enumerate(keys):
            seg, row = table[key]
            merged[i] = self._segment(identity, seg)[row]
        seg = max(int(p.stem.split("-", 1)[1]) for p in folder.glob("seg-*.npy")) + 1
        npy = folder / f"seg-{seg:06d}.npy"
        tmp = npy.with_name(f".{npy.name}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as handle:
            np.save(handle, merged, allow_pickle=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, npy)
        meta = json.dumps({"identity": identity, "keys": keys}).encode("utf-8")
        _write_atomic(folder / f"seg-{seg:06d}.json", meta)
        self._segments[identity] = {}
        for meta_file in old:  # the merged segment is committed: drop the old ones
            meta_file.unlink(missing_ok=True)
            meta_file.with_suffix(".npy").unlink(missing_ok=True)
        self._loaded[identity] = {key: (seg, i) for i, key in enumerate(keys)}


@dataclass
class EmbedStats:
    """What :func:`embed_texts` did: texts asked, unique among them, from cache, encoded."""

    requested: int = 0
    unique: int = 0
    cached: int = 0
    encoded: int = 0
    seconds: float = 0.0

    def add(self, other: EmbedStats) -> None:
        self.requested += other.requested
        self.unique += other.unique
        self.cached += other.cached
        self.encoded += other.encoded
        self.seconds += other.seconds


def embed_texts(
    encoder: object,
    texts: Sequence[str],
    *,
    cache: EmbeddingCache | None = None,
    progress: Callable[[int], object] | None = None,
) -> tuple[np.ndarray, EmbedStats]:
    """Vectors for ``texts`` (which must be unique), from the cache where possible.

    ``progress(n)`` is called after each chunk with the number of texts it finished.
    """
    import time

    identity: str = encoder.identity  # type: ignore[attr-defined]
    dim: int = encoder.dim  # type: ignore[attr-defined]
    stats = EmbedStats(requested=len(texts), unique=len(texts))
    if cache is not None:
        vectors, found = cache.get(identity, texts, dim)
    else:
        vectors = np.zeros((len(texts), dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
    stats.cached = int(found.sum())
    if progress is not None and stats.cached:
        progress(stats.cached)
    missing = np.flatnonzero(~found)
    # Encode short texts together: padding is per batch, so similar lengths batch best.
    missing = missing[np.argsort([len(texts[int(i)]) for i in missing], kind="stable")]
    start = time.perf_counter()
    for lo in range(0, missing.size, ENCODE_CHUNK):
        chunk = missing[lo : lo + ENCODE_CHUNK]
        batch = [texts[int(i)] for i in chunk]
        encoded = encoder.encode(batch)  # type: ignore[attr-defined]
        vectors[chunk] = encoded
        if cache is not None:
            try:
                cache.put(identity, batch, encoded)
            except OSError as exc:  # a cache only saves time: the vectors are here
                logger.warning("embedding cache %s not written (%s); going on", cache.root, exc)
                cache = None
        stats.encoded += len(batch)
        if progress is not None:
            progress(len(batch))
    stats.seconds = time.perf_counter() - start
    return vectors, stats
