"""Settings of a hybrid index, and the result row it returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple

import numpy as np

from schemarouter.index.documents import DEFAULT_TEXT_LIMITS, TextLimits
from schemarouter.index.encoders.dense import (
    DEFAULT_EF_CONSTRUCTION,
    DEFAULT_EF_SEARCH,
    DEFAULT_HNSW_CODEC,
    DEFAULT_HNSW_M,
    DEFAULT_HNSW_THRESHOLD,
)
from schemarouter.index.fusion import (
    DEFAULT_CANDIDATE_DEPTH,
    DEFAULT_DENSE_NORM_FLOOR,
    DEFAULT_DENSE_NORMALIZE,
    DEFAULT_DENSE_WEIGHT,
    DEFAULT_FIELD_HIT_DEPTH,
    DEFAULT_FUSION,
    DEFAULT_LEXICAL_NORMALIZE,
    DEFAULT_LEXICAL_WEIGHT,
    DEFAULT_RRF_K,
    FusionMethod,
    reciprocal_rank_fusion,
    weighted_fusion,
)
from schemarouter.index.lexical import BM25Params
from schemarouter.index.tokenize import DEFAULT_TOKENIZER, TokenizerSettings

__all__ = [
    "DEFAULT_DENSE_FIELD_WEIGHT",
    "DEFAULT_FIELD_MIN_SIMILARITY",
    "DEFAULT_LEXICAL_FIELD_WEIGHT",
    "DEFAULT_MAX_FANOUT",
    "IndexSettings",
    "RouteHit",
]

#: A field document's score counts this much when it rolls up to its route
#: (route score = max(endpoint score, weight * best field score)), per retriever. Chosen
#: on dev: lexical 0.5 beat 1.0 (R@5, lexical only: G1 0.765 vs 0.761, materials 0.915
#: vs 0.896); dense 1.0 beat 0.5 (materials 0.805 vs 0.750; G1 and MetaTool have no
#: described fields, so no difference there).
DEFAULT_LEXICAL_FIELD_WEIGHT = 0.5
DEFAULT_DENSE_FIELD_WEIGHT = 1.0
#: A dense field hit names its field in ``matched_fields`` only from this cosine up.
DEFAULT_FIELD_MIN_SIMILARITY = 0.3
#: A dense field text shared by more documents than this is too common to bring new routes
#: into the dense ranking; it still raises routes already retrieved and names their fields.
DEFAULT_MAX_FANOUT = 64


class RouteHit(NamedTuple):
    """One route in a search result. Ranks are 1-based; ``None`` = not retrieved."""

    route_id: str
    score: float
    lexical_score: float
    dense_score: float
    lexical_rank: int | None
    dense_rank: int | None
    #: Output fields of the route whose field documents matched, best first.
    matched_fields: tuple[str, ...]


@dataclass(frozen=True)
class IndexSettings:
    """Everything that shapes an index. Saved with it; a loaded index keeps its own."""

    bm25: BM25Params = field(default_factory=BM25Params)
    tokenizer: TokenizerSettings = DEFAULT_TOKENIZER
    limits: TextLimits = DEFAULT_TEXT_LIMITS
    fusion: FusionMethod = DEFAULT_FUSION
    rrf_k: float = DEFAULT_RRF_K
    #: Score normalization of each retriever in weighted fusion ("max", "minmax", "none").
    lexical_normalize: str = DEFAULT_LEXICAL_NORMALIZE
    dense_normalize: str = DEFAULT_DENSE_NORMALIZE
    dense_norm_floor: float = DEFAULT_DENSE_NORM_FLOOR
    lexical_weight: float = DEFAULT_LEXICAL_WEIGHT
    dense_weight: float = DEFAULT_DENSE_WEIGHT
    lexical_field_weight: float = DEFAULT_LEXICAL_FIELD_WEIGHT
    dense_field_weight: float = DEFAULT_DENSE_FIELD_WEIGHT
    candidate_depth: int = DEFAULT_CANDIDATE_DEPTH
    field_hit_depth: int = DEFAULT_FIELD_HIT_DEPTH
    field_min_similarity: float = DEFAULT_FIELD_MIN_SIMILARITY
    max_fanout: int = DEFAULT_MAX_FANOUT
    hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD
    hnsw_m: int = DEFAULT_HNSW_M
    ef_search: int = DEFAULT_EF_SEARCH
    ef_construction: int = DEFAULT_EF_CONSTRUCTION
    hnsw_codec: str = DEFAULT_HNSW_CODEC
    #: Compact a vector set when more than this share of its vectors is unreferenced.
    compact_dead_fraction: float = 0.3

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["limits"] = self.limits._asdict()
        return out

    @classmethod
    def unknown_names(cls, data: dict[str, Any]) -> list[str]:
        """The settings in ``data`` this version does not know (``bm25.k3`` for one inside
        a group): an index another version of SchemaRouter saved, not a damaged one."""
        groups = {
            "bm25": {f.name for f in fields(BM25Params)},
            "tokenizer": {f.name for f in fields(TokenizerSettings)},
            "limits": set(TextLimits._fields),
        }
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        for group, names in groups.items():
            if isinstance(data.get(group), dict):
                unknown += [f"{group}.{name}" for name in sorted(set(data[group]) - names)]
        return unknown

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexSettings:
        unknown = cls.unknown_names(data)
        if unknown:
            raise ValueError(f"unknown settings {unknown}")
        values = dict(data)
        if "bm25" in values:
            values["bm25"] = BM25Params(**values["bm25"])
        if "tokenizer" in values:
            values["tokenizer"] = TokenizerSettings(**values["tokenizer"])
        if "limits" in values:
            values["limits"] = TextLimits(**values["limits"])
        return cls(**values)

    # -- fusion with these settings (the in-process index and Milvus's "router" fusion) --

    def fuse(
        self,
        lexical: np.ndarray,
        dense: np.ndarray,
        ranks: tuple[np.ndarray, np.ndarray],
        *,
        dense_weight: float,
    ) -> np.ndarray:
        """The fused score of each candidate: reciprocal rank fusion of its two ``ranks``
        (lexical, dense; 0: not retrieved) where :attr:`fusion` is ``"rrf"``, else
        :meth:`fuse_exact` of its scores. ``dense_weight``: the request's (scaled down for
        scripts the encoder cannot read)."""
        if self.fusion == "rrf":
            return reciprocal_rank_fusion(
                list(ranks), k=self.rrf_k, weights=[self.lexical_weight, dense_weight]
            )
        return self.fuse_exact(lexical, dense, dense_weight=dense_weight)

    def fuse_exact(
        self, lexical: np.ndarray, dense: np.ndarray, *, dense_weight: float
    ) -> np.ndarray:
        """Weighted fusion of candidates that each have both scores (full BM25, exact dense
        similarity), so "not in the other retriever's top list" is never read as a zero."""
        everywhere = np.ones(len(lexical), dtype=np.int64)
        return weighted_fusion(
            [lexical, np.maximum(dense, 0.0)],
            [everywhere, everywhere],
            weights=[self.lexical_weight, dense_weight],
            normalize=[self.lexical_normalize, self.dense_normalize],
            floors=[0.0, self.dense_norm_floor],
        )
