"""A content-addressed embedding cache on disk, as plain files, safe for several processes.

Layout under the cache folder::

    <sha256(model identity)[:16]>/
        identity.txt                 the model identity, for people
        seg-<digest>.npy             float32 (rows, dim)
        seg-<digest>.json            {"format": 2, "identity", "dim", "keys": [...],
                                      "vectors_sha256": sha256 of the .npy file}

Texts are keyed by ``sha256(identity + "\0" + text)``, so a rebuild, an incremental update
or another index embeds only texts no earlier run embedded with the same model, and
identical texts are embedded once. Nothing here is pickled.

**Several writers.** Segments are written once and named by their content: ``<digest>`` is
the SHA-256 of the ``.json`` file's bytes, which hold the keys and the SHA-256 of the
``.npy``. A writer writes both under temporary names and renames them in place (``.npy``
first: the ``.json`` is the commit mark), so two processes embedding into one cache at
once never write the same name with different content (segments numbered 0, 1, 2 ... once
let one process's vectors land under another's keys). Merging many small segments takes an
exclusive lock (``.compact.lock``) and deletes only the segments it merged.

**A reader trusts nothing.** Each segment is checked before any row of it is used: both
files regular (never a FIFO or a device, whatever a symlink points at) and of bounded size,
the ``.json`` valid JSON no deeper than documents may nest, of this format and shape (this
model, this dimension, one 64-hex key per row), its name its own hash, the ``.npy`` the one
it names (SHA-256), float32 of shape ``(rows, dim)``. A segment that fails is skipped with a
warning (its :class:`~schemarouter.errors.CorruptIndexError` is kept in
:attr:`EmbeddingCache.problems`); a row that is not finite (``NaN``, ``inf``) is skipped.
Skipped texts are embedded again and written as a new segment: the cache only saves time,
so a damaged one costs time, never a wrong vector.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import re
import stat
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from schemarouter.errors import CorruptIndexError
from schemarouter.registry.bounds import UnreadableFile, load_json, read_file_bytes

__all__ = ["EmbedStats", "EmbeddingCache", "counted", "embed_texts", "progress_bar"]

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

#: Texts are encoded (and cached) in chunks of this many, so an interrupted build keeps
#: what it has done.
ENCODE_CHUNK = 2048
#: More segments than this (say, after many small incremental updates) are merged.
MAX_SEGMENTS = 64
#: The segment format this module writes (and the only one it reads).
FORMAT = 2
#: Largest segment ``.json`` read (about 3.8 million keys).
MAX_META_BYTES = 256 * 1024 * 1024
_KEY = re.compile(r"[0-9a-f]{64}")
_NAME = re.compile(r"seg-([0-9a-f]{32})\.json")
_CHUNK = 1 << 20

#: key -> where its vector may be: (segment digest, row), best first
_Table = dict[str, list[tuple[str, int]]]


def _key(identity: str, text: str) -> str:
    return hashlib.sha256(f"{identity}\0{text}".encode()).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _npy_bytes(vectors: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
    return buffer.getvalue()


def _file_sha256(path: Path) -> str:
    """SHA-256 of a regular file, read in slices (refused without blocking if it is a FIFO
    or a device)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableFile("not a regular file")
        digest = hashlib.sha256()
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


class _Segment:
    """One verified segment: its keys and (memory-mapped) vectors."""

    def __init__(self, digest: str, keys: list[str], vectors: np.ndarray) -> None:
        self.digest, self.keys, self.vectors = digest, keys, vectors


