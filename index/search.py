"""The query path of :class:`~schemarouter.index.hybrid.HybridIndex`.

``search`` runs BM25 over every document and rolls document scores up to routes (max, with
field documents weighted by ``lexical_field_weight``); embeds the query once and asks the
endpoint and field vector sets for their nearest texts, rolled up the same way; takes the
union of both candidate lists, computes the *exact* dense score of every candidate (so
weighted fusion never mistakes "not in the other top list" for zero), fuses, and names the
fields whose documents matched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from schemarouter.index.backend import SearchMode, check_search_mode
from schemarouter.index.documents import DEFAULT_TEXT_LIMITS, DocKind
from schemarouter.index.encoders.dense import encode_request, query_runner, similarity_factor
from schemarouter.index.fusion import UNRANKED, fused_order, top_k
from schemarouter.index.settings import RouteHit
from schemarouter.index.tokenize import DEFAULT_TOKENIZER, QueryText, is_cjk
from schemarouter.index.workers import in_background

if TYPE_CHECKING:
    from schemarouter.contracts import Route
    from schemarouter.index.backend import RouteFilter
    from schemarouter.index.encoders.dense import Encoder, VectorSet
    from schemarouter.index.lexical import LexicalIndex
    from schemarouter.index.settings import IndexSettings
    from schemarouter.safety.forksafe import ForkSafeLock

__all__ = ["EMPTY", "RouteSearch", "dense_weight_for"]
EMPTY = np.zeros(0, dtype=np.int64)


def _run(job: Callable[[], object] | None) -> None:
    if job is not None:
        job()


class _View(NamedTuple):
    """What a search read of the tables before it let go of the lock to encode: their
    generation (row numbers hold while it is unchanged), routes and the filter's rows."""

    generation: int
    n_routes: int
    allowed: np.ndarray | None


def dense_weight_for(query: str, weight: float, encoder: object) -> float:
    """The dense weight for ``query``: scaled down by the share of the query written in
    scripts the encoder cannot read (Han, kana, Hangul for the English MiniLM); for an
    encoder that reads them through a bridge, by the bridge's agreement with the encoder
    (its held-out mean cosine, ``1 / similarity_scale``) where the request goes through it:
    a bridged vector is a less sure reading of the request than the encoder's own, so the
    lexical channel (which the Korean glossary feeds) gets the rest of the say."""
    if getattr(encoder, "reads_cjk", False):
        factor = similarity_factor(encoder, query)
        return weight / factor if factor > 1.0 else weight
    letters = [c for c in query if c.isalpha()]
    if not letters:
        return weight
    return weight * (1.0 - sum(map(is_cjk, letters)) / len(letters))


