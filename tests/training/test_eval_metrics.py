"""Evaluation metrics on toy cases computed by hand."""

from __future__ import annotations

import math

import pytest

from schemarouter.training import metrics as M


def test_recall_counts_needs_met_in_the_top_k() -> None:
    needs = [{"a"}, {"c"}, {"d"}]
    assert M.recall_at(["a", "b", "c"], needs, 1) == pytest.approx(1 / 3)
    assert M.recall_at(["a", "b", "c"], needs, 2) == pytest.approx(1 / 3)
    assert M.recall_at(["a", "b", "c"], needs, 3) == pytest.approx(2 / 3)


def test_recall_with_alternative_routes_needs_any_one() -> None:
    needs = [frozenset({"x", "y", "z"})]
    assert M.recall_at(["q", "y"], needs, 1) == 0.0
    assert M.recall_at(["q", "y"], needs, 2) == 1.0


def test_metrics_without_gold_are_not_applicable() -> None:
    assert math.isnan(M.recall_at(["a"], [], 5))
    assert math.isnan(M.complete_at(["a"], [], 5))
    assert math.isnan(M.ndcg_at(["a"], set(), 5))
    assert math.isnan(M.reciprocal_rank(["a"], set()))


def test_complete_needs_every_need_in_the_top_k() -> None:
    needs = [{"a"}, {"b"}]
    assert M.complete_at(["a", "c", "b"], needs, 2) == 0.0
    assert M.complete_at(["a", "c", "b"], needs, 3) == 1.0


