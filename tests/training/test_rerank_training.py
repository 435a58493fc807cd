"""Reranker training offline: synthetic queries, hard negatives, pairs kept apart from held-out
sets, and the whole pipeline (pairs -> train -> ONNX int8 -> card -> Reranker) on a tiny
registry in seconds."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from schemarouter.index import HashingEncoder
from schemarouter.registry.catalog import load_catalog
from schemarouter.router import SchemaRouter

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from schemarouter.training.negatives import NegativeMiner
from schemarouter.training.pairs import PairConfig, build_pairs, query_hash
from schemarouter.training.synth import FAMILIES, name_words, synth_queries

SMALL_CATALOG = """\
schemarouter_catalog: 1
providers:
  - id: matproj
    display_name: Materials Project
    aliases: [MP]
    access:
      - id: rest
        kind: http
        base_url: https://api.materialsproject.org
        endpoints:
          - id: summary
            name: search_summary
            operation: {method: GET, path: /materials/summary/}
            description: Returns summary properties of materials by formula.
            parameters:
              - {name: formula, location: query, json_schema: {type: string}}
            output_fields:
              - {name: band_gap, path: "data.*.band_gap", json_schema: {type: number}, semantic_id: electronic.band_gap, unit: eV, aliases: [bandgap, 밴드갭]}
              - {name: density, path: "data.*.density", json_schema: {type: number}, unit: g/cm^3}
          - id: elasticity
            name: search_elasticity
            operation: {method: GET, path: /materials/elasticity/}
            description: Lists elastic constants and moduli of materials.
            parameters:
              - {name: material_id, location: query, json_schema: {type: string}}
            output_fields:
              - {name: k_vrh, path: "data.*.k_vrh", json_schema: {type: number}, semantic_id: mechanical.bulk_modulus, unit: GPa, aliases: [bulk modulus]}
  - id: weather
    display_name: Open Weather
    access:
      - id: rest
        kind: http
        base_url: https://weather.example.org
        endpoints:
          - id: forecast
            name: getForecast
            operation: {method: GET, path: /forecast}
            description: Gets the five-day weather forecast for a city.
            parameters:
              - {name: city, location: query, json_schema: {type: string}}
            output_fields:
              - {name: temperature, path: "list.*.temp", json_schema: {type: number}, unit: K}
          - id: alerts
            name: listAlerts
            operation: {method: GET, path: /alerts}
            description: Lists severe weather alerts for a region.
            parameters:
              - {name: region, location: query, json_schema: {type: string}}
            output_fields:
              - {name: event, path: "alerts.*.event", json_schema: {type: string}}
  - id: movies
    display_name: Movie DB
    access:
      - id: rest
        kind: http
        base_url: https://movies.example.org
        endpoints:
          - id: search_movie
            name: searchMovie
            operation: {method: GET, path: /search/movie}
            description: Searches movies by title.
            parameters:
              - {name: query, location: query, json_schema: {type: string}}
            output_fields:
              - {name: title, path: "results.*.title", json_schema: {type: string}}
          - id: credits
            name: movieCredits
            operation: {method: GET, path: "/movie/{movie_id}/credits"}
            description: Returns the cast and crew of a movie.
            parameters:
              - {name: movie_id, location: path, required: true, json_schema: {type: integer}}
            output_fields:
              - {name: cast, path: "cast.*.name", json_schema: {type: string}}