class EmbeddingCache:
    """Vectors by ``(model identity, text)``; safe for several processes reading and writing
    one folder at once (see the module docstring); one instance per thread."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._tables: dict[str, _Table] = {}
        self._segments: dict[str, _Segment | None] = {}  # digest -> verified, or refused
        #: Segments refused since this cache was opened, each with what was wrong.
        self.problems: list[CorruptIndexError] = []

    def _folder(self, identity: str) -> Path:
        return self.root / hashlib.sha256(identity.encode()).hexdigest()[:16]

    # -- reading -------------------------------------------------------------------------

    def _refuse(self, digest: str, path: Path, what: str) -> None:
        error = CorruptIndexError(
            f"embedding-cache segment refused: {what}",
            where=str(path),
            hint="Its texts are embedded again; delete the file to stop this warning",
        )
        self.problems.append(error)
        self._segments[digest] = None
        logger.warning("%s", error)

    def _meta(self, path: Path, identity: str, dim: int | None) -> dict[str, Any] | None:
        """The checked ``.json`` of the segment at ``path``, or ``None`` where it is not one
        this cache may read (``FileNotFoundError``: merged away by another process)."""
        match = _NAME.fullmatch(path.name)
        if match is None:
            logger.debug("ignoring %s (not a segment of this cache format)", path)
            return None
        digest = match.group(1)
        if not os.path.lexists(path):
            raise FileNotFoundError(path)
        try:
            raw = read_file_bytes(path, max_bytes=MAX_META_BYTES)
            if hashlib.sha256(raw).hexdigest()[:32] != digest:
                raise UnreadableFile(
                    "its content does not match its name (a torn or foreign write)"
                )
            info = load_json(raw)
        except UnreadableFile as exc:
            self._refuse(digest, path, str(exc))
            return None
        problem = _shape_problem(info, identity, dim)
        if problem:
            self._refuse(digest, path, problem)
            return None
        checked: dict[str, Any] = info
        return checked

    def _table(self, identity: str, dim: int | None, *, fresh: bool = False) -> _Table:
        """key -> candidate places, reading the committed segments' keys once."""
        if identity in self._tables and not fresh:
            return self._tables[identity]
        table: _Table = {}
        folder = self._folder(identity)
        if folder.is_dir():
            for meta in sorted(folder.glob("seg-*.json")):
                digest = meta.stem.removeprefix("seg-")
                if digest in self._segments and self._segments[digest] is None:
                    continue  # refused before
                try:
                    info = self._meta(meta, identity, dim)
                except FileNotFoundError:
                    continue
                for row, key in enumerate(info["keys"] if info else ()):
                    table.setdefault(key, []).append((digest, row))
        self._tables[identity] = table
        return table

    def _segment(self, identity: str, digest: str, dim: int | None) -> _Segment | None:
        """The verified segment ``digest`` (of dimension ``dim``; ``None``: the one it
        declares), or ``None`` where it is refused. ``FileNotFoundError`` where it was
        merged away meanwhile."""
        if digest in self._segments:
            return self._segments[digest]
        meta_path = self._folder(identity) / f"seg-{digest}.json"
        npy = meta_path.with_suffix(".npy")
        info = self._meta(meta_path, identity, dim)
        if info is None:
            return None
        keys: list[str] = info["keys"]
        width: int = info["dim"]
        if not os.path.lexists(npy):
            raise FileNotFoundError(npy)
        try:
            if _file_sha256(npy) != info["vectors_sha256"]:
                raise UnreadableFile("its vectors are not the ones its keys were written with")
            vectors = np.load(npy, mmap_mode="r", allow_pickle=False)
        except (UnreadableFile, OSError, ValueError) as exc:
            self._refuse(digest, npy, str(exc))
            return None
        if vectors.dtype != np.float32 or vectors.shape != (len(keys), width):
            self._refuse(
                digest,
                npy,
                f"vectors of {vectors.dtype} {vectors.shape}, not float32 ({len(keys)}, {width})",
            )
            return None
        segment = _Segment(digest, keys, vectors)
        self._segments[digest] = segment
        return segment

    def __len__(self) -> int:
        return sum(len(t) for t in self._tables.values())

    def get(self, identity: str, texts: Sequence[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, found)``: rows for found texts, zeros elsewhere, and the found mask.
        A text is found only in a verified segment, with a finite vector."""
        out = np.zeros((len(texts), dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
        keys = [_key(identity, text) for text in texts]
        for attempt in (1, 2):
            table = self._table(identity, dim, fresh=attempt == 2)
            vanished = False
            for i in np.flatnonzero(~found):
                for digest, row in table.get(keys[i], ()):
                    try:
                        segment = self._segment(identity, digest, dim)
                    except FileNotFoundError:  # merged away by another process meanwhile
                        vanished = True
                        continue
                    if segment is None or segment.keys[row] != keys[i]:
                        continue
                    vector = np.asarray(segment.vectors[row])
                    if not np.isfinite(vector).all():
                        logger.warning(
                            "a cached vector is not finite (segment %s, row %d); embedding again",
                            digest,
                            row,
                        )
                        continue
                    out[i] = vector
                    found[i] = True
                    break
            if not vanished or found.all():
                break
        return out, found

    # -- writing -------------------------------------------------------------------------

    def _write_segment(self, identity: str, keys: list[str], vectors: np.ndarray) -> str:
        """Write one segment (content-addressed, renamed into place); returns its digest."""
        folder = self._folder(identity)
        folder.mkdir(parents=True, exist_ok=True)
        ident_file = folder / "identity.txt"
        if not ident_file.exists():
            _write_atomic(ident_file, identity.encode("utf-8"))
        blob = _npy_bytes(vectors)
        meta = json.dumps(
            {
                "format": FORMAT,
                "identity": identity,
                "dim": int(vectors.shape[1]),
                "keys": keys,
                "vectors_sha256": hashlib.sha256(blob).hexdigest(),
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode("utf-8")
        digest = hashlib.sha256(meta).hexdigest()[:32]
        _write_atomic(folder / f"seg-{digest}.npy", blob)
        _write_atomic(folder / f"seg-{digest}.json", meta)  # the commit mark, last
        return digest

    def put(self, identity: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store a batch of vectors as one new segment (rows that are not finite are not
        stored)."""
        if not len(texts):
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"{len(texts)} texts but vectors of shape {vectors.shape}")
        keep = np.isfinite(vectors).all(axis=1)
        keys = [_key(identity, t) for t, ok in zip(texts, keep, strict=True) if ok]
        if not keys:
            return
        table = self._table(identity, int(vectors.shape[1]))
        digest = self._write_segment(identity, keys, vectors[keep])
        for row, key in enumerate(keys):
            table.setdefault(key, []).insert(0, (digest, row))
        if len(list(self._folder(identity).glob("seg-*.json"))) > MAX_SEGMENTS:
            self.compact(identity)

    def compact(self, identity: str) -> None:
        """Merge the segments of ``identity`` into one (many small updates make many). Runs
        under an exclusive lock; another process compacting at the same time is left to it.
        Only verified, finite rows are kept; only the segments merged are deleted."""
        folder = self._folder(identity)
        with _exclusive(folder / ".compact.lock") as locked:
            if not locked:
                return
            metas = sorted(folder.glob("seg-*.json"))
            if len(metas) <= 1:
                return
            table = self._table(identity, None, fresh=True)
            merged_keys: list[str] = []
            rows: list[np.ndarray] = []
            dim = None
            for key, places in table.items():
                for digest, row in places:
                    try:
                        segment = self._segment(identity, digest, None)
                    except FileNotFoundError:
                        continue
                    if segment is None or segment.keys[row] != key:
                        continue
                    vector = np.asarray(segment.vectors[row])
                    if dim is None:
                        dim = vector.shape[0]
                    if vector.shape == (dim,) and np.isfinite(vector).all():
                        merged_keys.append(key)
                        rows.append(vector)
                        break
            if not rows:
                return
            digest = self._write_segment(identity, merged_keys, np.stack(rows))
            for meta in metas:
                if meta.stem.removeprefix("seg-") == digest:
                    continue
                meta.unlink(missing_ok=True)  # the commit mark first: never half a segment
                meta.with_suffix(".npy").unlink(missing_ok=True)
            self._segments = (
                {digest: self._segments.get(digest)} if digest in self._segments else {}
            )
            self._tables[identity] = {key: [(digest, i)] for i, key in enumerate(merged_keys)}


