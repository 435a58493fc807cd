"""Hybrid index: documents, BM25 + FAISS, fusion, persistence, batch rebuild.

Importing this package loads numpy and scipy only; torch, sentence-transformers, FAISS,
onnxruntime and pymilvus load where first used.
"""

from schemarouter.index.backend import RouteFilter, RouteIndex, SearchMode
from schemarouter.index.build import BuildReport, IndexFolder, build_index, index_registry
from schemarouter.index.cache import EmbeddingCache, EmbedStats
from schemarouter.index.documents import DocKind, Document, route_documents
from schemarouter.index.encoders.defaults import default_encoder
from schemarouter.index.encoders.dense import Encoder, HashingEncoder, MiniLMEncoder
from schemarouter.index.encoders.onnx import OnnxEncoder, OnnxMiniLMEncoder
from schemarouter.index.fusion import reciprocal_rank_fusion, weighted_fusion
from schemarouter.index.hybrid import HybridIndex
from schemarouter.index.lexical import BM25Params, LexicalIndex
from schemarouter.index.milvus.index import MilvusIndex
from schemarouter.index.settings import IndexSettings, RouteHit
from schemarouter.index.tokenize import TokenizerSettings, tokenize

__all__ = [
    "BM25Params",
    "BuildReport",
    "DocKind",
    "Document",
    "EmbedStats",
    "EmbeddingCache",
    "Encoder",
    "HashingEncoder",
    "HybridIndex",
    "IndexFolder",
    "IndexSettings",
    "LexicalIndex",
    "MilvusIndex",
    "MiniLMEncoder",
    "OnnxEncoder",
    "OnnxMiniLMEncoder",
    "RouteFilter",
    "RouteHit",
    "RouteIndex",
    "SearchMode",
    "TokenizerSettings",
    "build_index",
    "default_encoder",
    "index_registry",
    "reciprocal_rank_fusion",
    "route_documents",
    "tokenize",
    "weighted_fusion",
]
