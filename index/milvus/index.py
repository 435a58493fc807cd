"""The route index in Milvus: one collection per registry, the same code for Milvus Lite and
a cluster (behind the ``milvus`` extra: ``pip install -e '.[milvus]'`` in the checkout).

::

    SchemaRouter(index="milvus+lite:///srv/routes.db")            # embedded, one file
    SchemaRouter(index="milvus://milvus.internal:19530/routes")   # a cluster
    SchemaRouter(index=MilvusIndex(uri="https://...", token=..., collection="routes"))

What runs where: the router (query analysis, gate, reranker, abstention) and the encoder
run in this process; Milvus stores the documents, runs BM25 (its BM25 function over the
analyzed ``text`` field, kept as a sparse vector), the dense search over the encoder's
vectors, the filters, and with ``fusion="rrf"`` / ``"weighted"`` the fusion itself
(``hybrid_search`` with ``RRFRanker`` / ``WeightedRanker``).

**Fusion.** ``fusion="router"`` (the default) asks Milvus for the BM25 and the dense
documents (two searches) and fuses them here exactly as the in-process index does: field
documents roll up to their route by max (weighted by ``lexical_field_weight`` /
``dense_field_weight``), lexical-only candidates get their exact dense score (their vectors
are fetched), then :func:`~schemarouter.index.fusion.weighted_fusion` with the router's
weights. ``"rrf"`` and ``"weighted"`` hand the fusion to Milvus: it fuses *documents* (not
routes), without the field weights, and returns only the fused score, so ``lexical_score``
is 0 and ``dense_score`` is computed here from the returned vectors. docs/scale.md lists
every difference and what each costs in Recall@5.

**Consistency.** The collection's metadata (a collection property, :data:`META_KEY`) names
the encoder, the document settings, the registry fingerprint and a state. ``open`` refuses
a collection built with another encoder, other document settings or another row layout,
and one built for another registry (unless ``sync=True``: then it is brought to this
registry incrementally). ``apply`` marks the state ``applying``, writes the new versions of
changed and added routes (under keys of their new fingerprints), deletes the old
versions, and marks it ``clean`` with the new fingerprint. A failure anywhere rolls the new
rows back and raises :class:`~schemarouter.errors.IndexBackendError`; if the engine is gone
and cannot roll back, the next ``open`` sees ``applying``, recomputes the fingerprint from
the stored routes, and refuses the half-written collection (``sync=True`` repairs it).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, Unpack

from schemarouter.errors import ArgumentError, SchemaRouterError, require
from schemarouter.fingerprint import fingerprint
from schemarouter.index.backend import (
    BuildOptions,
    OpenOptions,
    RouteFilter,
    SearchMode,
    check_search_mode,
)
from schemarouter.index.cache import EmbeddingCache, EmbedStats, embed_texts, progress_bar
from schemarouter.index.encoders.dense import Encoder, encode_request
from schemarouter.index.milvus import lite, refusals, repair
from schemarouter.index.milvus.lite import engine_error, is_engine_error, prepare_lite
from schemarouter.index.milvus.query import MilvusQuery, stored_routes, token_hits
from schemarouter.index.milvus.rows import (
    DEFAULT_COLLECTION,
    DEFAULT_CONSISTENCY,
    FUSIONS,
    IN_BATCH,
    META_KEY,
    MilvusTarget,
    in_expression,
    parse_milvus_uri,
    route_key,
    route_rows,
)
from schemarouter.index.milvus.schema import check_meta, collection_schema, new_meta, read_meta
from schemarouter.index.milvus.watch import STALE_CHECK_S, MetaWatch
from schemarouter.index.search import dense_weight_for
from schemarouter.index.settings import IndexSettings, RouteHit
from schemarouter.index.tokenize import QueryText
from schemarouter.registry.registry import RegistryChange, RegistrySnapshot

__all__ = ["FUSIONS", "MilvusIndex"]

logger = logging.getLogger(__name__)

#: Rows per write request (a row is about 2 KB of text and the vector).
WRITE_BATCH = 512
#: A long write is flushed every this many rows: Milvus Lite's cost per insert grows with
#: its unsealed rows (10,000 rows took 4.0, 6.7, 11.0 then 12.0 s one after another;
#: flushed every 10,000: 5.6, 5.6, 7.7, 4.6 s), and a cluster seals segments anyway.
FLUSH_EVERY = 20_480


def _pymilvus() -> Any:
    return require("pymilvus", extra="milvus", purpose="the Milvus index backend")


def _not_open() -> ValueError:
    """What a search, an update or the encoder raises before :meth:`MilvusIndex.open`."""
    return ValueError("the index is not open yet: call open(snapshot) first")


class MilvusIndex:
    """A :class:`~schemarouter.index.backend.RouteIndex` over one Milvus collection.

    Construct with where the collection lives (nothing connects yet), then ``open(snapshot)``
    (the router does it on first use) to check it against the registry, or build it if it
    does not exist. ``client``: an existing ``pymilvus.MilvusClient`` to use instead.
    """

    def __init__(
        self,
        uri: str = "./schemarouter-milvus.db",
        *,
        token: str = "",
        collection: str = DEFAULT_COLLECTION,
        db_name: str = "",
        consistency_level: str = DEFAULT_CONSISTENCY,
        encoder: Encoder | None = None,
        settings: IndexSettings | None = None,
        fusion: str = "router",
        sync: bool = False,
        timeout: float = 30.0,
        client: Any = None,
        stale_check_s: float = STALE_CHECK_S,
        create: bool = True,
    ) -> None:
        self.target = MilvusTarget(uri, token, db_name, collection, consistency_level)
        if fusion not in FUSIONS:
            raise ArgumentError(
                f"unknown fusion {str(fusion)[:40]!r} (one of {', '.join(FUSIONS)})",
                where=self.target.redacted(),
                hint="fusion='router' (the default) fuses as the in-process index does",
            )
        self.fusion = fusion
        self.sync = sync
        self.create = create  # False: a missing collection is refused, not built
        self.timeout = timeout
        self._settings = settings
        self.settings = settings or IndexSettings()
        self._encoder = encoder
        self._client = client
        self._lite = False  # this index's own client holds a Milvus Lite file open
        self._lock = threading.RLock()
        self._routes: dict[str, str] | None = None  # route id -> fingerprint, loaded lazily
        self._partial: set[str] = set()  # stored routes an interrupted update cut off
        self._known: dict[str, bool] = {}  # token -> occurs in some document
        self._meta: dict[str, Any] = {}
        self._snapshot: RegistrySnapshot | None = None  # the registry the collection holds
        self.last_embed = EmbedStats()
        self._watch = MetaWatch(stale_check_s)  # another writer moving the collection

    @classmethod
    def from_uri(cls, uri: str, **kwargs: Any) -> MilvusIndex:
        """A ``MilvusIndex`` from a ``milvus://`` URI (:func:`.rows.parse_milvus_uri`);
        ``kwargs`` fill in what the URI leaves out (``None`` values are ignored)."""
        args = {k: v for k, v in kwargs.items() if v is not None}
        args.update(parse_milvus_uri(uri))
        return cls(**args)

    # -- the engine ----------------------------------------------------------------------

    @contextmanager
    def _engine(self, what: str) -> Iterator[None]:
        try:
            yield
        except SchemaRouterError:
            raise
        except Exception as exc:
            if not is_engine_error(exc):
                raise
            # the client's message may quote the URI it was given, password and all
            raise engine_error(self.target, what, exc) from exc

    @property
    def client(self) -> Any:
        if self._client is None:
            pymilvus = _pymilvus()
            t = self.target
            if t.is_lite:
                prepare_lite(t)
            with self._engine("connecting"):
                self._client = pymilvus.MilvusClient(
                    uri=t.uri, token=t.token, db_name=t.db_name, timeout=self.timeout
                )
            self._lite = t.is_lite  # a Lite file's lock is let go when the last client closes
            if self._lite:
                lite.lite_opened(t)
            if self._lite and self._meta:  # closed since it opened: the engine starts unloaded
                with self._engine("loading the collection"):
                    self._client.load_collection(self.name)
        return self._client

    def save(self, path: str | Path) -> NoReturn:
        """Refused (:class:`~schemarouter.errors.ArgumentError`): the collection is the index,
        already persistent; there is no folder to write (:func:`.refusals.save_refused`)."""
        raise refusals.save_refused(self.target, path)

    def close(self) -> None:
        if self._client is not None:
            with self._engine("closing the connection"):
                self._client.close()
            self._client = None
            if self._lite:
                self._lite = False
                lite.lite_closed(self.target)

    @property
    def name(self) -> str:
        return self.target.collection

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            raise _not_open()
        return self._encoder

    @property
    def encoder_identity(self) -> str:
        """The collection's encoder, else the one given; ``""`` before ``open`` knows either
        (never raises: ``isinstance(index, RouteIndex)`` reads it on Python 3.11)."""
        known = self._meta.get("encoder") or (self._encoder and self._encoder.identity)
        return str(known or "")

    @property
    def registry_fingerprint(self) -> str:
        return str(self._meta.get("registry_fingerprint", ""))

    @property
    def registry_version(self) -> int:
        return int(self._meta.get("registry_version", 0))

    def __len__(self) -> int:
        return int(self._meta.get("routes", 0))

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "milvus",
            "target": self.target.redacted(),
            "routes": len(self),
            "documents": int(self._meta.get("documents", 0)),
            "encoder": self._meta.get("encoder"),
            "fusion": self.fusion,
            "consistency_level": self.target.consistency_level,
            "registry_version": self.registry_version,
        }

    # -- metadata --------------------------------------------------------------------------

    def _read_meta(self) -> dict[str, Any] | None:
        with self._engine("reading the collection"):
            if not self.client.has_collection(self.name):
                return None
            props = self.client.describe_collection(self.name).get("properties") or {}
        return read_meta(props, collection=self.name, where=self.target.redacted())

    def _write_meta(self, **update: Any) -> None:
        meta = {**self._meta, **update}
        with self._engine("writing the collection's metadata"):
            self.client.alter_collection_properties(
                self.name, properties={META_KEY: json.dumps(meta, sort_keys=True)}
            )
        self._meta = meta

    # -- opening and building -----------------------------------------------------------------

    def open(self, snapshot: RegistrySnapshot, **options: Unpack[OpenOptions]) -> MilvusIndex:
        """Attach to ``snapshot``: build the collection if it does not exist, else check it
        (see the module docstring). Returns ``self``."""
        cache, progress = options.get("cache"), options.get("progress", False)
        with self._lock:
            if (
                self._meta.get("state") == "clean"
                and self.registry_fingerprint == snapshot.fingerprint
            ):
                return self  # opened already, for this registry
            self._take_encoder(options.get("encoder"), replace=False)
            meta = self._read_meta()
            if meta is None and not self.create:
                with self._engine("reading the collection"):
                    raise refusals.missing(self.target, self.client.list_collections())
            if meta is None:
                self._create()
                self.apply(snapshot, cache=cache, progress=progress)
                self._watch.reset()
                return self
            stored = check_meta(
                meta, self.encoder, self._settings, self.name, where=self.target.redacted()
            )
            self.settings = self._settings or stored
            self._meta = meta
            with self._engine("loading the collection"):
                self.client.load_collection(self.name)
            self._check_rows(meta)
            if meta.get("state") != "clean":
                self._routes = None
                found = self._stored_fingerprint()
                with self._engine("reading the stored routes"):  # routes cut off part way
                    self._partial = repair.partial_routes(
                        self.client, self.name, snapshot.routes, self._current(), self.settings
                    )
                if found == snapshot.fingerprint and not self._partial:
                    self._write_meta(
                        state="clean",
                        documents=self._rows(),
                        registry_fingerprint=found,
                        registry_version=snapshot.version,
                        routes=len(snapshot),
                        parts=refusals.meta_parts(snapshot),
                    )
                elif not self.sync:
                    raise refusals.interrupted(self.name, self.target.redacted())
            if self.registry_fingerprint != snapshot.fingerprint or self._partial:
                if not self.sync:
                    where = self.target.redacted()
                    raise refusals.stale(meta, snapshot, self._scan(), where, opening=self.name)
                self.apply(snapshot, cache=cache, progress=progress)
            self._snapshot = snapshot
            self._watch.reset()
            return self

    def _take_encoder(self, encoder: Encoder | None, *, replace: bool) -> None:
        """``encoder`` where none is set (with ``replace``: instead of it); else the default."""
        if encoder is not None and (replace or self._encoder is None):
            self._encoder = encoder
        elif self._encoder is None:
            from schemarouter.index.encoders.defaults import default_encoder

            self._encoder = default_encoder()

    def _rows(self) -> int:
        with self._engine("counting the collection's rows"):
            return repair.count_rows(self.client, self.name)

    def _check_rows(self, meta: dict[str, Any]) -> None:
        """Lite only (a server counts flushed rows only): :func:`.lite.check_row_count`."""
        if self.target.is_lite and meta.get("state") == "clean":
            with self._engine("counting the collection's rows"):
                stats = self.client.get_collection_stats(self.name)
            lite.check_row_count(self.target, meta, stats)

    def rebuild(self, snapshot: RegistrySnapshot, **options: Unpack[OpenOptions]) -> MilvusIndex:
        """Drop the collection (if any) and index every route of ``snapshot`` anew."""
        cache, progress = options.get("cache"), options.get("progress", False)
        with self._lock:
            self._take_encoder(options.get("encoder"), replace=True)
            self._drop_collection()
            self._create()
            self.apply(snapshot, cache=cache, progress=progress)
            return self

    def drop(self) -> None:
        """Delete the collection and everything in it."""
        with self._lock:
            self._drop_collection()
            self._meta, self._routes = {}, None

    def _drop_collection(self) -> None:
        with self._engine("dropping the collection"):
            if self.client.has_collection(self.name):
                self.client.drop_collection(self.name)

    def _create(self) -> None:
        schema, index_params = collection_schema(
            _pymilvus(), self.client, dim=int(self.encoder.dim), settings=self.settings
        )
        with self._engine("creating the collection"):
            self.client.create_collection(
                self.name,
                schema=schema,
                index_params=index_params,
                consistency_level=self.target.consistency_level,
            )
        self._meta = {}
        self._routes = {}
        self._write_meta(**new_meta(self.encoder, self.settings))

    # -- incremental updates -----------------------------------------------------------------

    def _scan(self) -> dict[str, str]:
        """route id -> fingerprint of every route version stored (``kind == 0`` rows).
        Two versions of one route (an interrupted update) show as ``"<id>\\0<fp>"`` twice."""
        with self._engine("reading the stored routes"):
            return stored_routes(self.client, self.name)

    def _stored_fingerprint(self) -> str:
        stored = self._scan()
        return fingerprint(sorted((r, fp) for r, fp in stored.items()))

    def _current(self) -> dict[str, str]:
        if self._routes is None:
            self._routes = self._scan()
        return self._routes

    def apply(
        self,
        snapshot: RegistrySnapshot,
        change: RegistryChange | None = None,
        **options: Unpack[BuildOptions],
    ) -> EmbedStats:
        """Bring the collection to ``snapshot`` (by route fingerprints; ``change`` is only
        logged); returns what was embedded. All or nothing (see the module docstring).

        An update that wrote or deleted rows ends with a flush, so Milvus seals and indexes
        them: Milvus Lite scans unsealed rows one by one (7.8 s instead of 0.2 s per search
        at 10,000 routes, measured); registrations are rare next to searches, and a cluster
        compacts the small segments this makes."""
        cache, progress = options.get("cache"), options.get("progress", False)
        with self._lock:
            if not self._meta:
                raise _not_open()
            repair = self._meta.get("state") != "clean"  # an interrupted update's rows
            if not repair and self.registry_fingerprint == snapshot.fingerprint:
                self.last_embed = EmbedStats()
                return self.last_embed
            current = self._current()
            stale = [
                (r.split("\0")[0], fp)
                for r, fp in current.items()
                if r not in snapshot.routes or snapshot.routes[r].fingerprint != fp
            ]
            fresh = [
                snapshot.routes[r]
                for r in sorted(snapshot.routes)
                if current.get(r) != snapshot.routes[r].fingerprint or r in self._partial
            ]
            logger.debug(
                "milvus apply v%d: %d route versions to write, %d to delete (change: %s)",
                snapshot.version,
                len(fresh),
                len(stale),
                change,
            )
            # keys already stored (left by an interrupted update) are upserted, the rest
            # inserted (in Milvus an upsert is a delete and an insert)
            stored = {route_key(r.split("\0")[0], fp) for r, fp in current.items()}
            written: dict[str, None] = {}
            self._write_meta(state="applying")
            try:
                stats, n_docs = self._write_routes(fresh, cache, progress, written, stored)
                deleted = self._delete_keys([route_key(r, fp) for r, fp in stale])
                if n_docs or deleted:  # seal the writes so Milvus indexes them
                    with self._engine("flushing"):
                        self.client.flush(self.name)
                documents = int(self._meta.get("documents", 0)) + n_docs - deleted
                if repair:  # the metadata never counted the interrupted update's rows
                    documents = self._rows()
                self._write_meta(
                    state="clean",
                    registry_fingerprint=snapshot.fingerprint,
                    registry_version=snapshot.version,
                    routes=len(snapshot),
                    documents=max(documents, 0),
                    parts=refusals.meta_parts(snapshot),
                )
            except BaseException:
                self._routes = None
                self._known.clear()
                self._roll_back(list(written))
                raise
            self._routes = {r: route.fingerprint for r, route in snapshot.routes.items()}
            self._snapshot, self._partial = snapshot, set()
            self._known.clear()
            self.last_embed = stats
            return stats

    def _write_routes(
        self,
        routes: Sequence[Any],
        cache: EmbeddingCache | None,
        progress: bool,
        written: dict[str, None],
        stored: set[str],
    ) -> tuple[EmbedStats, int]:
        """Embed and write the rows of ``routes`` (upserts for route keys in ``stored``,
        inserts for the rest); ``written`` collects their route keys before each request,
        so a failure knows what to roll back."""
        pending = [p for route in routes for p in route_rows(route, self.settings)]
        texts = list(dict.fromkeys(p.dense_text for p in pending if p.dense_text))
        bar = progress_bar(progress, len(texts), "embedding", "texts")
        vectors, stats = embed_texts(
            self.encoder, texts, cache=cache, progress=bar.update if bar is not None else None
        )
        if bar is not None:
            bar.close()
        stats.requested = len(pending)
        position = {t: i for i, t in enumerate(texts)}
        zeros = [0.0] * int(self.encoder.dim)
        bar = progress_bar(progress, len(pending), f"writing to {self.name}", "documents")
        for lo in range(0, len(pending), WRITE_BATCH):
            batch = pending[lo : lo + WRITE_BATCH]
            rows = []
            for item in batch:
                vector = vectors[position[item.dense_text]].tolist() if item.dense_text else zeros
                rows.append({**item.row, "vector": vector})
            written.update(dict.fromkeys(r["route_key"] for r in rows))
            again = [r for r in rows if r["route_key"] in stored]
            new = [r for r in rows if r["route_key"] not in stored]
            with self._engine("writing documents"):
                if new:
                    self.client.insert(self.name, new)
                if again:
                    self.client.upsert(self.name, again)
                if (lo + WRITE_BATCH) % FLUSH_EVERY == 0:
                    self.client.flush(self.name)
            if bar is not None:
                bar.update(len(batch))
        if bar is not None:
            bar.close()
        return stats, len(pending)

    def _delete_keys(self, keys: Sequence[str]) -> int:
        """Delete every row of the route versions ``keys``; returns how many went."""
        deleted = 0
        for lo in range(0, len(keys), IN_BATCH):
            batch = list(keys[lo : lo + IN_BATCH])
            with self._engine("deleting old documents"):
                result = self.client.delete(self.name, filter=in_expression("route_key", batch))
            if isinstance(result, dict):
                deleted += int(result.get("delete_count") or 0)
            elif isinstance(result, list | tuple):
                deleted += len(result)
        return deleted

    def _roll_back(self, keys: Sequence[str]) -> None:
        """Remove rows written by a failed ``apply`` (best effort: the engine may be gone;
        then the ``applying`` state tells the next ``open``)."""
        try:
            for lo in range(0, len(keys), IN_BATCH):
                batch = list(dict.fromkeys(keys[lo : lo + IN_BATCH]))
                self.client.delete(self.name, filter=in_expression("route_key", batch))
            self._write_meta(state="clean")
        except Exception as exc:  # the engine failed again: leave the mark for open()
            logger.warning("could not roll back a failed Milvus update: %s", exc)

    def check_current(self, snapshot: RegistrySnapshot) -> None:
        if snapshot.fingerprint != self.registry_fingerprint:
            raise refusals.stale(self._meta, snapshot, self._current(), self.target.redacted())

    def _moved(self, theirs: dict[str, Any]) -> str:
        """How this router's registry differs from the collection another writer moved."""
        snapshot = self._snapshot
        return "" if snapshot is None else refusals.difference(self._scan(), snapshot, theirs)

    # -- search --------------------------------------------------------------------------------

    def known_token_share(self, query: str | QueryText) -> float:
        """Share of the query's tokens that occur in some stored document (one BM25 probe
        per token not seen before; answers are kept until the next ``apply``)."""
        tokens = QueryText.of(query).tokens_for(self.settings.tokenizer)
        if not tokens:
            return 0.0
        unknown = [t for t in dict.fromkeys(tokens) if t not in self._known]
        if unknown:
            with self._engine("searching"):
                found = token_hits(
                    self.client, self.name, unknown, consistency=self.target.consistency_level
                )
            if len(self._known) > 100_000:
                self._known.clear()
            self._known.update(zip(unknown, found, strict=True))
        return sum(1 for t in tokens if self._known.get(t)) / len(tokens)

    def search(
        self,
        query: str | QueryText,
        *,
        k: int = 50,
        mode: SearchMode = "hybrid",
        filters: RouteFilter | None = None,
    ) -> list[RouteHit]:
        """The ``k`` best routes for ``query``, its text or its
        :class:`~schemarouter.index.tokenize.QueryText` (see the module docstring for the
        fusion)."""
        words = QueryText.of(query)
        query = words.text
        check_search_mode(mode)
        if not self._meta:
            raise _not_open()
        text = " ".join(words.tokens_for(self.settings.tokenizer))
        self._watch.check(
            self._read_meta, self._meta, self._moved, name=self.name, where=self.target.redacted()
        )
        if k <= 0 or not query.strip() or len(self) == 0:
            return []
        depth = max(k, self.settings.candidate_depth)
        # a request's vector as the in-process index reads it (the bridge for Korean)
        vector = None if mode == "lexical" else encode_request(self.encoder, query)
        request = MilvusQuery(
            self.client,
            self.name,
            self.settings,
            text=text,
            vector=vector,
            depth=depth,
            filters=filters,
            consistency_level=self.target.consistency_level,
        )
        weight = dense_weight_for(query, self.settings.dense_weight, self.encoder)
        with self._engine("searching"):
            return request.best(k, mode=mode, fusion=self.fusion, dense_weight=weight)