def _shape_problem(info: object, identity: str, dim: int | None) -> str | None:
    """What is wrong with a segment's ``.json`` (``None``: nothing)."""
    if not isinstance(info, dict):
        return f"a segment's .json must be an object, not {type(info).__name__}"
    if info.get("format") != FORMAT:
        return f"segment format {str(info.get('format'))[:20]!r}, not {FORMAT}"
    if info.get("identity") != identity:
        return "written for another model"
    seg_dim = info.get("dim")
    if not isinstance(seg_dim, int) or isinstance(seg_dim, bool) or seg_dim < 1:
        return "no valid dimension"
    if dim is not None and seg_dim != dim:
        return f"vectors of dimension {seg_dim}, not {dim}"
    keys = info.get("keys")
    if not isinstance(keys, list) or not all(
        isinstance(k, str) and _KEY.fullmatch(k) for k in keys
    ):
        return "'keys' must be a list of text hashes (64 hex digits)"
    if not isinstance(info.get("vectors_sha256"), str):
        return "no hash of its vectors"
    return None


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[bool]:
    """An exclusive, non-blocking lock on ``path`` (``False``: held by another process, or
    locks are not available here)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no merging while others may write
        yield False
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+b")
    except OSError:  # the lock file cannot be made: no merging now
        yield False
        return
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


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

    identity: str = encoder.identity  # type: ignore[attr-defined]
    dim: int = encoder.dim  # type: ignore[attr-defined]
    stats = EmbedStats(requested=len(texts), unique=len(texts))
    if cache is not None:
        vectors, found = cache.get(identity, texts, dim)
    else:
        vectors = np.zeros((len(texts), dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
    stats.cached = int(found.sum())
    check = getattr(encoder, "check_model", None)
    if stats.cached and check is not None:
        check()  # the cache is keyed by what the encoder says it is: is it that model?
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


def counted(items: Sequence[_T], enabled: bool, desc: str, unit: str) -> Iterator[_T]:
    """``items`` one by one, under a bar of them (:func:`progress_bar`) where ``enabled``."""
    bar = progress_bar(enabled, len(items), desc, unit)
    if bar is None:
        yield from items
        return
    for item in items:
        yield item
        bar.update(1)
    bar.close()


def progress_bar(enabled: bool, total: int, desc: str, unit: str) -> Any:
    """A tqdm bar of ``total`` ``unit`` (``None`` where not ``enabled`` or nothing to do);
    where stderr is no terminal (a CI log), :class:`ProgressLines` instead."""
    if not enabled or total == 0:
        return None
    if not sys.stderr.isatty():
        return ProgressLines(total, desc, unit)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)


class ProgressLines:
    """Progress as whole lines on stderr, for a log rather than a terminal (trial L: a CI
    build an hour long printed nothing, or tqdm's carriage returns run into one line): a line
    at each tenth done, at most one every ``every`` seconds, and one at the end."""

    def __init__(self, total: int, desc: str, unit: str, *, every: float = 10.0) -> None:
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.n = 0
        self.started = self._said = time.monotonic()
        self._step = 0

    def update(self, count: int = 1) -> None:
        self.n += count
        step = 10 * self.n // self.total
        now = time.monotonic()
        if step > self._step and now - self._said >= self.every and self.n < self.total:
            self._step, self._said = step, now
            self._line(now)

    def close(self) -> None:
        self._line(time.monotonic())

    def _line(self, now: float) -> None:
        share = 100 * self.n // self.total
        print(
            f"{self.desc}: {self.n:,} / {self.total:,} {self.unit} ({share}%), "
            f"{now - self.started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
