"""The reranker's training batches: a train/validation split by query, each group's
candidates (the positive and drawn negatives), padded tensors, and the listwise loss.

Used by :mod:`.train` (``schemarouter train-reranker``).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from schemarouter.retrieval.rerank import encode_pairs
from schemarouter.training.pairs import PairGroup

__all__ = ["draw_candidates", "groups_digest", "listwise_loss", "make_batch", "split_groups"]


def split_groups(
    groups: Sequence[PairGroup], share: float
) -> tuple[list[PairGroup], list[PairGroup]]:
    """(train, validation) by a hash of the query: a query's groups stay together."""
    train: list[PairGroup] = []
    val: list[PairGroup] = []
    for g in groups:
        digest = int(hashlib.sha256(g.query.encode("utf-8")).hexdigest()[:8], 16)
        (val if digest % 10_000 < share * 10_000 else train).append(g)
    return train, val


def groups_digest(groups: Sequence[PairGroup]) -> str:
    """The sha256 of ``groups`` (queries, texts, labels, fused scores, in order): a
    checkpoint is resumed only by a run on the same groups."""
    rows = json.dumps([asdict(g) for g in groups], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(rows.encode("utf-8")).hexdigest()


def draw_candidates(group: PairGroup, n: int, rng: random.Random) -> list[tuple[str, float]]:
    """The positive and up to ``n`` negatives, each with its fused z-score (0 if unknown)."""
    fused = group.fused if len(group.fused) == 1 + len(group.negatives) else []
    negatives = list(zip(group.negatives, fused[1:] or [0.0] * len(group.negatives), strict=True))
    if len(negatives) > n:
        # keep the hardest half (fusion's top), draw the rest
        head = negatives[: n // 2]
        negatives = head + rng.sample(negatives[n // 2 :], n - len(head))
    return [(group.positive, fused[0] if fused else 0.0), *negatives]


def make_batch(
    tokenizer: Any,
    groups: Sequence[PairGroup],
    rng: random.Random,
    *,
    negatives: int,
    max_length: int,
    query_tokens: int,
) -> tuple[Any, Any, Any, Any, Any]:
    """Token ids, attention masks and token types of each group's candidates (flat, the
    padding rows left out), which candidates are real (groups x ``negatives + 1``) and
    their fused z-scores."""
    import torch

    width = negatives + 1
    rows, valid = [], np.zeros((len(groups), width), dtype=bool)
    fused = np.zeros((len(groups), width), dtype=np.float32)
    for i, g in enumerate(groups):
        chosen = draw_candidates(g, negatives, rng)
        valid[i, : len(chosen)] = True
        fused[i, : len(chosen)] = [z for _, z in chosen]
        rows.append(
            encode_pairs(
                tokenizer,
                g.query,
                [t for t, _ in chosen],
                max_length=max_length,
                query_tokens=query_tokens,
            )
        )
    length = max(r[0].shape[1] for r in rows)
    ids = np.zeros((len(groups), width, length), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for i, (a, m, t) in enumerate(rows):
        ids[i, : a.shape[0], : a.shape[1]] = a
        mask[i, : a.shape[0], : a.shape[1]] = m
        types[i, : a.shape[0], : a.shape[1]] = t
    flat = valid.reshape(-1)
    return (
        torch.from_numpy(ids.reshape(-1, length)[flat]),
        torch.from_numpy(mask.reshape(-1, length)[flat]),
        torch.from_numpy(types.reshape(-1, length)[flat]),
        torch.from_numpy(valid),
        torch.from_numpy(fused),
    )


def listwise_loss(logits: Any, valid: Any, pointwise_weight: float, offset: Any = None) -> Any:
    """Listwise softmax over each group (the positive first) plus a pointwise term;
    ``offset`` (groups x width) is added to the logits first (the fusion part of a blend)."""
    import torch

    if offset is not None:
        logits = logits.reshape(-1) + offset[valid]
    scores = torch.full(valid.shape, -1e4, dtype=logits.dtype)
    scores[valid] = logits.reshape(-1)
    target = torch.zeros(valid.shape[0], dtype=torch.long)  # the positive comes first
    listwise = torch.nn.functional.cross_entropy(scores, target)
    if pointwise_weight <= 0:
        return listwise
    labels = torch.zeros(valid.shape, dtype=logits.dtype)
    labels[:, 0] = 1.0
    pointwise = torch.nn.functional.binary_cross_entropy_with_logits(
        logits.reshape(-1), labels[valid]
    )
    return listwise + pointwise_weight * pointwise
