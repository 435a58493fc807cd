"""The hybrid route index: BM25 and dense retrieval over endpoint and field documents.

::

    query ─► tokens ─► BM25 over every document ─► max roll-up to routes ──► lexical top 100 ─┐
          └► vector ─► nearest endpoint texts (FAISS) ─┬► max roll-up ─────► dense top 100 ───┤
                       nearest field texts (FAISS) ────┘                                      ▼
           union of candidates ─► full BM25 + exact cosine of each ─► fusion (.fusion) ─► top k

Tables: routes are numbered in insertion order; documents (the endpoint document, then
one per output field, route after route) are the rows of the BM25 matrix, always grouped
by route in route order, and point at one vector of the endpoint or field
:class:`~schemarouter.index.encoders.dense.VectorSet` (identical texts share one vector). ``apply``
updates the tables in place for a registry change; ``search`` (:mod:`.search`) only ever
returns routes of the latest snapshot applied.

Threads: the tables change only under the index's lock, and an update holds it only to
put in what it has prepared outside it (documents tokenized, new texts embedded), so a
search waits for that swap, never for the embedding, and sees the index before an update or
after it, never a part of it. A search holds the lock to read the tables, not while its
request is encoded. Updates run one at a time (a second lock). Both locks come back free in
a forked child (:mod:`schemarouter.safety.forksafe`): a fork waits for the tables' lock to be let
go, so the child's copy of the tables is whole.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Unpack

import numpy as np

from schemarouter.contracts import Route
from schemarouter.errors import StaleIndexError
from schemarouter.index.backend import BuildOptions, SearchMode
from schemarouter.index.cache import EmbeddingCache, EmbedStats, counted, embed_texts, progress_bar
from schemarouter.index.documents import DocKind, Document, route_documents
from schemarouter.index.encoders.defaults import default_encoder
from schemarouter.index.encoders.dense import Encoder, VectorSet, text_key
from schemarouter.index.lexical import LexicalIndex
from schemarouter.index.saved_registry import registry_file
from schemarouter.index.search import EMPTY, RouteSearch
from schemarouter.index.settings import IndexSettings
from schemarouter.index.stale import check_differs_within
from schemarouter.index.store import (
    SavedIndex,
    SavedVectors,
    load_index,
    save_index,
)
from schemarouter.index.tokenize import tokenize
from schemarouter.registry.diff import fingerprint_difference, route_parts
from schemarouter.registry.registry import RegistryChange, RegistrySnapshot
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = ["HybridIndex", "SearchMode"]

logger = logging.getLogger(__name__)


def _csr_groups(keys: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, members)``: members of group g are ``members[indptr[g]:indptr[g+1]]``."""
    valid = np.flatnonzero(keys >= 0)
    order = valid[np.argsort(keys[valid], kind="stable")]
    counts = np.bincount(keys[valid], minlength=n_groups)
    indptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, order.astype(np.int64)


