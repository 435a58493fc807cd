"""Which encoder: the shipped default, or the one a saved index's identity names.

Above the encoders themselves (:mod:`.dense`, :mod:`.onnx`, :mod:`.crosslingual`), so none of
them imports another to choose; onnxruntime and torch still load only where an encoder is
first used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemarouter.errors import ArgumentError
from schemarouter.index.encoders.crosslingual import shipped_crosslingual, with_folder_bridge
from schemarouter.index.encoders.dense import Encoder, HashingEncoder, MiniLMEncoder
from schemarouter.index.encoders.onnx import OnnxEncoder, OnnxMiniLMEncoder, default_minilm_encoder

__all__ = ["default_encoder", "encoder_from_identity", "encoder_of"]


def default_encoder() -> Encoder:
    """The tool-retrieval encoder shipped in ``schemarouter.models/encoder`` (int8 ONNX, run by
    onnxruntime), else the packaged MiniLM (int8 ONNX when onnxruntime is there, else
    sentence-transformers)."""
    shipped = OnnxEncoder.shipped()
    if shipped is None:
        return default_minilm_encoder()
    return shipped_crosslingual(shipped)


def encoder_of(value: Any) -> Encoder | None:
    """The encoder ``SchemaRouter(encoder=...)`` takes: ``None`` (the default encoder), the
    folder ``schemarouter train-encoder`` wrote (a str or Path: an :class:`OnnxEncoder` of it,
    its files and card checked now), or an encoder object (``identity``, ``dim`` and
    ``encode(texts)``); anything else an :class:`~schemarouter.errors.ArgumentError` now,
    not an ``AttributeError`` at the first request."""
    if value is None:
        return None
    if isinstance(value, str | Path):  # with the bridge fitted into the folder, if any
        return with_folder_bridge(OnnxEncoder(value))
    if not all(hasattr(value, name) for name in ("identity", "dim")) or not callable(
        getattr(value, "encode", None)
    ):
        raise ArgumentError(
            "encoder must be an encoder (identity, dim and encode(texts)), the folder of a "
            f"trained encoder or None, not {type(value).__name__}",
            where="SchemaRouter(encoder=...)",
            hint="Pass encoder=FOLDER (what `schemarouter train-encoder` wrote) or "
            "encoder=OnnxEncoder(FOLDER)",
        )
    encoder: Encoder = value
    return encoder


def encoder_from_identity(identity: str) -> Encoder:
    """The encoder that an index built with ``identity`` needs (for ``HybridIndex.load``)."""
    if identity.startswith("hashing-v1:dim="):
        return HashingEncoder(int(identity.split("=", 1)[1]))
    if identity.startswith("minilm-l6-v2:") and ":st:seq=" in identity:
        return MiniLMEncoder(max_seq_length=int(identity.rsplit("=", 1)[1]))
    if identity.startswith("minilm-l6-v2:") and ":onnx-int8-v2:" in identity:
        return OnnxMiniLMEncoder.from_identity(identity)
    shipped = OnnxEncoder.shipped()
    if shipped is not None and shipped.identity == identity:
        return shipped_crosslingual(shipped)
    raise ValueError(f"no known encoder has identity {identity!r}; pass encoder= explicitly")
