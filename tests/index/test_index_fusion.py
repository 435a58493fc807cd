"""Fusion and top-k: pure functions over arrays."""

from __future__ import annotations

import numpy as np
import pytest

from schemarouter.index import fusion
from schemarouter.index.fusion import (
    fused_order,
    ranks_from_scores,
    reciprocal_rank_fusion,
    top_k,
    weighted_fusion,
)


def test_rrf_sums_reciprocal_ranks_of_the_retrievers_that_ranked_an_item() -> None:
    lexical = np.array([1, 2, 0])
    dense = np.array([2, 0, 1])
    fused = reciprocal_rank_fusion([lexical, dense], k=60)
    np.testing.assert_allclose(fused, [1 / 61 + 1 / 62, 1 / 62, 1 / 61])
    weighted = reciprocal_rank_fusion([lexical, dense], k=10, weights=[2.0, 0.5])
    np.testing.assert_allclose(weighted, [2 / 11 + 0.5 / 12, 2 / 12, 0.5 / 11])


def test_rrf_checks_its_arguments() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([])
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([np.array([1])], weights=[1.0, 2.0])


def test_weighted_fusion_normalizes_each_retriever() -> None:
    lexical = np.array([10.0, 5.0, 0.0])
    dense = np.array([0.2, 0.8, 0.4])
    present = np.array([1, 1, 0])
    everywhere = np.array([1, 1, 1])
    fused = weighted_fusion(
        [lexical, dense], [present, everywhere], weights=[0.5, 0.5], normalize="max"
    )
    np.testing.assert_allclose(fused, [0.5 + 0.125, 0.25 + 0.5, 0.25])
    minmax = weighted_fusion(
        [lexical, dense], [present, everywhere], weights=[1.0, 1.0], normalize="minmax"
    )
    np.testing.assert_allclose(minmax, [1.0 + 0.0, 0.0 + 1.0, 1 / 3])
    mixed = weighted_fusion(
        [lexical, dense],
        [present, everywhere],
        weights=[1.0, 1.0],
        normalize=["max", "none"],
        floors=[0.0, 0.0],
    )
    np.testing.assert_allclose(mixed, [1.2, 1.3, 0.4])
    floored = weighted_fusion(
        [lexical, dense],
        [present, everywhere],
        weights=[0.0, 1.0],
        normalize="max",
        floors=[0.0, 1.6],
    )
    np.testing.assert_allclose(floored, [0.125, 0.5, 0.25])  # weak best match: not blown up
    with pytest.raises(ValueError):
        weighted_fusion([lexical], [present, present], weights=[1.0])
    with pytest.raises(ValueError):
        weighted_fusion([lexical], [present], weights=[1.0], normalize="log")


def test_top_k_orders_by_score_then_index() -> None:
    scores = np.array([0.5, 2.0, 0.5, 0.0, 3.0, 0.5])
    assert top_k(scores, 3).tolist() == [4, 1, 0]
    assert top_k(scores, 4).tolist() == [4, 1, 0, 2]
    assert top_k(scores, 10, positive=True).tolist() == [4, 1, 0, 2, 5]
    assert top_k(scores, 0).size == 0 and top_k(np.zeros(0), 3).size == 0


def test_fused_order_breaks_ties_by_the_best_retriever_rank_then_the_tie_key() -> None:
    fused = np.array([0.5, 0.9, 0.5, 0.5, 0.5])
    lex_rank = np.array([3, 1, 0, 2, 0])
    dense_rank = np.array([4, 2, 1, 0, 0])  # candidate 4: retrieved by neither
    ties = np.array([40, 10, 30, 20, 0])
    # 1 has the best score; among the 0.5s: best ranks 1 (2), 2 (3), 3 (0), none (4)
    assert fused_order(fused, (lex_rank, dense_rank), ties).tolist() == [1, 2, 3, 0, 4]
    # equal best ranks fall to the tie key, ascending
    same = np.array([2, 2, 2])
    order = fused_order(np.ones(3), (same, np.zeros(3, dtype=np.int64)), np.array([7, 3, 5]))
    assert order.tolist() == [1, 2, 0]


def test_ranks_from_scores() -> None:
    ranks = ranks_from_scores(np.array([0.1, 0.9, 0.5]), np.array([True, True, False]))
    assert ranks.tolist() == [2, 1, 0]


def test_constants_live_in_one_place() -> None:
    assert fusion.DEFAULT_FUSION in ("rrf", "weighted")
    assert pytest.approx(1.0) == fusion.DEFAULT_LEXICAL_WEIGHT + fusion.DEFAULT_DENSE_WEIGHT
    assert fusion.DEFAULT_RRF_K > 0 and fusion.DEFAULT_CANDIDATE_DEPTH >= 50
