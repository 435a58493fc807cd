"""Batch rebuild: catalog files in, a saved hybrid index out.

``schemarouter index build CATALOG... --out DIR`` calls :func:`build_index`. It registers
the catalogs in a fresh registry (the same checks as ``SchemaRouter.add_catalog``), builds
the index with a progress bar, and saves it atomically. Embeddings go through the on-disk
cache (``$SCHEMAROUTER_CACHE/embeddings`` by default), so a second build of the same or a
slightly changed catalog embeds only the texts it has not seen.

``workers`` is the number of CPU threads the encoder and FAISS use (the default uses both
cores of the reference machine).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Unpack

from schemarouter.errors import ArgumentError
from schemarouter.index.backend import (
    DeferredIndex,
    OpenOptions,
    RouteIndex,
    is_milvus_uri,
    looks_like_uri,
)
from schemarouter.index.cache import EmbeddingCache
from schemarouter.index.encoders.defaults import default_encoder
from schemarouter.index.encoders.dense import Encoder, MiniLMEncoder
from schemarouter.index.encoders.onnx import OnnxMiniLMEncoder, default_cache_root
from schemarouter.index.folder import check_index_folder
from schemarouter.index.hybrid import HybridIndex
from schemarouter.index.milvus.index import MilvusIndex
from schemarouter.index.milvus.rows import parse_milvus_uri
from schemarouter.index.settings import IndexSettings
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry, RegistrySnapshot

__all__ = [
    "BuildReport",
    "IndexFolder",
    "build_index",
    "build_milvus_index",
    "default_embedding_cache",
    "index_registry",
    "peak_rss_mib",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildReport:
    """What a batch build did."""

    path: str
    routes: int
    documents: int
    registry_fingerprint: str
    registry_version: int
    encoder: str
    texts_embedded: int
    texts_from_cache: int
    seconds_load: float
    seconds_index: float
    seconds_save: float
    peak_rss_mib: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_embedding_cache() -> EmbeddingCache:
    return EmbeddingCache(default_cache_root() / "embeddings")


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (Linux reports KiB); NaN elsewhere."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return float("nan")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _set_threads(encoder: Encoder, workers: int) -> None:
    if isinstance(encoder, OnnxMiniLMEncoder):
        encoder.threads = workers
    elif isinstance(encoder, MiniLMEncoder):
        import torch

        torch.set_num_threads(workers)
    try:
        import faiss

        faiss.omp_set_num_threads(workers)
    except ImportError:  # pragma: no cover - faiss is a dependency
        pass


def index_registry(
    snapshot: RegistrySnapshot,
    *,
    encoder: Encoder | None = None,
    settings: IndexSettings | None = None,
    cache: EmbeddingCache | None = None,
    progress: bool = True,
    workers: int = 2,
) -> HybridIndex:
    """Build a :class:`HybridIndex` of ``snapshot`` using ``workers`` threads."""
    encoder = encoder or default_encoder()
    _set_threads(encoder, max(1, workers))
    return HybridIndex.build(
        snapshot, encoder=encoder, settings=settings, cache=cache, progress=progress
    )


def _report(index: Any, path: str, documents: int, times: tuple[float, ...]) -> BuildReport:
    """What a build did; ``times``: start, catalogs loaded, indexed, saved."""
    start, loaded, indexed, saved = times
    return BuildReport(
        path=path,
        routes=len(index),
        documents=documents,
        registry_fingerprint=index.registry_fingerprint,
        registry_version=index.registry_version,
        encoder=index.encoder_identity,
        texts_embedded=index.last_embed.encoded,
        texts_from_cache=index.last_embed.cached,
        seconds_load=round(loaded - start, 3),
        seconds_index=round(indexed - loaded, 3),
        seconds_save=round(saved - indexed, 3),
        peak_rss_mib=round(peak_rss_mib(), 1),
    )


def _registered(catalog_paths: Sequence[str | Path] | RegistrySnapshot) -> RegistrySnapshot:
    if isinstance(catalog_paths, RegistrySnapshot):
        return catalog_paths  # registered by the caller (OpenAPI documents, MCP tools ...)
    registry = Registry()
    registry.register(load_catalog([Path(p) for p in catalog_paths]))
    return registry.snapshot()


def _cache_of(cache: EmbeddingCache | str | Path | bool | None) -> EmbeddingCache | None:
    if cache is True:
        return default_embedding_cache()
    if cache is False or cache is None:
        return None
    return cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)


def build_milvus_index(
    catalog_paths: Sequence[str | Path] | RegistrySnapshot,
    uri: str,
    *,
    token: str | None = None,
    collection: str | None = None,
    rebuild: bool = False,
    progress: bool = True,
    workers: int = 2,
    encoder: Encoder | None = None,
    cache: EmbeddingCache | str | Path | bool | None = True,
) -> BuildReport:
    """Register ``catalog_paths`` (or take a registry snapshot) and write them to the
    Milvus collection at ``uri``.

    A missing collection is created; an existing one is brought to the catalogs
    incrementally (only changed routes are embedded and written), or dropped and written
    anew with ``rebuild``. ``uri``: a ``milvus://`` URI, or a plain Milvus URI
    (``http://host:19530``, or a ``.db`` path for Milvus Lite).
    """
    plain = isinstance(uri, str) and uri.startswith(("http://", "https://", "tcp://", "unix:"))
    if not plain:
        refuse_misspelt_uri(uri)  # before the catalogs are read and the encoder loaded
    start = time.perf_counter()
    snapshot = _registered(catalog_paths)
    loaded = time.perf_counter()
    encoder = encoder or default_encoder()
    _set_threads(encoder, max(1, min(workers, os.cpu_count() or workers)))
    kwargs: dict[str, Any] = {"token": token, "collection": collection, "encoder": encoder}
    if is_milvus_uri(uri):
        index = MilvusIndex.from_uri(uri, **kwargs)
    else:
        index = MilvusIndex(uri, **{k: v for k, v in kwargs.items() if v is not None})
    index.sync = True
    store = _cache_of(cache)
    if rebuild:
        index.rebuild(snapshot, cache=store, progress=progress)
    else:
        index.open(snapshot, cache=store, progress=progress)
    indexed = time.perf_counter()
    report = _report(
        index,
        index.target.redacted(),
        int(index.describe()["documents"]),
        (start, loaded, indexed, indexed),
    )
    index.close()
    logger.info("built Milvus index: %s", report)
    return report


def build_index(
    catalog_paths: Sequence[str | Path] | RegistrySnapshot,
    out_dir: str | Path,
    *,
    progress: bool = True,
    workers: int = 2,
    encoder: Encoder | None = None,
    settings: IndexSettings | None = None,
    cache: EmbeddingCache | str | Path | bool | None = True,
    left_out: Sequence[Any] = (),
) -> BuildReport:
    """Register ``catalog_paths`` (or take a registry snapshot: any sources a router
    registered), index every route, save to ``out_dir``; ``left_out`` names in its manifest
    the sources the build left out (``index build --skip-invalid``: see
    :func:`schemarouter.cli.report.left_out`).

    ``cache``: ``True`` for the default embedding cache, ``False``/``None`` for none, or a
    cache or its folder. ``out_dir`` is checked before anything is embedded (a folder this
    process cannot write, a file, a folder of other files: :class:`IndexStoreError`).
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    workers = min(workers, os.cpu_count() or workers)
    check_index_folder(Path(out_dir))  # a folder it cannot save into: before the build
    start = time.perf_counter()
    snapshot = _registered(catalog_paths)
    loaded = time.perf_counter()
    index = index_registry(
        snapshot,
        encoder=encoder,
        settings=settings,
        cache=_cache_of(cache),
        progress=progress,
        workers=workers,
    )
    indexed = time.perf_counter()
    path = index.save(out_dir, left_out=left_out)
    saved = time.perf_counter()
    report = _report(index, str(path), index.n_documents, (start, loaded, indexed, saved))
    logger.info("built index: %s", report)
    return report


def refuse_misspelt_uri(spec: object) -> None:
    """An :class:`ArgumentError` naming ``spec`` and the Milvus URI forms where it is
    written as a URI but is none of them (``milvus+lte:///x.db``, ``mivlus://h:19530``,
    ``milvus:/oops``): it was read as an index folder that holds no index."""
    if looks_like_uri(spec):
        parse_milvus_uri(str(spec))  # raises, naming the URI and the forms
        raise AssertionError(spec)  # pragma: no cover - a misspelt URI never parses


@dataclass(frozen=True)
class IndexFolder:
    """A saved index folder to open on first use, as ``SchemaRouter(index=path)`` does.

    ``sync=True``: where the routes registered by then differ from those the index was
    built from, the index is brought up to them (see :meth:`HybridIndex.load`) instead of
    refused as stale. ``sync`` as provider ids: only where every route that differs is one
    of theirs, for a registry that is built in stages, such as a gateway whose upstream MCP
    servers join (or fail) after the index opens: their tools are embedded when they join,
    from the embedding cache where the build put them; any other difference is stale.
    """

    path: str | Path
    sync: bool | tuple[str, ...] = False

    def __post_init__(self) -> None:
        if isinstance(self.sync, str):  # one provider id, not its letters
            object.__setattr__(self, "sync", (self.sync,))
        elif not isinstance(self.sync, bool):
            object.__setattr__(self, "sync", tuple(self.sync))
        refuse_misspelt_uri(str(self.path))
        if is_milvus_uri(str(self.path)):
            raise ArgumentError(
                f"IndexFolder is given a Milvus URI ({self.path})",
                where="IndexFolder(path)",
                hint="Pass the URI itself as index=, or MilvusIndex.from_uri(...)",
            )
        if not str(self.path).strip():
            raise ArgumentError(
                "IndexFolder is given an empty path",
                where="IndexFolder(path)",
                hint="Give the saved index folder (`schemarouter index build --out DIR`)",
            )

    def open(self, snapshot: RegistrySnapshot, **options: Unpack[OpenOptions]) -> RouteIndex:
        return HybridIndex.load(Path(self.path), snapshot, sync=self.sync, **options)


def open_index(
    spec: str | Path | DeferredIndex | None,
    snapshot: RegistrySnapshot,
    *,
    encoder: Encoder | None = None,
    settings: IndexSettings | None = None,
    cache: EmbeddingCache | None = None,
    progress: bool = False,
) -> RouteIndex:
    """The ready index for ``SchemaRouter(index=spec)`` over ``snapshot`` (``progress``: a
    progress bar while documents are embedded).

    ``None``: a new in-process :class:`HybridIndex`; a ``milvus://`` URI or a
    :class:`DeferredIndex`: that collection, checked (or built) against ``snapshot``;
    another string or path: a saved in-process index folder, loaded and checked.
    """
    if isinstance(spec, str) and not spec.strip():  # an unset variable: not the working folder
        raise ArgumentError(
            "index= is an empty path",
            where="SchemaRouter(index=...)",
            hint="Give a saved index folder, a milvus:// URI, or None for an in-process index",
        )
    refuse_misspelt_uri(spec)
    if is_milvus_uri(spec):
        spec = MilvusIndex.from_uri(str(spec), settings=settings)
    if spec is None:
        return HybridIndex.build(
            snapshot, encoder=encoder, settings=settings, cache=cache, progress=progress
        )
    if isinstance(spec, str | Path):  # (a Path has an ``open`` too: test it first)
        return HybridIndex.load(Path(spec), snapshot, encoder=encoder)
    return spec.open(snapshot, encoder=encoder, cache=cache, progress=progress)