class HybridIndex(RouteSearch):
    """Endpoint- and field-level hybrid retrieval over one registry snapshot.

    Build with :meth:`build`, keep current with :meth:`apply` (e.g. as a registry listener),
    query with :meth:`search`, persist with :meth:`save` / :meth:`load`. Thread-safe:
    searches run side by side and encode their requests outside the lock; an update embeds
    its new texts outside it too and holds it only to swap them in (see the module's notes).
    """

    def __init__(self, *, encoder: Encoder, settings: IndexSettings | None = None) -> None:
        self.settings = settings or IndexSettings()
        self.encoder = encoder
        self.encoder_identity = encoder.identity
        self.dim = int(encoder.dim)
        s = self.settings
        self._lexical = LexicalIndex(s.bm25)
        endpoint_vs, field_vs = (
            VectorSet(
                self.dim,
                hnsw_threshold=s.hnsw_threshold,
                hnsw_m=s.hnsw_m,
                ef_search=s.ef_search,
                ef_construction=s.ef_construction,
                hnsw_codec=s.hnsw_codec,
            )
            for _ in range(2)
        )
        self._vectors = (endpoint_vs, field_vs)
        self._route_ids: list[str] = []
        self._route_fps: list[str] = []
        self._route_fields: list[tuple[str, ...]] = []
        #: the indexed routes themselves (for search filters), parallel to ``_route_ids``
        self._routes: list[Route] = []
        self._route_row: dict[str, int] = {}
        self._doc_route = EMPTY
        self._doc_kind = np.zeros(0, dtype=np.int8)
        self._doc_field = np.zeros(0, dtype=np.int32)
        self._doc_vec = EMPTY
        self.registry_fingerprint = RegistrySnapshot.build(0, {}, {}).fingerprint
        self.registry_version = 0
        #: the snapshot indexed last (its registry is saved with the index)
        self.snapshot: RegistrySnapshot | None = None
        self.last_embed = EmbedStats()
        #: seconds per stage of the last build or update (documents, lexical, embed,
        #: vectors, bm25, faiss, tables), for benchmarks and logs
        self.timings: dict[str, float] = {}
        #: held to read or change the tables (a fork waits for it: see the module's notes)
        self._lock = ForkSafeLock(settle=True)
        #: held by an update from start to end: updates run one at a time
        self._updating = ForkSafeLock(reentrant=True)
        #: bumped whenever the tables change (a search that let go of the lock checks it)
        self._generation = 0
        self._derived_ok = False

    # -- construction ------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        snapshot: RegistrySnapshot,
        *,
        encoder: Encoder | None = None,
        settings: IndexSettings | None = None,
        cache: EmbeddingCache | str | Path | None = None,
        progress: bool = False,
    ) -> HybridIndex:
        """Index every route of ``snapshot``. ``cache``: an embedding cache or its folder."""
        index = cls(encoder=encoder or default_encoder(), settings=settings)
        if cache is not None and not isinstance(cache, EmbeddingCache):
            cache = EmbeddingCache(cache)
        index._add_routes(list(snapshot), cache=cache, progress=progress)
        index._finish(progress=progress)
        index.registry_fingerprint = snapshot.fingerprint
        index.registry_version, index.snapshot = snapshot.version, snapshot
        return index

    def __len__(self) -> int:
        return len(self._route_ids)

    def __contains__(self, route_id: object) -> bool:
        return route_id in self._route_row

    @property
    def route_ids(self) -> tuple[str, ...]:
        return tuple(self._route_ids)

    @property
    def n_documents(self) -> int:
        return int(self._doc_route.size)

    def describe(self) -> dict[str, Any]:
        """Sizes and kinds, for logs and benchmarks."""
        ep, fv = self._vectors
        return {
            "routes": len(self),
            "documents": self.n_documents,
            "terms": self._lexical.n_terms,
            "endpoint_vectors": len(ep),
            "field_vectors": len(fv),
            "endpoint_index": ep.kind,
            "field_index": fv.kind,
            "encoder": self.encoder_identity,
            "registry_version": self.registry_version,
        }

    def _add_routes(
        self, routes: Sequence[Route], *, cache: EmbeddingCache | None, progress: bool
    ) -> None:
        """Index ``routes`` (an index no other thread reads yet: :meth:`build`)."""
        if not routes:
            self.last_embed = EmbedStats()
            return
        batch = self._prepare(routes, progress=progress)
        vectors = self._embed(batch, self._missing(batch), cache=cache, progress=progress)
        self._insert(batch, vectors)

    def _prepare(self, routes: Sequence[Route], *, progress: bool) -> _Batch:
        """The documents of ``routes``, tokenized (reads no table: runs outside the lock)."""
        limits = self.settings.limits
        tok = self.settings.tokenizer
        clock = _Clock(self.timings)
        docs: list[tuple[int, int, Document]] = []
        fields: list[tuple[str, ...]] = []
        for row, route in enumerate(counted(routes, progress, "documents", "routes")):
            route_docs = route_documents(route, limits)
            fields.append(tuple(d.field for d in route_docs[1:] if d.field))
            docs.extend((row, i - 1, d) for i, d in enumerate(route_docs))
        clock.lap("documents")
        # 375,701 documents at 100,000 routes: 6 to 40 s with no word after the bar above
        tokens = [tokenize(d.text, tok) for _, _, d in counted(docs, progress, "tokens", "docs")]
        clock.lap("lexical")
        # A document without a dense text (a field known only by its name) gets no vector.
        keys = [text_key(d.dense_text) if d.dense_text else "" for _, _, d in docs]
        return _Batch(
            routes=list(routes),
            fields=fields,
            tokens=tokens,
            dense_texts=[d.dense_text for _, _, d in docs],
            keys=keys,
            has_vector=np.fromiter((bool(k) for k in keys), dtype=bool, count=len(keys)),
            doc_route=np.fromiter((r for r, _, _ in docs), dtype=np.int64, count=len(docs)),
            doc_kind=np.fromiter((int(d.kind) for _, _, d in docs), dtype=np.int8, count=len(docs)),
            doc_field=np.fromiter((f for _, f, _ in docs), dtype=np.int32, count=len(docs)),
        )

    def _missing(self, batch: _Batch) -> dict[str, str]:
        """The unique texts of ``batch`` not stored yet, across both vector sets (key ->
        text): they are embedded once."""
        todo: dict[str, str] = {}
        for kind in (DocKind.ENDPOINT, DocKind.FIELD):
            vs = self._vectors[kind]
            for i in np.flatnonzero((batch.doc_kind == kind) & batch.has_vector):
                key = batch.keys[i]
                if key not in vs.rows and key not in todo:
                    todo[key] = batch.dense_texts[i]
        return todo

    def _embed(
        self,
        batch: _Batch,
        todo: dict[str, str],
        *,
        cache: EmbeddingCache | None,
        progress: bool,
    ) -> dict[str, np.ndarray]:
        """The vectors of ``todo`` (key -> vector), from the cache or the encoder (reads no
        table: runs outside the lock); sets :attr:`last_embed`."""
        clock = _Clock(self.timings)
        todo_keys = list(todo)
        bar = progress_bar(progress, len(todo_keys), "embedding", "texts")
        vectors, stats = embed_texts(
            self.encoder,
            [todo[k] for k in todo_keys],
            cache=cache,
            progress=bar.update if bar is not None else None,
        )
        if bar is not None:
            bar.close()
        clock.lap("embed")
        stats.requested = len(batch.keys)
        self.last_embed = stats
        return {k: vectors[i] for i, k in enumerate(todo_keys)}

    def _insert(self, batch: _Batch, vectors: dict[str, np.ndarray]) -> None:
        """Put ``batch`` in the tables (the lock held), with ``vectors`` for each of its texts
        that no vector set holds."""
        clock = _Clock(self.timings)
        seen: set[str] = set()
        for route in batch.routes:
            if route.route_id in self._route_row or route.route_id in seen:
                raise ValueError(f"route {route.route_id!r} is indexed already")
            seen.add(route.route_id)
        base = len(self._route_ids)
        for row, route in enumerate(batch.routes, start=base):
            self._route_row[route.route_id] = row
            self._route_ids.append(route.route_id)
            self._route_fps.append(route.fingerprint)
            self._routes.append(route)
        self._route_fields.extend(batch.fields)
        self._lexical.add(batch.tokens)
        clock.lap("lexical")
        doc_vec = np.full(len(batch.keys), -1, dtype=np.int64)
        for kind in (DocKind.ENDPOINT, DocKind.FIELD):
            vs = self._vectors[kind]
            idx = np.flatnonzero((batch.doc_kind == kind) & batch.has_vector)
            kind_keys = [batch.keys[i] for i in idx]
            new = list(dict.fromkeys(k for k in kind_keys if k not in vs.rows))
            if new:
                vs.add(new, np.stack([vectors[k] for k in new]))
            rows = vs.lookup(kind_keys)
            doc_vec[idx] = rows
            vs.incref(rows)
        self._doc_route = np.concatenate([self._doc_route, batch.doc_route + base])
        self._doc_kind = np.concatenate([self._doc_kind, batch.doc_kind])
        self._doc_field = np.concatenate([self._doc_field, batch.doc_field])
        self._doc_vec = np.concatenate([self._doc_vec, doc_vec])
        self._derived_ok = False
        clock.lap("vectors")

    def _remove_routes(self, route_ids: Iterable[str]) -> None:
        doomed = {self._route_row[r] for r in route_ids if r in self._route_row}
        if not doomed:
            return
        n_routes = len(self._route_ids)
        keep_route = np.ones(n_routes, dtype=bool)
        keep_route[list(doomed)] = False
        keep_doc = keep_route[self._doc_route]
        for kind in (DocKind.ENDPOINT, DocKind.FIELD):
            gone = (~keep_doc) & (self._doc_kind == kind)
            self._vectors[kind].incref(self._doc_vec[gone], -1)
        remap = np.cumsum(keep_route) - 1
        kept = np.flatnonzero(keep_route)
        self._route_ids = [self._route_ids[i] for i in kept]
        self._route_fps = [self._route_fps[i] for i in kept]
        self._route_fields = [self._route_fields[i] for i in kept]
        self._routes = [self._routes[i] for i in kept]
        self._route_row = {r: i for i, r in enumerate(self._route_ids)}
        self._lexical.keep(keep_doc)
        self._doc_route = remap[self._doc_route[keep_doc]]
        self._doc_kind = self._doc_kind[keep_doc]
        self._doc_field = self._doc_field[keep_doc]
        self._doc_vec = self._doc_vec[keep_doc]
        self._derived_ok = False

    def _compact_vectors(
        self, keep: Sequence[str] = (), vectors: dict[str, np.ndarray] | None = None
    ) -> None:
        """Drop the unreferenced vectors of a set where they are many; those of the texts
        ``keep`` (a batch about to be put in, whose vectors were looked up before) are
        copied into ``vectors`` first."""
        for kind in (DocKind.ENDPOINT, DocKind.FIELD):
            vs = self._vectors[kind]
            if len(vs) > 1000 and vs.dead_fraction() > self.settings.compact_dead_fraction:
                if vectors is not None:
                    for key in keep:
                        row = vs.rows.get(key, -1)
                        if row >= 0 and vs.refs[row] <= 0 and key not in vectors:
                            vectors[key] = vs.vectors[row].copy()
                remap = vs.compact()
                if remap is not None:
                    mask = (self._doc_kind == kind) & (self._doc_vec >= 0)
                    self._doc_vec[mask] = remap[self._doc_vec[mask]]
                    logger.info("compacted %s vectors to %d", kind.name.lower(), len(vs))

    def _finish(self, *, progress: bool = False) -> None:
        """Recompute BM25 weights, FAISS indexes and the roll-up tables (``progress``: a
        bar of the three; the FAISS graph took 5 to 86 s at 100,000 routes)."""
        clock = _Clock(self.timings)
        steps = (
            ("bm25", self._lexical.refresh),
            ("faiss", self._sync_vectors),
            ("tables", self._derive),
        )
        for lap, run in counted(steps, progress, "indexing", "steps"):
            run()
            clock.lap(lap)

    def _sync_vectors(self) -> None:
        for vs in self._vectors:
            vs.sync()

    def _derive(self) -> None:
        self._last_lexical = None  # BM25 scores of the old documents
        n_routes = len(self._route_ids)
        if np.any(np.diff(self._doc_route) < 0):  # pragma: no cover - an invariant
            raise AssertionError("documents must stay grouped by route, in route order")
        self._route_docs = _csr_groups(self._doc_route, n_routes)
        # reduceat needs non-empty groups: every route has its endpoint document.
        self._field_doc = self._doc_kind == DocKind.FIELD
        self._field_rows = np.flatnonzero(self._field_doc)
        doc_weight = np.ones(self._doc_kind.size)
        doc_weight[self._field_doc] = self.settings.lexical_field_weight
        self._doc_weight = doc_weight
        endpoint_doc = np.zeros(n_routes, dtype=np.int64)
        is_endpoint = np.flatnonzero(self._doc_kind == DocKind.ENDPOINT)
        endpoint_doc[self._doc_route[is_endpoint]] = is_endpoint
        self._endpoint_doc = endpoint_doc
        self._fanout = tuple(
            _csr_groups(np.where(self._doc_kind == kind, self._doc_vec, -1), len(vs))
            for kind, vs in zip((DocKind.ENDPOINT, DocKind.FIELD), self._vectors, strict=True)
        )
        self._derived_ok = True

    # -- incremental updates -------------------------------------------------------------

    def apply(
        self,
        snapshot: RegistrySnapshot,
        change: RegistryChange | None = None,
        **options: Unpack[BuildOptions],
    ) -> EmbedStats:
        """Bring the index to ``snapshot`` without a rebuild; returns what was embedded.

        The difference is computed from route fingerprints, so a missed or repeated change
        cannot leave the index wrong; ``change`` is only logged. Usable directly as a
        registry listener: ``registry.subscribe(index.apply)``. The new routes' documents
        and vectors are made without the index's lock, so searches meanwhile answer from
        the index as it was (an encoder that fails leaves it so); the tables change in one
        step under the lock.
        """
        cache, progress = options.get("cache"), options.get("progress", False)
        with self._updating:
            with self._lock:
                current = dict(zip(self._route_ids, self._route_fps, strict=True))
            removed = [r for r in current if r not in snapshot.routes]
            changed = [
                r
                for r, fp in current.items()
                if r in snapshot.routes and snapshot.routes[r].fingerprint != fp
            ]
            added = [r for r in snapshot.routes if r not in current]
            if change is not None:
                logger.debug(
                    "index apply v%d: +%d ~%d -%d (change said +%d ~%d -%d)",
                    snapshot.version,
                    len(added),
                    len(changed),
                    len(removed),
                    len(change.added),
                    len(change.replaced),
                    len(change.removed),
                )
            self.last_embed = EmbedStats()
            self.timings = {}
            fresh = sorted(changed + added)
            batch = None
            vectors: dict[str, np.ndarray] = {}
            if fresh:  # documents and vectors made outside the lock: searches go on
                batch = self._prepare([snapshot.routes[r] for r in fresh], progress=progress)
                with self._lock:
                    todo = self._missing(batch)
                vectors = self._embed(batch, todo, cache=cache, progress=progress)
            with self._lock:  # the swap: a search sees the index before it or after it
                if removed or changed:
                    self._remove_routes(removed + changed)
                    self._compact_vectors(batch.keys if batch is not None else (), vectors)
                if batch is not None:
                    self._insert(batch, vectors)
                if removed or changed or added or not self._derived_ok:
                    self._finish()
                self.registry_fingerprint = snapshot.fingerprint
                self.registry_version, self.snapshot = snapshot.version, snapshot
                self._generation += 1
            return self.last_embed

    def check_current(self, snapshot: RegistrySnapshot) -> None:
        """Raise :class:`StaleIndexError` unless the index was built from ``snapshot``."""
        if snapshot.fingerprint != self.registry_fingerprint:
            with self._lock:  # the lists grow together under it
                indexed = dict(zip(self._route_ids, self._route_fps, strict=True))
                parts = route_parts(self._routes)
            difference = fingerprint_difference(indexed, snapshot, parts=parts)
            raise StaleIndexError(
                "the index does not reflect this registry snapshot: compared with the "
                f"index, the snapshot has {difference}",
                where=self.registry_fingerprint,
                hint="Call index.apply(snapshot) or rebuild the index",
            )

    # -- persistence ---------------------------------------------------------------------------

    def save(self, path: str | Path, *, left_out: Sequence[Any] = ()) -> Path:
        """Write the index to folder ``path`` atomically (see :mod:`.store`; ``left_out``:
        the sources the build left out, named in its manifest)."""
        snapshot = self.snapshot  # its registry written out before the lock: searches go on
        registry = registry_file(snapshot) if snapshot is not None else None
        with self._lock:
            if not self._derived_ok:
                self._finish()
            if self.snapshot is not snapshot and self.snapshot is not None:  # updated meanwhile
                snapshot, registry = self.snapshot, registry_file(self.snapshot)
            if snapshot is None or snapshot.fingerprint != self.registry_fingerprint:
                registry = None  # no registry known for these routes: saved without one
            return save_index(self._saved(registry), Path(path), left_out=left_out)

    def _saved(self, registry: bytes | None = None) -> SavedIndex:
        """The index as plain lists and arrays, for :func:`.store.save_index`."""
        endpoint_vs, field_vs = (
            SavedVectors(vs.keys, vs.vectors, hnsw=vs.faiss_bytes()) for vs in self._vectors
        )
        return SavedIndex(
            registry_fingerprint=self.registry_fingerprint,
            registry_version=self.registry_version,
            encoder=self.encoder_identity,
            dim=self.dim,
            settings=self.settings,
            route_ids=self._route_ids,
            fingerprints=self._route_fps,
            fields=self._route_fields,
            doc_route=self._doc_route,
            doc_kind=self._doc_kind,
            doc_field=self._doc_field,
            doc_vec=self._doc_vec,
            lexical=self._lexical,
            vectors=(endpoint_vs, field_vs),
            counts=self.describe(),
            parts=route_parts(self._routes),
            registry=registry,
        )

    @classmethod
    def load(
        cls,
        path: str | Path,
        snapshot: RegistrySnapshot,
        *,
        encoder: Encoder | None = None,
        sync: bool | Collection[str] = False,
        cache: EmbeddingCache | None = None,
        progress: bool = False,
    ) -> HybridIndex:
        """Load a saved index; :class:`StaleIndexError` unless it matches ``snapshot``,
        :class:`CorruptIndexError` for missing, truncated or altered files.

        ``sync=True`` loads an index built from another registry and brings it to
        ``snapshot`` as :meth:`apply` does: routes no longer registered are dropped, new and
        changed ones embedded (through ``cache``), the rest keep their saved vectors; the
        difference is logged. ``sync`` as provider ids does so only where every route that
        differs is one of theirs (others are refused as stale). The encoder must still be
        the one it was embedded with."""
        index = load_index(
            Path(path),
            snapshot,
            encoder=encoder,
            build=cls._from_saved,
            same_registry=not sync,
        )
        if index.registry_fingerprint == snapshot.fingerprint:
            # the snapshot holds exactly these routes
            index._routes = [snapshot.routes[r] for r in index._route_ids]
            index.snapshot = snapshot
            return index
        saved = dict(zip(index._route_ids, index._route_fps, strict=True))
        difference = fingerprint_difference(saved, snapshot)
        if not isinstance(sync, bool):
            providers = {sync} if isinstance(sync, str) else set(sync)
            check_differs_within(saved, snapshot, providers, path, difference)
        # a route no longer registered keeps a placeholder until apply() drops it
        index._routes = [snapshot.routes.get(r) for r in index._route_ids]  # type: ignore[misc]
        stats = index.apply(snapshot, cache=cache, progress=progress)
        logger.info(
            "the index at %s was built from another registry; brought to this one, which "
            "has %s (%d texts embedded, %d from the cache)",
            path,
            difference,
            stats.encoded,
            stats.cached,
        )
        return index

    @classmethod
    def _from_saved(cls, saved: SavedIndex, encoder: Encoder) -> HybridIndex:
        """The index of checked arrays and the encoder :func:`.store.load_index` resolved
        (it calls this; a ``ValueError`` here is a corrupt index there)."""
        index = cls(encoder=encoder, settings=saved.settings)
        if index.dim != saved.dim:
            raise ValueError(f"vectors have {saved.dim} dimensions, the encoder {index.dim}")
        index._route_ids = list(saved.route_ids)
        index._route_fps = list(saved.fingerprints)
        index._route_fields = list(saved.fields)
        index._route_row = {r: i for i, r in enumerate(saved.route_ids)}
        index._lexical = saved.lexical
        for vs, state in zip(index._vectors, saved.vectors, strict=True):
            assert state.refs is not None  # counted on load
            vs.restore(state.keys, state.vectors, state.refs, state.hnsw)
        index._doc_route = saved.doc_route
        index._doc_kind = saved.doc_kind
        index._doc_field = saved.doc_field
        index._doc_vec = saved.doc_vec
        index.registry_fingerprint = saved.registry_fingerprint
        index.registry_version = saved.registry_version
        for vs in index._vectors:
            vs.sync()
        index._derive()
        return index


@dataclass
class _Batch:
    """Routes about to be indexed: their documents (numbered by route within the batch),
    tokens and text keys, made before the lock is taken to put them in."""

    routes: list[Route]
    fields: list[tuple[str, ...]]
    tokens: list[list[str]]
    dense_texts: list[str]
    keys: list[str]
    has_vector: np.ndarray
    doc_route: np.ndarray
    doc_kind: np.ndarray
    doc_field: np.ndarray


class _Clock:
    """Adds the seconds since the last lap to ``timings[stage]``."""

    def __init__(self, timings: dict[str, float]) -> None:
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - self.last
        self.last = now
