"""The learned ranking stage: trees as plain arrays, scored by numpy exactly as scikit-learn
scores them; a damaged or foreign model is refused; the router re-orders only its window,
keeps the routes a request names ahead and drops nothing."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ModelError
from schemarouter.index import HashingEncoder
from schemarouter.retrieval.candidates import Ranked
from schemarouter.retrieval.learned import RankingModel, TreeEnsemble, blended_keys
from schemarouter.retrieval.ordering import reorder_within_tiers
from schemarouter.retrieval.window import FEATURES
from schemarouter.training.ranking import export_trees

from helpers import BUNDLED_CATALOG


def _fitted(seed: int = 0) -> tuple[object, np.ndarray]:
    """One small fitted model per seed and process (each fit took 8-23 s on the loaded 2-core
    machine; the tests read the model and never change it), and a copy of its rows."""
    model, X = _fit(seed)
    return model, X.copy()


@functools.cache
def _fit(seed: int) -> tuple[object, np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, len(FEATURES)))
    X[::17, 3] = np.nan  # missing values take the side the model learned
    y = (np.nan_to_num(X[:, 0]) + 0.5 * X[:, 8] - X[:, 19] > 0.2).astype(float)
    model = HistGradientBoostingClassifier(max_iter=40, max_leaf_nodes=7, random_state=0)
    return model.fit(X, y), X


def test_exported_trees_score_exactly_as_scikit_learn() -> None:
    model, X = _fitted()
    trees = export_trees(model)
    assert np.abs(trees.raw(X) - model.decision_function(X)).max() < 1e-9  # type: ignore[attr-defined]
    again = TreeEnsemble(trees.arrays(), baseline=trees.baseline, n_features=trees.n_features)
    assert np.array_equal(again.raw(X), trees.raw(X))
    with pytest.raises(ValueError, match="features"):
        trees.raw(X[:, :5])


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda a: a.update(left=a["left"] * 0 + 10**6), "outside"),
        (lambda a: a.update(left=a["left"] * 0), "before its parent"),
        (lambda a: a.update(feature=a["feature"] * 0 + 99), "feature"),
        (lambda a: a.update(value=np.where(a["leaf"], np.inf, a["value"])), "finite"),
        (lambda a: a.update(threshold=a["threshold"][:-1]), "lengths"),
        (lambda a: a.pop("roots"), "roots"),
    ],
)
def test_damaged_trees_are_refused_never_walked(damage: object, message: str) -> None:
    model, _ = _fitted()
    trees = export_trees(model)
    arrays = trees.arrays()
    damage(arrays)  # type: ignore[operator]
    with pytest.raises(ValueError, match=message):
        TreeEnsemble(arrays, baseline=trees.baseline, n_features=trees.n_features)


def _folder(
    tmp_path: Path,
    *,
    features: list[str] | None = None,
    on: bool = True,
    blend: object = None,
    settings: dict[str, object] | None = None,
) -> Path:
    model, _ = _fitted()
    trees = export_trees(model)
    folder = tmp_path / "ranking"
    folder.mkdir(parents=True)
    np.savez(folder / "trees.npz", **trees.arrays())
    card = {
        "name": "test-ranking",
        "features": features or list(FEATURES),
        "settings": {
            "window": 10,
            **({} if blend is None else {"blend": blend}),
            **(settings or {}),
        },
        "router_default": {"on": on, "why": "test"},
    }
    (folder / "card.json").write_text(json.dumps(card))
    return folder


def test_a_model_folder_loads_and_says_whether_it_is_on(tmp_path: Path) -> None:
    model = RankingModel(_folder(tmp_path))
    assert model.window == 10 and model.off_by_default == ""
    assert RankingModel(_folder(tmp_path / "x", on=False)).off_by_default == "test"
    rows = np.zeros((3, len(FEATURES)))
    assert model.score(rows).shape == (3,)


def test_a_model_of_other_features_or_damaged_files_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="other features"):
        RankingModel(_folder(tmp_path, features=["fused", "rank"]))
    broken = _folder(tmp_path / "b")
    (broken / "trees.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="unreadable ranking model"):
        RankingModel(broken)
    with pytest.raises(ModelError, match=r"lacks trees\.npz"):
        RankingModel(tmp_path / "nowhere")


def test_a_truncated_swapped_or_foreign_model_file_is_a_model_error(tmp_path: Path) -> None:
    """A truncated trees.npz raised BadZipFile, a card whose settings were a string an
    AttributeError, a file numpy would unpickle was refused with numpy's advice to load it
    unsafely, and trees swapped for another model's loaded under this card's identity
    (trial L, findings 3 and 8)."""
    import hashlib

    truncated = _folder(tmp_path / "t")
    data = (truncated / "trees.npz").read_bytes()
    (truncated / "trees.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="unreadable ranking model"):
        RankingModel(truncated)
    pickled = _folder(tmp_path / "p")
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (pickled / "trees.npz").write_bytes(buffer.getvalue())
    with pytest.raises(ModelError, match="unreadable ranking model") as refused:
        RankingModel(pickled)
    assert "allow_pickle" not in str(refused.value)
    for settings in ("window=10", None, [1]):
        folder = _folder(tmp_path / f"s{settings!s:.3}")
        card = json.loads((folder / "card.json").read_text())
        card["settings"] = settings
        (folder / "card.json").write_text(json.dumps(card))
        with pytest.raises(ModelError, match="settings"):
            RankingModel(folder)
    swapped = _folder(tmp_path / "w")
    card = json.loads((swapped / "card.json").read_text())
    card["model_sha256"] = hashlib.sha256(b"another model").hexdigest()
    (swapped / "card.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="sha256"):
        RankingModel(swapped)
    card["model_sha256"] = hashlib.sha256((swapped / "trees.npz").read_bytes()).hexdigest()
    (swapped / "card.json").write_text(json.dumps(card))
    assert RankingModel(swapped).window == 10


def test_ranking_and_reranker_take_a_model_a_folder_a_keyword_or_none(tmp_path: Path) -> None:
    """``ranking=True`` and ``router.ranking_model = FOLDER`` failed with an AttributeError
    at the first retrieve; ``ranking="none"`` was read as a folder (trial L, finding 2)."""
    from schemarouter.errors import ArgumentError

    folder = _folder(tmp_path)
    make = functools.partial(SchemaRouter, encoder=HashingEncoder(), embedding_cache=None)
    for wrong in (True, 5, 0.4, object()):
        with pytest.raises(ArgumentError, match="ranking must be a RankingModel"):
            make(ranking=wrong)
        with pytest.raises(ArgumentError, match="reranker must be a Reranker"):
            make(reranker=wrong)
    assert make(ranking="none").ranking_model is None
    assert make(ranking=" Shipped ").ranking_model is RankingModel.shipped()
    router = make(ranking=None)
    router.ranking_model = str(folder)
    assert isinstance(router.ranking_model, RankingModel) and router.ranking_model.window == 10
    router.add_catalog(BUNDLED_CATALOG)
    assert "ranking" in router.retrieve("band gap of GaN", k=3).candidates[0].scores
    router.reranker = "none"
    assert router.reranker is None
    with pytest.raises(ArgumentError):
        router.ranking_model = True


def test_the_blend_weighs_fusions_order_against_the_stages() -> None:
    stage = [0.1, 0.9, 0.2, 0.8, 0.5]  # the stage's order: 1, 3, 4, 2, 0
    assert blended_keys(stage, 1.0) == stage  # its order alone
    # fusion's order is the list's; a blend of 0.4 moves each route part of the way
    keys = blended_keys(stage, 0.4)
    order = sorted(range(5), key=lambda i: (-keys[i], i))
    assert order == [1, 0, 3, 2, 4]
    assert order != sorted(range(5), key=lambda i: -stage[i])
    # fusion's first falls one place, where the stage alone put it last
    tiers = {f"r{i}": 2 for i in range(5)}
    ranked = [Ranked(f"r{i}", 1.0 - i / 10, {}) for i in range(5)]
    out = reorder_within_tiers(ranked, keys, lambda r: tiers[r.route_id])
    assert [r.route_id for r in out] == ["r1", "r0", "r3", "r2", "r4"]
    assert blended_keys([0.5, 0.5, 0.5], 0.4) == [0.0, -1.0, -2.0]  # ties: fusion's order


@pytest.mark.parametrize("blend", [0, -0.5, 1.5, "half", True])
def test_a_blend_outside_0_to_1_is_refused(tmp_path: Path, blend: object) -> None:
    with pytest.raises(ModelError, match=r"blend must be a number in \(0, 1\]"):
        RankingModel(_folder(tmp_path, blend=blend))


def test_a_card_without_a_blend_orders_by_the_stage_alone(tmp_path: Path) -> None:
    assert RankingModel(_folder(tmp_path)).blend == 1.0
    assert RankingModel(_folder(tmp_path / "b", blend=0.4)).blend == 0.4


@pytest.mark.parametrize("weight", [-1, "20", True, float("nan")])
def test_an_action_weight_not_a_number_of_at_least_0_is_refused(
    tmp_path: Path, weight: object
) -> None:
    with pytest.raises(ModelError, match="action_weight must be a number >= 0") as refused:
        RankingModel(_folder(tmp_path, settings={"action_weight": weight}))
    assert refused.value.where.endswith("card.json")
    assert RankingModel(_folder(tmp_path / "none")).action_weight == 0.0  # a card that does not say


def test_the_stage_reads_the_action_rules_change_at_its_weight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from schemarouter.retrieval import ordering, window

    class Stage:  # scores every candidate alike: only the action rule's change can order them
        window, blend = 10, 1.0

        def __init__(self, action_weight: float) -> None:
            self.action_weight = action_weight

        def score(self, rows: np.ndarray) -> np.ndarray:
            return np.zeros(len(rows))

    monkeypatch.setattr(ordering, "window_signals", lambda *args, **kwargs: None)
    monkeypatch.setattr(window, "window_features", lambda signals: np.zeros((4, len(FEATURES))))

    def order(weight: float) -> list[str]:
        # the rule took 0.03 from r0 (a read route for a write request) and gave r3 0.08
        changes = {"r0": -0.03, "r3": 0.08}
        ranked = [
            Ranked(r, 1.0 - i / 10, {"action": changes[r]} if r in changes else {})
            for i, r in enumerate(["r0", "r1", "r2", "r3"])
        ]
        out = ordering.learned_order(
            Stage(weight),
            "q",
            ranked,
            None,
            index=None,
            tier=lambda r: 2,  # type: ignore[arg-type]
        )
        assert all(r.scores["ranking"] == 0.0 for r in out)  # the stage's own log-odds
        return [r.route_id for r in out]

    assert order(0.0) == ["r0", "r1", "r2", "r3"]  # ties keep fusion's order
    assert order(20.0) == ["r3", "r1", "r2", "r0"]


def test_the_window_is_reordered_within_tiers_and_the_tail_keeps_its_place() -> None:
    ranked = [Ranked(f"r{i}", 1.0 - i / 10, {}) for i in range(6)]
    tiers = {"r0": 1, "r1": 1, "r2": 2, "r3": 2, "r4": 2, "r5": 2}
    out = reorder_within_tiers(ranked, [0.1, 0.9, 0.2, 0.8, 0.5], lambda r: tiers[r.route_id])
    # the named provider's routes (tier 1) stay ahead, re-ordered among themselves; r5 is
    # below the window and keeps its place
    assert [r.route_id for r in out] == ["r1", "r0", "r3", "r4", "r2", "r5"]


def test_the_router_reorders_its_window_with_the_stage_and_drops_nothing(tmp_path: Path) -> None:
    def router(ranking: object) -> SchemaRouter:
        r = SchemaRouter(
            encoder=HashingEncoder(),
            embedding_cache=None,
            abstention=None,
            reranker=None,
            ranking=ranking,  # type: ignore[arg-type]
        )
        r.add_catalog(BUNDLED_CATALOG)
        return r

    query = "band gap and bulk modulus of GaN"
    plain = router(None).retrieve(query, k=50)
    staged = router(str(_folder(tmp_path))).retrieve(query, k=50)
    assert sorted(staged.route_ids) == sorted(plain.route_ids)
    window = staged.candidates[:10]
    assert all("ranking" in c.scores for c in window)
    assert not any("ranking" in c.scores for c in staged.candidates[10:])
    named = router(str(_folder(tmp_path / "n"))).retrieve("OQMD formation energy of NaCl", k=5)
    assert named.candidates[0].provider == "oqmd"  # a named provider stays ahead


def test_the_shipped_stage_is_off_by_default_with_its_card_saying_why() -> None:
    shipped = RankingModel.shipped()
    assert shipped is not None, "models/ranking/ is shipped (trees.npz and card.json)"
    assert "does not beat fusion" in shipped.off_by_default
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    assert router.ranking_model is None  # off: the router answers with fusion
    on = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, ranking=shipped)
    assert on.ranking_model is shipped
    on.add_catalog(BUNDLED_CATALOG)
    found = on.retrieve("band gap and bulk modulus of GaN", k=5)
    assert len(found.route_ids) == 5 and "ranking" in found.candidates[0].scores


def test_a_model_trained_before_a_feature_was_added_reads_its_own_columns(
    tmp_path: Path,
) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model, X = _fitted()
    older = HistGradientBoostingClassifier(max_iter=20, max_leaf_nodes=7, random_state=0)
    older.fit(X[:, :-1], model.predict(X))  # type: ignore[attr-defined]
    folder = tmp_path / "older"
    folder.mkdir()
    np.savez(folder / "trees.npz", **export_trees(older).arrays())
    card = {"name": "t", "features": list(FEATURES[:-1]), "settings": {"window": 10}}
    (folder / "card.json").write_text(json.dumps(card))
    loaded = RankingModel(folder)
    np.testing.assert_allclose(loaded.score(X), older.decision_function(X[:, :-1]), atol=1e-9)
    with pytest.raises(ModelError, match="other features"):
        card["features"] = [*FEATURES[:-2], FEATURES[-1]]  # not a prefix
        (folder / "card.json").write_text(json.dumps(card))
        RankingModel(folder)


def test_development_recall_orders_the_window_as_the_router_does() -> None:
    from schemarouter.training.ranking import WindowRows, recall_at

    rows = WindowRows(
        X=np.zeros((3, len(FEATURES))),
        y=np.array([0.0, 0.0, 1.0]),
        group=np.zeros(3, dtype=np.int64),
        tier=np.full(3, 2),
        route_ids=["r0", "r1", "r2"],  # fusion's order
        needs=[[frozenset({"r2"})]],
    )
    scores = np.array([0.0, -1.0, 3.0])  # the stage puts r2 first
    assert recall_at(rows, None, k=2) == 0.0
    assert recall_at(rows, scores, k=1) == 1.0
    # blended, fusion's first keeps its place and r2 climbs one: r0, r2, r1
    assert recall_at(rows, scores, k=1, blend=0.4) == 0.0
    assert recall_at(rows, scores, k=2, blend=0.4) == 1.0