def test_ndcg_by_hand() -> None:
    # DCG = 1/log2(2) + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3)
    expected = 1.5 / (1 + 1 / math.log2(3))
    assert M.ndcg_at(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx(expected)
    assert M.ndcg_at(["a", "b"], {"a", "b"}, 5) == pytest.approx(1.0)
    assert M.ndcg_at(["x", "y"], {"a"}, 2) == 0.0
    # only k positions can be ideal: one relevant of three at rank 1, k = 1
    assert M.ndcg_at(["a"], {"a", "b", "c"}, 1) == pytest.approx(1.0)


def test_a_route_listed_twice_counts_once() -> None:
    """Trial N: ndcg_at(["a", "a", "b"], {"a"}, 5) was 1.631 (each copy gained), above the
    1.0 of a perfect ranking; recall and completeness already read the top k as a set."""
    assert M.ndcg_at(["a", "a", "b"], {"a"}, 5) == pytest.approx(1.0)
    # the copy gains nothing and pushes "b" to rank 3: DCG 1 + 1/2, ideal 1 + 1/log2(3)
    assert M.ndcg_at(["a", "a", "b"], {"a", "b"}, 5) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert M.recall_at(["a", "a"], [{"a"}, {"b"}], 5) == 0.5
    assert M.reciprocal_rank(["x", "a", "a"], {"a"}) == 0.5


def test_k_beyond_the_ranking_and_an_empty_ranking() -> None:
    # fewer routes than k: the missing ranks gain nothing, the ideal still has min(|gold|, k)
    assert M.recall_at(["a"], [{"a"}, {"b"}], 50) == 0.5
    assert M.ndcg_at(["a"], {"a", "b"}, 50) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    # an abstained request (no candidates) scores 0 everywhere, it is not left out
    assert M.recall_at([], [{"a"}], 5) == 0.0
    assert M.complete_at([], [{"a"}], 5) == 0.0
    assert M.ndcg_at([], {"a"}, 5) == 0.0
    assert M.reciprocal_rank([], {"a"}) == 0.0


@pytest.mark.parametrize("k", [0, -1, True, 2.5])
def test_a_cut_off_below_one_is_refused(k: object) -> None:
    """Trial N: k=0 made ndcg_at divide by zero, and k=-1 cut the last route off
    (recall_at(["a", "b"], [{"b"}], -1) was 0.0)."""
    for metric in (M.recall_at, M.complete_at):
        with pytest.raises(ValueError, match="at least 1"):
            metric(["a", "b"], [{"b"}], k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        M.ndcg_at(["a", "b"], {"b"}, k)  # type: ignore[arg-type]


def test_reciprocal_rank() -> None:
    assert M.reciprocal_rank(["x", "y", "a"], {"a", "b"}) == pytest.approx(1 / 3)
    assert M.reciprocal_rank(["x"], {"a"}) == 0.0


SEMANTIC = {"bg1": "band_gap", "bg2": "band_gap", "formula": "formula", "id": "id"}


def semantic(route: str, name: str) -> str:
    return SEMANTIC.get(name, name)


def test_field_scores_group_variants_by_semantic_id() -> None:
    selected = {"r1": ["bg1", "bg2", "formula"]}
    gold = {"r1": ["bg1", "bg2"]}
    # keys: chosen {band_gap, formula}, target {band_gap}
    assert M.field_prf(selected, gold, key=semantic) == pytest.approx((0.5, 1.0, 2 / 3))
    # by name: chosen 3, target 2, hit 2
    assert M.field_prf(selected, gold) == pytest.approx((2 / 3, 1.0, 0.8))


def test_field_scores_against_the_best_served_alternative() -> None:
    gold = {"r1": ["a"], "r2": ["g"]}
    assert M.field_prf({"r2": ["g", "h"]}, gold, alternatives=True) == pytest.approx(
        (0.5, 1.0, 2 / 3)
    )
    # no gold route selected: judged against the first gold route, nothing right
    assert M.field_prf({"r9": ["a"]}, gold, alternatives=True) == (0.0, 0.0, 0.0)
    # an empty selection has precision 0
    assert M.field_prf({}, gold, alternatives=True) == (0.0, 0.0, 0.0)


def test_field_scores_when_every_route_is_needed() -> None:
    gold = {"r1": ["a"], "r2": ["b"]}
    assert M.field_prf({"r1": ["a"]}, gold) == pytest.approx((1.0, 0.5, 2 / 3))


def test_over_fetch_counts_each_fetched_field() -> None:
    fetched = {"r1": ["bg1", "bg2", "formula", "id"]}
    assert M.over_fetch_ratio(fetched, {"r1": ["bg1"]}, key=semantic) == pytest.approx(0.5)
    assert M.over_fetch_ratio(fetched, {"r1": ["bg1"]}) == pytest.approx(0.75)
    assert math.isnan(M.over_fetch_ratio({}, {"r1": ["bg1"]}))


def test_arguments_are_valid_only_when_declared_and_well_typed() -> None:
    params = {"formula": {"type": "string"}, "n": {"type": "integer", "minimum": 1}}
    assert M.arguments_valid({"formula": "Si"}, params)
    assert M.arguments_valid({}, params)
    assert not M.arguments_valid({"n": "x"}, params)
    assert not M.arguments_valid({"n": 0}, params)
    assert not M.arguments_valid({"element": "Si"}, params)


def test_metadata_completeness() -> None:
    fields = [
        {"numeric": True, "unit": "eV", "source_type": "calculated", "license": "CC-BY-4.0"},
        {"numeric": True, "unit": None, "source_type": "unknown", "license": None},
        {"numeric": False, "unit": None, "source_type": "experimental", "license": "MIT"},
    ]
    shares = M.metadata_completeness(fields)
    assert shares == pytest.approx({"unit": 0.5, "provenance": 2 / 3, "license": 2 / 3})
    assert all(math.isnan(v) for v in M.metadata_completeness([]).values())


def test_mean_skips_not_applicable_values() -> None:
    assert M.mean([1.0, math.nan, 0.0]) == 0.5
    assert math.isnan(M.mean([math.nan]))


def test_bootstrap_interval_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 1.0] * 50
    lo, hi = M.bootstrap_ci(values, resamples=500, seed=3)
    assert (lo, hi) == M.bootstrap_ci(values, resamples=500, seed=3)
    assert lo < 0.5 < hi
    assert hi - lo < 0.3
    assert M.bootstrap_ci([0.7] * 10) == pytest.approx((0.7, 0.7))
    assert all(math.isnan(v) for v in M.bootstrap_ci([]))


def test_percentiles_and_categories() -> None:
    assert M.percentiles(range(1, 101)) == pytest.approx({"p50": 50.5, "p95": 95.05})
    rows = [
        {"category": "b", "r": 1.0},
        {"category": "a", "r": 0.0},
        {"category": "a", "r": 1.0},
        {"category": "", "r": 1.0},
    ]
    assert M.by_category(rows, "r") == {"a": 0.5, "b": 1.0}


def test_rerank_ceiling_and_learned_blend_over_stored_runs() -> None:
    from schemarouter.training.reranker_eval import Record, ceiling, combine, summarize

    def record(gold: str, rerank: list[float]) -> Record:
        fused = ["a", "b", "c", "d", "e", "f", "g"]
        return Record(
            suite="s", id=gold, split="test", text="q", needs=[[gold]], gold=[gold],
            fused=fused, fused_scores=[7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], rerank=rerank,
        )  # fmt: skip

    # gold at fused rank 7: no reordering of the top 6 reaches it, the top 7 can
    deep = record("g", [0.0] * 7)
    assert ceiling(deep, n=6) == deep.fused and ceiling(deep, n=7)[0] == "g"
    shallow = record("f", [0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0])
    assert summarize([deep, shallow], n=None)["r@5"] == 0.0
    assert summarize([deep, shallow], n=6, oracle=True)["r@5"] == 0.5
    assert summarize([deep, shallow], n=7, oracle=True)["r@5"] == 1.0
    # a 3-logit lead lifts "f" past fusion's spread (z of ranks 1..6 spans 2.9) at a=1
    assert combine(shallow, n=6, weight=1.0, coefficient=1.0)[0] == "f"
    assert combine(shallow, n=6, weight=1.0, coefficient=10.0)[:6] == shallow.fused[:6]
    assert summarize([shallow], n=6, weight=1.0, coefficient=1.0)["r@1"] == 1.0
