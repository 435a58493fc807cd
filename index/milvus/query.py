"""One query against a Milvus collection written by
:class:`~schemarouter.index.milvus.index.MilvusIndex`.

::

    "router" fusion:   BM25 search ──► documents ──► max roll-up (fields x 0.5) ──┐
                       dense search ─► documents ──► max roll-up ─────────────────┤
                       vectors of lexical-only candidates (exact dense score) ────┤
                                  IndexSettings.fuse (weighted_fusion, .fusion) ▼ top k
    "rrf"/"weighted":  hybrid_search(BM25, dense, RRFRanker | WeightedRanker) ─► documents
                       ─► max roll-up of the fused score; dense score from the returned vectors

Every request carries the filter expression, so Milvus filters inside each retriever.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schemarouter.index.backend import RouteFilter
from schemarouter.index.documents import DocKind
from schemarouter.index.fusion import UNRANKED, fused_order
from schemarouter.index.milvus.rows import (
    IN_BATCH,
    DocHit,
    doc_hits,
    filter_expression,
    in_expression,
    roll_up,
)
from schemarouter.index.settings import IndexSettings, RouteHit

__all__ = ["DOCS_PER_ROUTE", "MAX_TOPK", "MilvusQuery", "stored_routes", "token_hits"]

#: Documents asked for per route wanted (a route has an endpoint and field documents).
DOCS_PER_ROUTE = 4
#: Milvus answers at most this many hits per search.
MAX_TOPK = 16_384
_OUTPUT = ["route_id", "kind", "field"]


def _field_names(found: dict[str, int] | None) -> tuple[str, ...]:
    if not found:
        return ()
    return tuple(sorted(found, key=lambda n: (found[n], n)))


def _merge_fields(*maps: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for found in maps:
        for route, names in found.items():
            mine = out.setdefault(route, {})
            for name, rank in names.items():
                mine[name] = min(rank, mine.get(name, UNRANKED))
    return out


class MilvusQuery:
    """The searches of one query (``text``: its tokens joined; ``vector``: its embedding)."""

    def __init__(
        self,
        client: Any,
        collection: str,
        settings: IndexSettings,
        *,
        text: str,
        vector: np.ndarray | None,
        depth: int,
        filters: RouteFilter | None,
        consistency_level: str,
    ) -> None:
        self.client = client
        self.collection = collection
        self.settings = settings
        self.text = text
        self.vector = None if vector is None else np.asarray(vector, dtype=np.float32)
        self.depth = depth
        self.limit = min(MAX_TOPK, depth * DOCS_PER_ROUTE)
        self.filters = filters
        self.consistency_level = consistency_level

    def _search(self, *, lexical: bool) -> list[DocHit]:
        if lexical and not self.text:
            return []
        if not lexical and self.vector is None:
            return []
        data = [self.text] if lexical else [self.vector.tolist()]  # type: ignore[union-attr]
        results = self.client.search(
            self.collection,
            data=data,
            anns_field="sparse" if lexical else "vector",
            limit=self.limit,
            filter=filter_expression(self.filters, dense=not lexical),
            output_fields=_OUTPUT,
            consistency_level=self.consistency_level,
        )
        return doc_hits(results[0], bm25=lexical)

    def _roll_up(
        self, hits: list[DocHit], *, lexical: bool
    ) -> tuple[dict[str, float], dict[str, dict[str, int]]]:
        s = self.settings
        return roll_up(
            hits,
            field_weight=s.lexical_field_weight if lexical else s.dense_field_weight,
            field_depth=s.field_hit_depth,
            field_floor=None if lexical else s.field_min_similarity,
        )

    def best(self, k: int, *, mode: str, fusion: str, dense_weight: float) -> list[RouteHit]:
        """The ``k`` best routes: one side alone (``mode`` lexical or dense), or both fused
        here (``fusion="router"``, with ``dense_weight``) or by Milvus (``rrf``, ``weighted``)."""
        if mode != "hybrid":
            return self.single(k, lexical=mode == "lexical")
        if fusion == "router":
            return self.router_fusion(k, dense_weight=dense_weight)
        return self.milvus_fusion(k, ranker=fusion)

    def single(self, k: int, *, lexical: bool) -> list[RouteHit]:
        """One retriever alone (``mode="lexical"`` or ``"dense"``)."""
        scores, fields = self._roll_up(self._search(lexical=lexical), lexical=lexical)
        out: list[RouteHit] = []
        for rank, (route, score) in enumerate(scores.items(), start=1):
            if len(out) == k or (lexical and score <= 0):
                break
            out.append(
                RouteHit(
                    route_id=route,
                    score=score,
                    lexical_score=score if lexical else 0.0,
                    dense_score=0.0 if lexical else score,
                    lexical_rank=rank if lexical else None,
                    dense_rank=None if lexical else rank,
                    matched_fields=_field_names(fields.get(route)),
                )
            )
        return out

    def _dense_of(self, routes: list[str]) -> dict[str, float]:
        """Exact dense scores of ``routes`` from their stored vectors (as the in-process
        index computes for every candidate)."""
        s = self.settings
        q = self.vector
        out: dict[str, float] = {}
        if q is None:
            return out
        for lo in range(0, len(routes), IN_BATCH):
            rows = self.client.query(
                self.collection,
                filter=f"{in_expression('route_id', routes[lo : lo + IN_BATCH])} and "
                "has_vector == true and kind < 2",
                output_fields=["route_id", "kind", "vector"],
                consistency_level=self.consistency_level,
            )
            for row in rows:
                sim = float(np.dot(np.asarray(row["vector"], dtype=np.float32), q))
                if int(row["kind"]) == DocKind.FIELD:
                    sim *= s.dense_field_weight
                route = str(row["route_id"])
                out[route] = max(sim, out.get(route, -np.inf))
        return out

    def router_fusion(self, k: int, *, dense_weight: float) -> list[RouteHit]:
        """Both retrievers from Milvus, fused here with the in-process index's rule."""
        s = self.settings
        lex_scores, lex_fields = self._roll_up(self._search(lexical=True), lexical=True)
        dense_scores, dense_fields = self._roll_up(self._search(lexical=False), lexical=False)
        lex_top = [r for r, v in lex_scores.items() if v > 0][: self.depth]
        dense_top = list(dense_scores)[: self.depth]
        candidates = sorted(set(lex_top) | set(dense_top))
        if not candidates:
            return []
        missing = [r for r in candidates if r not in dense_scores]
        dense_scores = {**dense_scores, **self._dense_of(missing)} if missing else dense_scores
        lex = np.array([lex_scores.get(r, 0.0) for r in candidates])
        dense = np.array([dense_scores.get(r, 0.0) for r in candidates])
        lex_rank = np.zeros(len(candidates), dtype=np.int64)
        dense_rank = np.zeros(len(candidates), dtype=np.int64)
        position = {r: i for i, r in enumerate(candidates)}
        for rank, route in enumerate(lex_top, start=1):
            lex_rank[position[route]] = rank
        for rank, route in enumerate(dense_top, start=1):
            dense_rank[position[route]] = rank
        fused = s.fuse(lex, dense, (lex_rank, dense_rank), dense_weight=dense_weight)
        order = fused_order(fused, (lex_rank, dense_rank), np.arange(len(candidates)))[:k]
        fields = _merge_fields(lex_fields, dense_fields)
        return [
            RouteHit(
                route_id=candidates[i],
                score=float(fused[i]),
                lexical_score=float(lex[i]),
                dense_score=float(dense[i]),
                lexical_rank=int(lex_rank[i]) or None,
                dense_rank=int(dense_rank[i]) or None,
                matched_fields=_field_names(fields.get(candidates[i])),
            )
            for i in order.tolist()
        ]

    def milvus_fusion(self, k: int, *, ranker: str) -> list[RouteHit]:
        """One ``hybrid_search``: Milvus fuses the documents of both retrievers."""
        import pymilvus

        s = self.settings
        requests = []
        if self.text:
            requests.append(
                pymilvus.AnnSearchRequest(
                    data=[self.text],
                    anns_field="sparse",
                    param={},
                    limit=self.limit,
                    expr=filter_expression(self.filters),
                )
            )
        assert self.vector is not None
        requests.append(
            pymilvus.AnnSearchRequest(
                data=[self.vector.tolist()],
                anns_field="vector",
                param={},
                limit=self.limit,
                expr=filter_expression(self.filters, dense=True),
            )
        )
        if ranker == "rrf":
            fuser = pymilvus.RRFRanker(s.rrf_k)
        else:
            weights = [s.lexical_weight, s.dense_weight][-len(requests) :]
            fuser = pymilvus.WeightedRanker(*weights, norm_score=True)
        results = self.client.hybrid_search(
            self.collection,
            requests,
            ranker=fuser,
            limit=self.limit,
            output_fields=[*_OUTPUT, "vector"],
            consistency_level=self.consistency_level,
        )
        fused: dict[str, float] = {}
        dense: dict[str, float] = {}
        fields: dict[str, dict[str, int]] = {}
        field_rank = 0
        q = self.vector
        for hit in results[0]:
            entity = hit.get("entity", hit)
            route, kind = str(entity["route_id"]), int(entity["kind"])
            fused.setdefault(route, float(hit["distance"]))  # best first: the max
            sim = float(np.dot(np.asarray(entity["vector"], dtype=np.float32), q))
            if kind == DocKind.FIELD:
                sim *= s.dense_field_weight
                field_rank += 1
                name = str(entity.get("field") or "")
                # which retriever brought a document is not returned: a field counts as
                # matched on the dense rule (its similarity from the floor up)
                if name and field_rank <= s.field_hit_depth and sim >= s.field_min_similarity:
                    fields.setdefault(route, {}).setdefault(name, field_rank)
            dense[route] = max(sim, dense.get(route, -np.inf))
        order = sorted(fused, key=lambda r: (-fused[r], r))[:k]
        return [
            RouteHit(
                route_id=route,
                score=fused[route],
                lexical_score=0.0,
                dense_score=dense[route],
                lexical_rank=None,
                dense_rank=None,
                matched_fields=_field_names(fields.get(route)),
            )
            for route in order
        ]


def token_hits(client: Any, collection: str, tokens: list[str], *, consistency: str) -> list[bool]:
    """Whether each of ``tokens`` occurs in some endpoint or field document (one BM25 probe
    each, all in one request)."""
    results = client.search(
        collection,
        data=tokens,
        anns_field="sparse",
        limit=1,
        filter="kind < 2",
        output_fields=["route_id"],
        consistency_level=consistency,
    )
    return [len(hits) > 0 for hits in results]


def stored_routes(client: Any, collection: str) -> dict[str, str]:
    """route id -> fingerprint of every route version stored (``kind == 0`` rows). Two
    versions of one route (an interrupted update) show as ``"<id>\\0<fp>"`` twice."""
    out: dict[str, str] = {}
    iterator = client.query_iterator(
        collection, batch_size=4096, filter="kind == 0", output_fields=["route_id", "route_fp"]
    )
    try:
        while batch := iterator.next():
            for row in batch:
                rid, fp = str(row["route_id"]), str(row["route_fp"])
                if rid in out and out[rid] != fp:
                    out[f"{rid}\0{fp}"] = fp
                else:
                    out[rid] = fp
    finally:
        iterator.close()
    return out
