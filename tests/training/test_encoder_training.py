"""The tooltrain reader and the encoder pipeline: records split by tool, tools compiled by the
MCP adapter, triplets with mined negatives, and train-encoder end to end (a one-layer model,
a few steps) -> int8 ONNX + card -> OnnxEncoder, keyed by the model's own hash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter.errors import ModelError
from schemarouter.index import HashingEncoder, OnnxEncoder
from schemarouter.training.datasets.tooltrain import (
    load_tooltrain,
    load_tooltrain_suite,
    provider_of,
    tool_route,
)

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def corpus(shared_data: Path):
    return load_tooltrain(shared_data, sources=("tooltalk", "api_bank", "sgd"), negatives=False)


def test_records_split_by_every_positive_tool(corpus) -> None:
    train_keys = {k for r in corpus.records if r.split == "train" for k in r.positive_keys}
    val_keys = {k for r in corpus.records if r.split == "val" for k in r.positive_keys}
    assert val_keys and train_keys
    assert not train_keys & val_keys  # a tool (and every request needing it) on one side
    assert all(r.positives for r in corpus.records)
    assert {r.source for r in corpus.records} == {"tooltalk", "api_bank", "sgd"}


def test_tools_become_mcp_routes_with_their_service_as_provider(corpus) -> None:
    sgd = next(corpus.tools[k] for k in corpus.catalogs["sgd"] if "." in corpus.tools[k].name)
    service, intent = sgd.name.split(".", 1)
    assert provider_of(sgd) == (service, intent)
    route = tool_route(sgd)
    assert route.provider.display_name == service and route.endpoint.name == intent
    assert route.access.kind.value == "mcp"
    assert set(route.endpoint.input_schema.get("properties", {})) == set(
        (sgd.parameters or {}).get("properties", {})
    )


def test_validation_suite_registers_through_the_public_api(shared_data: Path) -> None:
    from schemarouter import SchemaRouter

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, reranker=None)
    bench = load_tooltrain_suite(router, shared_data, queries_per_source=3, distractors=2)
    positives = [q for q in bench.queries if not q.negative]
    assert positives and any(q.negative for q in bench.queries)  # bfcl_irrelevance requests
    assert {q.split for q in bench.queries} == {"dev"}
    routes = router.snapshot().routes
    assert all(g in routes for q in positives for g in q.gold)


@pytest.mark.slow  # a training run: 153 s on the loaded 2-core machine
def test_train_encoder_end_to_end(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    from schemarouter.training.encoder import encoder_main
    from schemarouter.training.encoder_pairs import load_triplets

    out, work = tmp_path / "model", tmp_path / "work"
    argv = [
        "--out", str(out), "--work", str(work), "--data", str(shared_data),
        "--sources", "tooltalk", "api_bank", "--mining-encoder", "hashing",
        "--max-pairs", "24", "--batch-size", "8", "--layers", "1", "--no-bf16",
        "--validate-per-source", "5", "--checkpoint-steps", "2", "--no-progress",
    ]  # fmt: skip
    assert encoder_main(argv) == 0
    triplets, manifest = load_triplets(work / "triplets.jsonl")
    assert triplets and all(t.negative != t.positive for t in triplets)
    assert set(manifest["counts"]) == {"tooltalk", "api_bank"}
    card = json.loads((out / "card.json").read_text())
    assert card["name"] == "schemarouter-encoder" and card["training"]["steps"] == 3
    assert "CC-BY-SA-4.0" in card["data"]["attribution"]
    assert card["quantization"]["int8_onnx_vs_torch"]["mean_cosine"] > 0.9
    assert {"base_minilm_torch", "trained_torch", "trained_int8_onnx"} <= set(card["validation"])
    encoder = OnnxEncoder(out)
    assert card["model_sha256"][:16] in encoder.identity  # caches are keyed by the model
    vectors = encoder.encode(["check my reminders", "log me in"])
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    # a second run finds the finished model and does nothing
    stamp = (out / "model.onnx").stat().st_mtime_ns
    assert encoder_main(argv) == 0
    assert (out / "model.onnx").stat().st_mtime_ns == stamp
    # a corrupted model file is refused on first use, not silently used
    data = bytearray((out / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (out / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256"):
        OnnxEncoder(out).encode(["hello"])


def test_a_query_gets_the_vector_its_text_gets_as_a_document() -> None:
    # a query is encoded alone, documents many at a time (threads side by side): the
    # vectors must not depend on which
    from schemarouter.index.encoders.defaults import default_encoder

    encoder = default_encoder()
    texts = [
        "Search for flights from Paris to Rome next Monday and then book a hotel near the "
        "Colosseum for three nights, with breakfast included",
        "band gap of GaN",
    ]
    together = encoder.encode(texts)
    for i, text in enumerate(texts):
        np.testing.assert_array_equal(encoder.encode([text])[0], together[i])
        if hasattr(encoder, "encode_query"):  # the cross-lingual wrapper's query path
            np.testing.assert_array_equal(encoder.encode_query(text), together[i])