class RouteSearch:
    """Search over the tables a :class:`HybridIndex` maintains (a mixin)."""

    settings: IndexSettings
    encoder: Encoder
    _lock: ForkSafeLock
    _generation: int
    _lexical: LexicalIndex
    _vectors: tuple[VectorSet, VectorSet]
    _route_ids: list[str]
    _route_row: dict[str, int]
    _route_fps: list[str]
    _route_fields: list[tuple[str, ...]]
    _routes: list[Route]
    _doc_route: np.ndarray
    _doc_field: np.ndarray
    _doc_vec: np.ndarray
    _field_doc: np.ndarray
    _doc_weight: np.ndarray
    _field_rows: np.ndarray
    _endpoint_doc: np.ndarray
    _route_docs: tuple[np.ndarray, np.ndarray]
    _fanout: tuple[tuple[np.ndarray, np.ndarray], ...]
    _derived_ok: bool

    def _finish(self) -> None:  # pragma: no cover - provided by HybridIndex
        raise NotImplementedError

    #: :meth:`search` takes ``beside=`` (work to run beside the request's encoding)
    searches_beside = True
    #: the last searched request with its vector and BM25 scores (``rescore_parts`` of the
    #: same text reuses them)
    _last_vector: tuple[str, np.ndarray] | None = None
    _last_lexical: tuple[str, tuple[np.ndarray, np.ndarray] | None] | None = None

    def _query_vector(self, text: str) -> np.ndarray:
        """The vector of ``text``: the last searched request's where it is that text (the
        rescoring after a search reuses it), else encoded now."""
        last = self._last_vector
        if last is not None and last[0] == text:
            return last[1]
        return encode_request(self.encoder, text)

    def known_token_share(self, query: str | QueryText) -> float:
        """Share of the query's tokens that occur in some indexed document (0 if none).

        A cheap out-of-domain signal for abstention: a request in words the catalog never
        uses has a share near 0.
        """
        tokens = QueryText.of(query).tokens_for(self.settings.tokenizer)
        if not tokens:
            return 0.0
        with self._lock:
            return sum(1 for t in tokens if self._lexical.document_frequency(t) > 0) / len(tokens)

    def route_words(self, route: Route) -> frozenset[str] | None:
        """The words this index holds for ``route``'s documents, as word coverage reads them
        (:func:`schemarouter.retrieval.candidates.coverage` asks the first time it meets a
        route, instead of tokenizing its documents again); ``None`` where they may differ:
        another version of the route, or documents written or tokenized with other
        settings than the defaults coverage reads them with."""
        s = self.settings
        if s.tokenizer != DEFAULT_TOKENIZER or s.limits != DEFAULT_TEXT_LIMITS:
            return None
        with self._lock:
            if not self._derived_ok:
                self._finish()
            row = self._route_row.get(route.route_id)
            if row is None or self._route_fps[row] != route.fingerprint:
                return None
            indptr, members = self._route_docs
            return self._lexical.terms_of(members[indptr[row] : indptr[row + 1]].tolist())

    def _allowed(self, filters: RouteFilter | None) -> np.ndarray | None:
        """Which route rows ``filters`` lets through (``None``: all of them)."""
        if filters is None or filters.empty:
            return None
        if len(self._routes) != len(self._route_ids):
            raise ValueError("route filters need the indexed routes: load with HybridIndex.load")
        return np.fromiter(
            (filters.matches(r) for r in self._routes), dtype=bool, count=len(self._routes)
        )

    def search(
        self,
        query: str | QueryText,
        *,
        k: int = 50,
        mode: SearchMode = "hybrid",
        filters: RouteFilter | None = None,
        beside: Callable[[], object] | None = None,
    ) -> list[RouteHit]:
        """The ``k`` best routes for ``query``, fused from BM25 and dense retrieval;
        ``filters`` keeps only the routes it matches (inside both retrievers).

        A hybrid search runs BM25 on a worker thread while this thread's encoder call has
        released the GIL (:mod:`~schemarouter.index.workers`). ``beside`` is more work of
        the caller's to run there, started once the request is tokenized (the router's
        query analysis); it runs exactly once, on the worker or, where the search has no
        encoding to hide it behind, here before the search returns. Its return value is
        dropped: it reports through a closure. ``query`` is the text or its
        :class:`~schemarouter.index.tokenize.QueryText` (tokenized once for every reader).

        The request is encoded without the index's lock: other searches and an update's
        swap go on meanwhile, and where an update changed the tables by then, the search
        reads the new ones whole (its BM25 pass again), never a mix of both."""
        text = QueryText.of(query)
        query = text.text
        check_search_mode(mode)
        depth = max(k, self.settings.candidate_depth)
        lex_fields: dict[int, int] = {}  # field doc -> rank among field docs
        dense_fields: dict[int, int] = {}  # field vector row -> rank
        if mode == "lexical":
            _run(beside)
            with self._lock:
                view = self._view(query, k, filters)
                if view is None:
                    return []
                lex_top, weighted = self._lexical_routes(text, depth, lex_fields, view.allowed)
                return self._ranked(
                    query, mode, k, lex_top, weighted, lex_fields, EMPTY, None, dense_fields
                )
        with self._lock:
            view = self._view(query, k, filters)
        if view is None:
            _run(beside)
            return []
        # tokenized here; then BM25 and ``beside`` start on worker threads, and the model
        # call below runs while they do, without the lock: other searches and an update's
        # swap go on meanwhile
        run = query_runner(self.encoder, query)
        lexical = None
        if mode == "hybrid":
            lexical = in_background(self._lexical_at, view, text, depth, lex_fields)
        if beside is not None:
            in_background(beside)
        vector = run()
        self._last_vector = (query, vector)  # for a rescore of the same request
        found = lexical.result() if lexical is not None else None
        with self._lock:
            if self._generation != view.generation:  # an update came in: read it whole
                view = self._view(query, k, filters)
                if view is None:
                    return []
                lex_fields.clear()
                if mode == "hybrid":
                    found = self._lexical_routes(text, depth, lex_fields, view.allowed)
            lex_top, weighted = found if found is not None else (EMPTY, None)
            dense_scores = np.full(view.n_routes, -np.inf)
            dense_top = self._dense_routes(vector, depth, dense_scores, dense_fields, view.allowed)
            return self._ranked(
                query, mode, k, lex_top, weighted, lex_fields, dense_top, vector, dense_fields
            )

    def _view(self, query: str, k: int, filters: RouteFilter | None) -> _View | None:
        """The tables as a search starts reading them (the lock held; derived state
        finished first); ``None`` where the search has nothing to find."""
        if not self._derived_ok:
            self._finish()
        n_routes = len(self._route_ids)
        if n_routes == 0 or k <= 0 or not query or not query.strip():
            return None
        allowed = self._allowed(filters)
        if allowed is not None and not allowed.any():
            return None
        return _View(self._generation, n_routes, allowed)

    def _lexical_at(
        self, view: _View, query: QueryText, depth: int, fields: dict[int, int]
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """:meth:`_lexical_routes` on the tables ``view`` read (on a worker thread, taking
        the lock); ``None`` where an update changed them since."""
        with self._lock:
            if self._generation != view.generation:
                return None
            return self._lexical_routes(query, depth, fields, view.allowed)

    def _ranked(
        self,
        query: str,
        mode: SearchMode,
        k: int,
        lex_top: np.ndarray,
        weighted: np.ndarray | None,
        lex_fields: dict[int, int],
        dense_top: np.ndarray,
        vector: np.ndarray | None,
        dense_fields: dict[int, int],
    ) -> list[RouteHit]:
        """The fused top ``k`` of both retrievers' candidates (the lock held)."""
        candidates = np.union1d(lex_top, dense_top).astype(np.int64)
        if vector is not None:
            dense_exact = self._dense_exact(vector, candidates)
        else:
            dense_exact = np.zeros(candidates.size)
        return self._fuse(
            query,
            mode,
            k,
            candidates,
            lex_top,
            self._lexical_of(weighted, candidates),
            dense_top,
            dense_exact,
            lex_fields,
            dense_fields,
        )

    def rescore(self, text: str, route_ids: list[str]) -> np.ndarray:
        """The fused score of each of ``route_ids`` for ``text`` (:meth:`rescore_parts`)."""
        return self.rescore_parts(text, route_ids)[0]

    def rescore_parts(self, text: str, route_ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The fused score of each of ``route_ids`` for ``text``, among themselves.

        The same roll-up and fusion as :meth:`search` (BM25 and exact dense similarity,
        each normalized by its best over these routes), over the given routes only: cheap
        enough to score a request's parts against the candidates its whole text found.
        Unknown route ids score ``-inf``. Returns ``(fused, dense cosine)``.
        """
        out = np.full(len(route_ids), -np.inf)
        cosine = np.full(len(route_ids), -np.inf)
        if not text.strip():
            return out, cosine
        vector = self._query_vector(text)  # without the lock: the encoder reads no table
        with self._lock:
            known, routes = self._known_routes(route_ids)
            if known.size == 0:
                return out, cosine
            order = np.argsort(routes, kind="stable")
            routes, known = routes[order], known[order]
            seen = self._last_lexical
            scored = seen[1] if seen is not None and seen[0] == text else self._lexical_scores(text)
            lex = self._lexical_of(None if scored is None else scored[1], routes)
            dense = self._dense_exact(vector, routes)
            fused = self.settings.fuse_exact(lex, dense, dense_weight=self._dense_weight(text))
            out[known] = fused
            cosine[known] = dense
        return out, cosine

    def endpoint_similarity(self, text: str, route_ids: list[str]) -> np.ndarray:
        """The cosine of ``text`` to each route's endpoint document alone, without the field
        documents a route's dense score may be lifted by (a field it shares with its
        siblings lifts them all alike). Reuses the vector of the request just searched;
        unknown route ids score ``-inf``."""
        out = np.full(len(route_ids), -np.inf)
        if not text.strip():
            return out
        vector = self._query_vector(text)  # without the lock: the encoder reads no table
        with self._lock:
            known, routes = self._known_routes(route_ids)
            if known.size == 0:
                return out
            ep_vs, _ = self._vectors
            q = np.asarray(vector, dtype=np.float32)
            vectors = ep_vs.vectors[self._doc_vec[self._endpoint_doc[routes]]]
            out[known] = (vectors @ q).astype(np.float64)
        return out

    def _known_routes(self, route_ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(positions in route_ids, rows)`` of the routes this index holds (the lock held;
        derived state finished first)."""
        if not self._derived_ok:
            self._finish()
        rows = [self._route_row.get(r, -1) for r in route_ids]
        known = np.array([i for i, row in enumerate(rows) if row >= 0], dtype=np.int64)
        return known, np.array([rows[i] for i in known], dtype=np.int64)

    def _lexical_scores(self, query: str | QueryText) -> tuple[np.ndarray, np.ndarray] | None:
        """Every document's BM25 score for ``query``, raw and with field documents weighted
        (``None`` when no query term is indexed)."""
        raw = self._lexical.scores(QueryText.of(query).tokens_for(self.settings.tokenizer))
        return None if raw is None else (raw, raw * self._doc_weight)

    def _lexical_routes(
        self,
        query: str | QueryText,
        depth: int,
        fields: dict[int, int],
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The ``depth`` best routes by BM25 (a route scores its best document), the field
        documents that hit (into ``fields``), and the weighted document scores.

        Exact, without rolling every document up (a long request touches most of the
        documents of a 100,000-route catalog, and that roll-up cost ~4 ms there): a route
        scores at least its endpoint document, so any lower bound of the ``depth``-th best
        endpoint score bounds the ``depth``-th best route, and only documents scoring at
        least that can decide the top (:func:`_kth_lower_bound`)."""
        query = QueryText.of(query)
        scored = self._lexical_scores(query)
        self._last_lexical = (query.text, scored)
        if scored is None:
            return EMPTY, None
        raw, weighted = scored
        endpoints = self._endpoint_doc if allowed is None else self._endpoint_doc[allowed]
        tau = _kth_lower_bound(weighted, endpoints, depth)
        docs = np.flatnonzero(weighted >= tau) if tau > 0 else np.flatnonzero(weighted)
        # the field documents that hit: the best by BM25, bounded the same way
        k = self.settings.field_hit_depth
        tau_f = _kth_lower_bound(raw, self._field_rows, k)
        among = np.flatnonzero(self._field_doc & (raw >= tau_f if tau_f > 0 else raw > 0))
        for rank, doc in enumerate(among[top_k(raw[among], k, positive=True)]):
            fields[int(doc)] = rank + 1
        if docs.size == 0:
            return EMPTY, weighted
        # documents are stored grouped by route in route order (``HybridIndex`` keeps that
        # invariant), so each route's documents are one run and ``reduceat`` takes the max
        routes = self._doc_route[docs]
        starts = np.flatnonzero(np.r_[True, routes[1:] != routes[:-1]])
        route_rows = routes[starts]
        route_scores = np.maximum.reduceat(weighted[docs], starts)
        if allowed is not None:
            keep = allowed[route_rows]
            route_rows, route_scores = route_rows[keep], route_scores[keep]
        return route_rows[top_k(route_scores, depth, positive=True)], weighted

    def _lexical_of(self, weighted: np.ndarray | None, routes: np.ndarray) -> np.ndarray:
        """The BM25 score of each of ``routes`` (its best document) from
        :meth:`_lexical_scores`' weighted document scores."""
        if weighted is None or routes.size == 0:
            return np.zeros(routes.size)
        indptr = self._route_docs[0]
        sizes = indptr[routes + 1] - indptr[routes]  # >= 1: every route has its endpoint
        starts = np.cumsum(sizes) - sizes
        return np.maximum.reduceat(weighted[self._docs_of(routes)], starts).astype(np.float64)

    def _dense_routes(
        self,
        vector: np.ndarray,
        depth: int,
        out: np.ndarray,
        fields: dict[int, int],
        allowed: np.ndarray | None = None,
    ) -> np.ndarray:
        """The dense retriever: nearest endpoint texts, plus nearest field texts that are
        specific enough (used by at most ``max_fanout`` documents), rolled up by max.

        With a filter, the endpoint search reaches deeper in proportion to the share of
        routes the filter lets through, so about ``depth`` allowed routes are found."""
        ep_vs, field_vs = self._vectors
        reach = depth
        if allowed is not None:
            share = max(int(allowed.sum()), 1) / max(allowed.size, 1)
            reach = min(max(len(ep_vs), 1), int(np.ceil(depth / share)))
        rows, sims = ep_vs.search(vector, reach)
        docs, doc_sims = self._fan(DocKind.ENDPOINT, rows, sims, limit=None)
        np.maximum.at(out, self._doc_route[docs], doc_sims)
        frows, fsims = field_vs.search(vector, self.settings.field_hit_depth)
        floor = self.settings.field_min_similarity
        for rank, (row, sim) in enumerate(zip(frows.tolist(), fsims.tolist(), strict=True)):
            if sim >= floor:
                fields[row] = rank + 1
        if frows.size:
            docs, doc_sims = self._fan(DocKind.FIELD, frows, fsims, limit=self.settings.max_fanout)
            np.maximum.at(out, self._doc_route[docs], doc_sims * self.settings.dense_field_weight)
        if allowed is not None:
            out[~allowed] = -np.inf
        reached = np.flatnonzero(np.isfinite(out))
        order = np.lexsort((reached, -out[reached]))[:depth]
        return reached[order]

    def _dense_exact(self, vector: np.ndarray, routes: np.ndarray) -> np.ndarray:
        """Exact dense score of ``routes``: max(endpoint sim, weight * field sims)."""
        if routes.size == 0:
            return np.zeros(0)
        ep_vs, field_vs = self._vectors
        q = np.asarray(vector, dtype=np.float32)
        scores = (ep_vs.vectors[self._doc_vec[self._endpoint_doc[routes]]] @ q).astype(np.float64)
        docs = self._docs_of(routes)
        docs = docs[self._field_doc[docs] & (self._doc_vec[docs] >= 0)]
        if docs.size:
            sims = (field_vs.vectors[self._doc_vec[docs]] @ q) * self.settings.dense_field_weight
            position = np.searchsorted(routes, self._doc_route[docs])
            np.maximum.at(scores, position, sims.astype(np.float64))
        return scores

    def _fan(
        self, kind: DocKind, rows: np.ndarray, sims: np.ndarray, *, limit: int | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Documents using each vector row (rows over ``limit`` documents skipped)."""
        indptr, members = self._fanout[kind]
        sizes = indptr[rows + 1] - indptr[rows]
        if limit is not None:
            keep = sizes <= limit
            rows, sims, sizes = rows[keep], sims[keep], sizes[keep]
        if rows.size == 0:
            return EMPTY, np.zeros(0)
        starts = np.repeat(indptr[rows], sizes)
        offsets = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return members[starts + offsets], np.repeat(sims.astype(np.float64), sizes)

    def _docs_of(self, routes: np.ndarray) -> np.ndarray:
        indptr, members = self._route_docs
        if routes.size == 0:
            return EMPTY
        sizes = indptr[routes + 1] - indptr[routes]
        starts = np.repeat(indptr[routes], sizes)
        offsets = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return members[starts + offsets]

    def _dense_weight(self, query: str) -> float:
        return dense_weight_for(query, self.settings.dense_weight, self.encoder)

    def _fuse(
        self,
        query: str,
        mode: SearchMode,
        k: int,
        candidates: np.ndarray,
        lex_top: np.ndarray,
        lex: np.ndarray,
        dense_top: np.ndarray,
        dense: np.ndarray,
        lex_fields: dict[int, int],
        dense_fields: dict[int, int],
    ) -> list[RouteHit]:
        s = self.settings
        if candidates.size == 0:
            return []
        lex_rank = np.zeros(candidates.size, dtype=np.int64)
        dense_rank = np.zeros(candidates.size, dtype=np.int64)
        lex_rank[np.searchsorted(candidates, lex_top)] = np.arange(1, lex_top.size + 1)
        dense_rank[np.searchsorted(candidates, dense_top)] = np.arange(1, dense_top.size + 1)
        if mode == "lexical":
            fused = np.where(lex_rank > 0, lex, -np.inf)
        elif mode == "dense":
            fused = np.where(dense_rank > 0, dense, -np.inf)
        else:  # every candidate has both scores (exact dense similarity, full BM25)
            weight = self._dense_weight(query)
            fused = s.fuse(lex, dense, (lex_rank, dense_rank), dense_weight=weight)
        order = fused_order(fused, (lex_rank, dense_rank), candidates)
        order = order[np.isfinite(fused[order])][:k]
        routes = candidates[order]
        matched = self._matched_fields(routes, lex_fields, dense_fields)
        return [
            RouteHit(
                route_id=self._route_ids[route],
                score=float(fused[i]),
                lexical_score=float(lex[i]),
                dense_score=float(dense[i]),
                lexical_rank=int(lex_rank[i]) or None,
                dense_rank=int(dense_rank[i]) or None,
                matched_fields=matched.get(route, ()),
            )
            for route, i in zip(routes.tolist(), order.tolist(), strict=True)
        ]

    def _matched_fields(
        self, routes: np.ndarray, lex_fields: dict[int, int], dense_fields: dict[int, int]
    ) -> dict[int, tuple[str, ...]]:
        """route -> names of its fields whose documents hit, best rank first."""
        if routes.size == 0 or not (lex_fields or dense_fields):
            return {}
        docs = self._docs_of(routes)
        docs = docs[self._field_doc[docs]]
        found: dict[int, dict[str, int]] = {}
        for doc, route, field, vec in zip(
            docs.tolist(),
            self._doc_route[docs].tolist(),
            self._doc_field[docs].tolist(),
            self._doc_vec[docs].tolist(),
            strict=True,
        ):
            rank = min(lex_fields.get(doc, UNRANKED), dense_fields.get(vec, UNRANKED))
            if rank < UNRANKED:
                name = self._route_fields[route][field]
                names = found.setdefault(route, {})
                names[name] = min(rank, names.get(name, UNRANKED))
        return {
            route: tuple(sorted(names, key=lambda n: (names[n], n)))
            for route, names in found.items()
        }


def _kth_lower_bound(scores: np.ndarray, rows: np.ndarray, k: int) -> float:
    """A lower bound of the ``k``-th largest positive ``scores[rows]`` (0: look at every
    positive score): the ``k``-th largest of an evenly strided sample of about ``20 * k``
    rows, since a sample's ``k``-th largest is never above the whole's. Cheap where a full
    partition is not (100,000 endpoint scores, many of them tied at 0: 12 ms)."""
    if k <= 0 or rows.size <= k:
        return 0.0
    sample = scores[rows[:: max(1, rows.size // (20 * k))]]
    sample = sample[sample > 0]
    if sample.size < k:
        return 0.0
    return float(np.partition(sample, sample.size - k)[sample.size - k])