"""


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("catalog") / "small.yaml"
    path.write_text(SMALL_CATALOG, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def router(catalog: Path) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None)
    router.add_catalog(catalog)
    return router


def test_name_words_splits_code_names() -> None:
    assert name_words("DescribeDBInstances") == "describe db instances"
    assert name_words("get_weather-forecast") == "get weather forecast"


def test_synthetic_queries_are_deterministic_and_varied(router: SchemaRouter) -> None:
    routes = list(router.snapshot())
    first = synth_queries(routes, per_route=12, seed=3)
    assert first == synth_queries(routes, per_route=12, seed=3)
    assert first != synth_queries(routes, per_route=12, seed=4)
    assert {q.family for q in first} >= {"describe", "name", "provider", "multi"}
    ids = {r.route_id for r in routes}
    assert all(set(q.routes) <= ids and q.text for q in first)
    assert all(len(q.routes) == 2 for q in first if q.family == "multi")
    assert set(FAMILIES) >= {q.family for q in first}


def test_korean_queries_use_korean_aliases(router: SchemaRouter) -> None:
    summary = router.snapshot().routes["matproj/rest/summary"]
    queries = synth_queries([summary], per_route=40, seed=0, weights={"korean": 1.0})
    assert any("밴드갭" in q.text and q.fields == ("band_gap",) for q in queries)


def test_negatives_never_include_positives(router: SchemaRouter) -> None:
    miner = NegativeMiner(router, depth=10, seed=0)
    mined = miner.mine("five day forecast for Paris", ["weather/rest/forecast"], n=4)
    assert set(mined.positives) == {"weather/rest/forecast"}
    negative_ids = [r for r, _, _ in mined.negatives]
    assert "weather/rest/forecast" not in negative_ids
    assert len(set(negative_ids)) == len(negative_ids) <= 4
    kinds = {k for _, _, k in mined.negatives}
    assert kinds <= {"retrieved", "provider", "field", "near_duplicate"}
    # the positive's provider's other endpoint is mined (as a provider or near-duplicate)
    assert "weather/rest/alerts" in negative_ids


def test_mined_fused_scores_are_z_scores_over_the_rerank_window(router: SchemaRouter) -> None:
    from schemarouter.training.pairs import _groups_for

    query = "five day forecast for Paris"
    miner = NegativeMiner(router, depth=10, window=4, seed=0)
    head = router.retrieve(query, k=10, rerank=False).candidates[:4]
    mined = miner.mine(query, ["weather/rest/forecast"], n=4)
    assert list(mined.fused_z) == [c.route_id for c in head]
    z = np.array(list(mined.fused_z.values()))
    assert z.mean() == pytest.approx(0.0, abs=1e-9) and z.std() == pytest.approx(1.0)
    assert list(z) == sorted(z, reverse=True)
    # a group lists the positive's then each negative's, outside the window the lowest
    miner = NegativeMiner(router, depth=10, window=4, seed=0)
    (group,) = _groups_for(
        miner, query, ["weather/rest/forecast"], source="t", kind="t", config=PairConfig()
    )
    assert len(group.fused) == 1 + len(group.negatives)
    wanted = mined.fused_z.get("weather/rest/forecast", z.min())
    assert group.fused[0] == pytest.approx(wanted, abs=1e-4)  # stored to 4 places
    assert min(group.fused) >= round(float(z.min()), 4)


def test_mined_window_starts_after_the_routes_the_query_names(router: SchemaRouter) -> None:
    query = "Open Weather alerts and forecast"  # names the weather provider
    named = [c.route_id for c in router.retrieve(query, k=10, rerank=False).candidates
             if "named" in c.scores]  # fmt: skip
    assert set(named) == {"weather/rest/forecast", "weather/rest/alerts"}
    mined = NegativeMiner(router, depth=10, window=4, seed=0).mine(query, named[:1], n=3)
    assert mined.fused_z and not set(mined.fused_z) & set(named)
    assert all(np.isfinite(list(mined.fused_z.values())))


def test_config_refuses_training_on_held_out_sets() -> None:
    with pytest.raises(ValueError, match="held out"):
        PairConfig(train=("g1",), held_out=("g1",)).check()
    with pytest.raises(ValueError, match="held out"):
        PairConfig(train=("g1",), held_out=("g1:test",)).check()
    with pytest.raises(ValueError, match="bundled:dev"):
        PairConfig(train=("bundled",), held_out=()).check()
    with pytest.raises(ValueError, match="held-out"):
        PairConfig(train=(), synthetic=("tmdb",), held_out=("tmdb",)).check()
    PairConfig(train=("g1:dev",), held_out=("g1:test",)).check()


def test_pairs_drop_held_out_queries_by_hash(catalog: Path, monkeypatch) -> None:
    from schemarouter.training import pairs

    config = PairConfig(train=(), synthetic=(f"catalog:{catalog}",), held_out=(), per_route=6)
    groups, manifest = build_pairs(config, encoder=HashingEncoder())
    assert groups and manifest["dropped_as_held_out_by_hash"] == 0
    assert "bundled:test" in manifest["held_out"]
    held = {query_hash(groups[0].query)}
    real = pairs._held_out
    monkeypatch.setattr(pairs, "_held_out", lambda *a: (real(*a)[0] | held, set(), real(*a)[2]))
    again, manifest = build_pairs(config, encoder=HashingEncoder())
    assert manifest["dropped_as_held_out_by_hash"] == 1
    assert groups[0].query not in {g.query for g in again}


@pytest.mark.parametrize("fusion_weight", [0.0, 0.5])
def test_train_export_and_load_end_to_end(
    catalog: Path, tmp_path: Path, fusion_weight: float
) -> None:
    """A one-layer model, a few steps: pairs -> training -> int8 ONNX -> card -> Reranker.

    ``fusion_weight`` > 0 trains on the blend with fusion: the card carries the learned
    coefficient and the loaded model ranks with it."""
    from schemarouter.retrieval.rerank import Reranker
    from schemarouter.training.train import train_main

    out, work = tmp_path / "model", tmp_path / "work"
    argv = [
        "--out", str(out), "--work", str(work), "--train", "--held-out",
        "--synthetic", f"catalog:{catalog}", "--encoder", "hashing", "--per-route", "4",
        "--layers", "1", "--epochs", "1", "--batch-groups", "2", "--negatives", "2",
        "--max-groups", "6", "--max-length", "48", "--no-progress", "--threads", "1",
        "--fusion-weight", str(fusion_weight),
    ]  # fmt: skip
    with warnings.catch_warnings():
        # torch.onnx's legacy exporter and transformers warn about their own internals
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\..*")
        warnings.filterwarnings(
            "ignore", category=FutureWarning, module=r"(torch|transformers)\..*"
        )
        assert train_main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == ["card.json", "model.onnx", "tokenizer.json"]
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["base_model"]["layers_kept"] == 1
    assert card["settings"]["max_length"] == 48
    assert card["training"]["steps"] == 3 and card["training"]["epochs_done"] == 1
    assert card["data"]["sources"][f"catalog:{catalog}"]["groups"] > 0
    assert card["quantization"]["fp32_vs_torch"]["max_abs_diff"] < 1e-3
    assert card["size_bytes"] == (out / "model.onnx").stat().st_size
    assert list(work.glob("checkpoint-*.pt"))
    model = Reranker(out)
    if fusion_weight:
        learned = card["blend"]["fusion_coefficient"]
        assert learned == card["training"]["fusion_coefficient"] != fusion_weight
        assert model.fusion_coefficient == learned
    else:
        assert "blend" not in card and model.fusion_coefficient is None
    routes = {r.route_id: r for r in load_catalog(catalog).routes}
    texts = [model.route_text(r) for r in routes.values()]
    scores = model.score("weather forecast for Paris", texts)
    assert scores.shape == (len(texts),) and np.isfinite(scores).all()
    # the same command again resumes: the finished epoch is not trained twice
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\..*")
        warnings.filterwarnings(
            "ignore", category=FutureWarning, module=r"(torch|transformers)\..*"
        )
        assert train_main(argv) == 0
    again = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert again["training"]["steps"] == 3 and again["training"]["resumed_from"]
    assert again.get("blend") == card.get("blend")  # the coefficient survives the resume


def _train_quietly(argv: list[str]) -> dict:
    from schemarouter.training.train import train_main

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"torch\..*")
        warnings.filterwarnings(
            "ignore", category=FutureWarning, module=r"(torch|transformers)\..*"
        )
        assert train_main(argv) == 0
    out = Path(argv[argv.index("--out") + 1])
    return json.loads((out / "card.json").read_text(encoding="utf-8"))


def _pairs_file(path: Path, *, positive: int, n: int = 4) -> Path:
    """``n`` groups of three route texts; the one at ``positive`` is the label."""
    from dataclasses import asdict

    from schemarouter.training.pairs import PairGroup

    rows = []
    for i in range(n):
        texts = [f"route {i} sends mail", f"route {i} lists files", f"route {i} bills"]
        label = texts.pop(positive)
        rows.append(PairGroup(query=f"request {i}", positive=label, negatives=texts, source="s"))
    path.write_text("".join(json.dumps(asdict(g)) + "\n" for g in rows), encoding="utf-8")
    return path


def test_training_says_the_validation_figures_before_training(tmp_path: Path, capsys) -> None:
    """The epochs' validation figures are printed beside the untrained model's, so a run that
    made them worse says so where it is read, not only in the card."""
    pairs = _pairs_file(tmp_path / "p.jsonl", positive=0, n=8)
    card = _train_quietly(
        ["--out", str(tmp_path / "m"), "--work", str(tmp_path / "w"), "--pairs", str(pairs),
         "--layers", "1", "--epochs", "1", "--batch-groups", "4", "--negatives", "1",
         "--max-length", "32", "--validation-share", "0.5", "--no-progress", "--threads", "1"]
    )  # fmt: skip
    before = card["training"]["validation_before_training"]
    assert before["groups"] > 0
    said = capsys.readouterr()
    assert f"before training: validation mrr {before['mrr']:.3f}" in said.out + said.err


def test_a_rerun_on_other_pairs_of_the_same_size_trains_anew(tmp_path: Path) -> None:
    """Same --out, same settings, as many groups, other labels (a request relabelled): the
    run trains on the new pairs instead of resuming the old checkpoint; the same pairs
    again still resume."""
    first = _pairs_file(tmp_path / "a.jsonl", positive=0)
    relabelled = _pairs_file(tmp_path / "b.jsonl", positive=1)
    common = ["--out", str(tmp_path / "m"), "--work", str(tmp_path / "w"), "--layers", "1",
              "--epochs", "1", "--batch-groups", "2", "--negatives", "1", "--max-length", "32",
              "--validation-share", "0", "--no-progress", "--threads", "1"]  # fmt: skip
    card = _train_quietly([*common, "--pairs", str(first)])
    assert card["training"]["steps"] == 2 and card["training"]["resumed_from"] is None
    card = _train_quietly([*common, "--pairs", str(relabelled)])
    assert card["training"]["resumed_from"] is None  # trained on the relabelled pairs
    assert card["training"]["steps"] == 2
    card = _train_quietly([*common, "--pairs", str(relabelled)])
    assert card["training"]["resumed_from"]  # the same pairs again: nothing to redo


def test_blend_training_refuses_pairs_without_fused_scores(tmp_path: Path) -> None:
    from dataclasses import asdict

    from schemarouter.training.pairs import PairGroup
    from schemarouter.training.train import train_main

    old = PairGroup(query="q", positive="a", negatives=["b", "c"], source="s")  # no fused
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(asdict(old)) + "\n", encoding="utf-8")
    argv = ["--out", str(tmp_path / "m"), "--work", str(tmp_path / "w"), "--pairs", str(pairs),
            "--fusion-weight", "1", "--no-progress"]  # fmt: skip
    with pytest.raises(SystemExit, match=r"1 of 1 groups .* have none"):
        train_main(argv)
