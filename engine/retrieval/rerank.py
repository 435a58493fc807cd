"""The cross-encoder reranker at query time: onnxruntime and ``tokenizers``, nothing else.

A :class:`Reranker` is a folder with three plain files, written by
``schemarouter train-reranker`` (:mod:`schemarouter.training.train`)::

    model.onnx       int8 cross-encoder: (input_ids, attention_mask, token_type_ids) -> logits
    tokenizer.json   its WordPiece tokenizer
    card.json        base model, training data with hashes, settings, metrics, versions

It scores ``(query, route text)`` pairs; higher is better. :func:`route_text` writes a route
the way the model was trained to read it (training imports it from here, so the two never
drift), and :func:`encode_pairs` is the one place pairs become token ids, for training and
inference alike. No torch is imported on this path.

The shipped model lives in ``schemarouter.models/reranker`` and ``SchemaRouter()`` uses it
by default; :meth:`Reranker.shipped` returns ``None`` when it is absent, so the router can
run in fusion order and say that reranking is off.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schemarouter.contracts import TRANSPORT_LOCATIONS
from schemarouter.errors import ModelError, require
from schemarouter.safety.forksafe import ForkSafeLock, forget_in_child
from schemarouter.shipped import (
    card_identity,
    model_card,
    model_setting,
    off_by_default,
    onnx_session,
    shipped_folder,
    shipped_model,
)

if TYPE_CHECKING:
    from schemarouter.contracts import OutputField, Route

__all__ = [
    "DEFAULT_FUSION_WEIGHT",
    "DEFAULT_MAX_LENGTH",
    "DEFAULT_QUERY_TOKENS",
    "DEFAULT_TOKEN_BUDGET",
    "MODEL_FILES",
    "ROUTE_TEXT_CHARS",
    "ROUTE_TEXT_VERSION",
    "RankedText",
    "Reranker",
    "blend_order",
    "encode_pairs",
    "load_tokenizer",
    "reranker_of",
    "route_text",
]

logger = logging.getLogger(__name__)

#: The files of a model folder.
MODEL_FILES = ("model.onnx", "tokenizer.json", "card.json")
#: What to do where the folder lacks a file, and where its card cannot be read.
_TRAIN_HINT = "Train one with `schemarouter train-reranker --out FOLDER`"
_RETRAIN_HINT = "Re-export the model with `schemarouter train-reranker`"
#: Word pieces of one pair, special tokens included (a card may set its own).
DEFAULT_MAX_LENGTH = 96
#: Word pieces kept of the query; the route text gets the rest.
DEFAULT_QUERY_TOKENS = 32
#: Characters of route text (about one word piece per four characters).
ROUTE_TEXT_CHARS = 320
#: Bumped whenever :func:`route_text` writes routes differently (a card records it).
ROUTE_TEXT_VERSION = 1
#: Word pieces scored per query at most (pairs x longest pair): 20 pairs of ~100 pieces
#: for short queries, 16 of 128 for long ones; about 29 ms on 2 cores (docs/reranker.md).
DEFAULT_TOKEN_BUDGET = 2048
#: Weight of the fused score against the reranker's in :func:`blend_order` (z-scores).
DEFAULT_FUSION_WEIGHT = 1.0
#: Pairs per onnxruntime call.
DEFAULT_BATCH = 32
_CACHE_LIMIT = 8192
_SHIPPED = "reranker"


# -- route text --------------------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    from schemarouter.index.documents import clean_text

    return clean_text(text, limit)


def _field_words(item: OutputField) -> str:
    extra = []
    if item.semantic_id:
        extra.append(item.semantic_id.rsplit(".", 1)[-1].replace("_", " "))
    extra.extend(a for a in item.aliases[:3] if a.lower() != item.name.lower())
    words = item.name
    if extra:
        words += f" ({'; '.join(dict.fromkeys(extra))})"
    if item.unit:
        words += f" [{item.unit}]"
    return words


def route_text(
    route: Route, *, fields: Sequence[str] = (), max_chars: int = ROUTE_TEXT_CHARS
) -> str:
    """One route as the reranker reads it: ``provider: endpoint. about. Inputs: .. Returns: ..``.

    ``fields`` (e.g. the index's field hits for the query) are written first, with semantic
    id, aliases and unit; the other output fields follow by name while the budget lasts.
    The same function writes every training pair.
    """
    provider = route.provider
    endpoint = route.endpoint
    head = endpoint.name
    if provider.display_name and provider.display_name.lower() != endpoint.name.lower():
        head = f"{provider.display_name}: {endpoint.name}"
    about = (endpoint.summary or "").strip().rstrip(".")
    description = (endpoint.description or "").strip()
    if description and description.rstrip(".") not in about:
        about = f"{about}. {description}" if about else description
    text = _clip(head, 120).rstrip(".")
    about = _clip(about, max(40, max_chars // 2)).rstrip(".")
    if about:
        text += f". {about}"
    inputs = [p.name for p in endpoint.parameters if p.location not in TRANSPORT_LOCATIONS]
    if inputs:
        text += ". Inputs: " + ", ".join(inputs[:8])
    by_name = {f.name: f for f in endpoint.output_fields}
    first = [by_name[n] for n in dict.fromkeys(fields) if n in by_name]
    named = {f.name for f in first}
    parts = [_field_words(f) for f in first]
    parts += [f.name for f in endpoint.output_fields if f.name not in named]
    if parts:
        text += ". Returns: "
        kept: list[str] = []
        room = max_chars - len(text)
        for part in parts:
            if kept and room - len(part) - 2 < 0:
                break
            kept.append(part)
            room -= len(part) + 2
        text += ", ".join(kept)
    return _clip(text, max_chars)


# -- pairs -> token ids ------------------------------------------------------------------------


def load_tokenizer(path: str | Path) -> Any:
    """A ``tokenizers.Tokenizer`` from ``tokenizer.json``, with padding and truncation off
    (:func:`encode_pairs` cuts and pads itself)."""
    tokenizers = require("tokenizers", purpose="the cross-encoder reranker")
    tokenizer = tokenizers.Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def encode_pairs(
    tokenizer: Any,
    query: str,
    texts: Sequence[str],
    *,
    max_length: int = DEFAULT_MAX_LENGTH,
    query_tokens: int = DEFAULT_QUERY_TOKENS,
    cache: dict[str, list[int]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(input_ids, attention_mask, token_type_ids)`` of ``[CLS] query [SEP] text [SEP]``.

    The query keeps its first ``query_tokens`` word pieces, each text what is left of
    ``max_length``; rows are right-padded with 0 to the longest. ``tokenizer`` is a
    ``tokenizers.Tokenizer``; ``cache`` (text -> ids) saves re-tokenizing route texts.
    """
    cls_id = tokenizer.token_to_id("[CLS]")
    sep_id = tokenizer.token_to_id("[SEP]")
    q = tokenizer.encode(query, add_special_tokens=False).ids[:query_tokens]
    room = max(max_length - len(q) - 3, 1)
    missing = [t for t in dict.fromkeys(texts) if cache is None or t not in cache]
    encoded = dict(
        zip(
            missing,
            (e.ids for e in tokenizer.encode_batch(missing, add_special_tokens=False)),
            strict=True,
        )
        if missing
        else ()
    )
    if cache is not None:
        if len(cache) + len(encoded) > _CACHE_LIMIT:
            cache.clear()
        cache.update(encoded)
        encoded = {t: cache[t] for t in texts}
    rows = [[cls_id, *q, sep_id, *encoded[t][:room], sep_id] for t in texts]
    width = max((len(r) for r in rows), default=0)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
        types[i, len(q) + 2 : len(row)] = 1
    return ids, mask, types


# -- combining with fusion ---------------------------------------------------------------------


def _z(values: np.ndarray) -> np.ndarray:
    std = float(values.std())
    return (values - values.mean()) / std if std > 1e-9 else np.zeros_like(values)


def blend_order(
    rerank_scores: Sequence[float] | np.ndarray,
    fused_scores: Sequence[float] | np.ndarray,
    *,
    weight: float = DEFAULT_FUSION_WEIGHT,
    coefficient: float | None = None,
) -> np.ndarray:
    """Positions of the candidates, best first, by ``z(rerank) + weight * z(fused)``.

    z-scores are taken over the candidates given (the fused top N), so neither score's
    scale matters; ties keep the fused order. ``weight=0`` is the reranker alone.

    ``coefficient``: the model was trained on the blend itself (its card's
    ``blend.fusion_coefficient``, ``a``): the order is then ``logit + weight * a * z(fused)``,
    the logit left on the scale it learned against fusion (``weight=1`` is the blend as
    trained).
    """
    rr = np.asarray(rerank_scores, dtype=np.float64)
    fused = np.asarray(fused_scores, dtype=np.float64)
    if rr.shape != fused.shape:
        raise ValueError("rerank and fused scores differ in length")
    fused = np.where(np.isfinite(fused), fused, np.nan)
    fused = np.nan_to_num(fused, nan=np.nanmin(fused) if np.isfinite(fused).any() else 0.0)
    if coefficient is None:
        combined = _z(rr) + weight * _z(fused)
    else:
        combined = rr + weight * coefficient * _z(fused)
    return np.lexsort((np.arange(combined.size), -combined))


# -- the model ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankedText:
    """One reranked text: its position in the input, optional id, text and score."""

    index: int
    text: str
    score: float
    id: str | None = None


def _check_score_output(session: Any, model: Path | Any) -> None:
    """Raise :class:`~schemarouter.errors.ModelError` where the model's first output is not
    one score per pair (an encoder's graph gives a 384-wide ``embedding``)."""
    output = session.get_outputs()[0]
    shape = list(output.shape)
    wide = len(shape) > 2 or (len(shape) == 2 and isinstance(shape[1], int) and shape[1] != 1)
    if output.name == "embedding" or wide:
        raise ModelError(
            f"the model's output {output.name!r} (shape {shape}) is not one score per pair: it "
            "is not a cross-encoder",
            where=str(model),
            hint="An encoder's model (output 'embedding') goes to SchemaRouter(encoder=FOLDER); "
            "a reranker folder is what `schemarouter train-reranker` writes",
        )


def _forget_session(reranker: Reranker) -> object:
    """In a forked child: the reranker opens its session afresh (another thread of the
    parent may have been inside it at the fork, holding its locks); the old one is returned."""
    session, reranker._session = reranker._session, None
    return session


class Reranker:
    """A cross-encoder in a model folder (see the module docstring), run by onnxruntime."""

    def __init__(
        self,
        path: str | Path | Any,
        *,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self.path = path if not isinstance(path, str) else Path(path)
        self.card = model_card(
            self.path,
            MODEL_FILES,
            what="reranker",
            train=_TRAIN_HINT,
            retrain=_RETRAIN_HINT,
            kind="schemarouter-reranker",
        )
        text = self.card.get("route_text")
        version = text.get("version") if isinstance(text, dict) else None
        if version is not None and version != ROUTE_TEXT_VERSION:
            raise ModelError(
                f"the reranker was trained on route text of version {str(version)[:20]}; this "
                f"version of SchemaRouter writes version {ROUTE_TEXT_VERSION} (route_text), "
                "so it would score routes written unlike any it learned",
                where=str(self.path / "card.json"),
                hint="Retrain it with this version: `schemarouter train-reranker`",
            )
        try:
            settings = self.card.get("settings", {})
            self.max_length = int(settings.get("max_length", DEFAULT_MAX_LENGTH))
            self.query_tokens = int(settings.get("query_tokens", DEFAULT_QUERY_TOKENS))
            self.route_chars = int(settings.get("route_chars", ROUTE_TEXT_CHARS))
            blend = self.card.get("blend") or {}
            #: ``a`` of ``logit + a * z(fused)`` for a model trained on that blend, else None
            self.fusion_coefficient: float | None = (
                float(blend["fusion_coefficient"]) if "fusion_coefficient" in blend else None
            )
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise ModelError(
                f"unreadable reranker card: {exc}", where=str(self.path), hint=_RETRAIN_HINT
            ) from None
        self.threads = threads or min(2, os.cpu_count() or 1)
        self.batch_size = batch_size
        self._session: Any = None
        self._tokenizer: Any = None
        forget_in_child(self, _forget_session)
        self._cache: dict[str, list[int]] = {}
        self._lock = ForkSafeLock()
        self._cache_lock = ForkSafeLock()

    @classmethod
    def shipped(cls, **kwargs: Any) -> Reranker | None:
        """The model shipped in ``schemarouter.models/reranker``, or ``None`` if there is none.

        Without arguments every caller shares one instance (one onnxruntime session per
        process, loaded on the first :meth:`score`); scoring is thread-safe.
        """
        if kwargs:
            folder = shipped_folder(_SHIPPED, MODEL_FILES)
            return None if folder is None else cls(folder, **kwargs)
        return shipped_model(_SHIPPED, MODEL_FILES, cls)

    @property
    def off_by_default(self) -> str:
        """Why the router leaves this model off unless asked (``""``: it is on), from the
        card's ``router_default`` (e.g. it did not beat fusion on every out-of-domain suite;
        a card that does not say: on)."""
        return off_by_default(self.card, on=True)

    @property
    def identity(self) -> str:
        return card_identity(self.card, "reranker")

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                tokenizer = load_tokenizer(self.path.joinpath("tokenizer.json"))
                model = self.path.joinpath("model.onnx")
                session = onnx_session(
                    model,
                    self.threads,
                    what="reranker",
                    purpose="the cross-encoder reranker",
                    command="schemarouter train-reranker",
                    in_memory=True,
                    sha256=str(self.card.get("model_sha256", "")),
                )
                _check_score_output(session, model)
                self._tokenizer, self._session = tokenizer, session
            return self._session, self._tokenizer

    def route_text(self, route: Route, *, fields: Sequence[str] = ()) -> str:
        """:func:`route_text` with this model's character budget."""
        return route_text(route, fields=fields, max_chars=self.route_chars)

    def encode(self, query: str, texts: Sequence[str]) -> tuple[np.ndarray, ...]:
        """The model's inputs for ``query`` against each of ``texts``."""
        _, tokenizer = self._load()
        with self._cache_lock:  # the token cache is shared by every thread scoring
            return encode_pairs(
                tokenizer,
                query,
                texts,
                max_length=self.max_length,
                query_tokens=self.query_tokens,
                cache=self._cache,
            )

    def fit(self, query: str, texts: Sequence[str], max_tokens: int) -> int:
        """How many of ``texts`` (a prefix, at least two) fit in ``max_tokens`` word pieces.

        A batch costs about (pairs) x (its longest pair) word pieces: cost grows linearly
        with both, so a token budget bounds the reranker's latency whatever the query's
        length (long queries leave fewer pairs room).
        """
        _, mask, _ = self.encode(query, texts)
        return _fitting(mask, max_tokens)

    def score(
        self, query: str, texts: Sequence[str], *, max_tokens: int | None = None
    ) -> np.ndarray:
        """One float32 score (a logit: higher is more relevant) per text, in input order.

        With ``max_tokens``, only the prefix of ``texts`` that fits the budget is scored
        (:meth:`fit`): the result is that much shorter. Pairs are encoded once.
        """
        if not texts:
            return np.zeros(0, dtype=np.float32)
        session, _ = self._load()
        ids, mask, types = self.encode(query, texts)
        keep = len(texts) if max_tokens is None else _fitting(mask, max_tokens)
        out = np.zeros(keep, dtype=np.float32)
        for start in range(0, keep, self.batch_size):
            rows = slice(start, min(start + self.batch_size, keep))
            width = int(mask[rows].sum(axis=1).max())  # no padding past this batch's longest
            feeds = {
                "input_ids": ids[rows, :width],
                "attention_mask": mask[rows, :width],
                "token_type_ids": types[rows, :width],
            }
            logits = session.run(None, feeds)[0]
            out[rows] = np.asarray(logits, dtype=np.float32).reshape(-1)
        return out

    def rank(
        self,
        query: str,
        texts: Sequence[str],
        *,
        ids: Sequence[str] | None = None,
        top_k: int | None = None,
    ) -> list[RankedText]:
        """``texts`` best first (ties keep the input order), cut to ``top_k``."""
        if ids is not None and len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        scores = self.score(query, texts)
        order = np.lexsort((np.arange(len(texts)), -scores))
        ranked = [
            RankedText(int(i), texts[i], float(scores[i]), None if ids is None else ids[i])
            for i in order
        ]
        return ranked[:top_k] if top_k is not None else ranked

    def __repr__(self) -> str:
        return f"Reranker({self.identity!r}, path={str(self.path)!r})"


def _fitting(mask: np.ndarray, max_tokens: int) -> int:
    """Rows of a padded batch (a prefix, at least two) whose rows x longest row fit."""
    rows = int(mask.shape[0])
    if rows <= 2:
        return rows
    widest = np.maximum.accumulate(mask.sum(axis=1))
    cost = widest * np.arange(1, rows + 1)
    return max(2, int(np.searchsorted(cost, max_tokens, side="right")))


def reranker_of(value: Any) -> Reranker | Any | None:
    """The cross-encoder ``SchemaRouter(reranker=...)`` and ``router.reranker`` take
    (:func:`~schemarouter.shipped.model_setting`)."""
    return model_setting(value, Reranker, "reranker", "score")
