"""The query-time reranker: route text, pair encoding, loading, batching, a missing model."""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schemarouter import rerank
from schemarouter.catalog import load_catalog
from schemarouter.errors import MissingDependencyError, ModelError
from schemarouter.rerank import (
    MODEL_FILES,
    Reranker,
    default_reranker,
    encode_pairs,
    route_text,
)

from helpers import TINY_CATALOG

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "band",
    "gap",
    "of",
    "silicon",
    "materials",
    "project",
    "summary",
    "cell",
    "volume",
    "search",
    ":",
    ".",
    ",",
]


def _tokenizer():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, normalizers, pre_tokenizers

    tok = tokenizers.Tokenizer(
        models.WordPiece({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]")
    )
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


def _write_model(folder: Path, *, settings: dict | None = None) -> Path:
    """A tiny ONNX "cross-encoder": logit = known (non-[UNK]) pieces of the text segment."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    folder.mkdir(parents=True, exist_ok=True)
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    one = helper.make_tensor("one", TensorProto.INT64, [], [1])
    nodes = [
        helper.make_node("Equal", ["input_ids", "one"], ["is_unk"]),
        helper.make_node("Not", ["is_unk"], ["known"]),
        helper.make_node("Cast", ["known"], ["known_i"], to=TensorProto.INT64),
        helper.make_node("Mul", ["known_i", "token_type_ids"], ["text_known"]),
        helper.make_node("Cast", ["text_known"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["f", "axes"], ["logits"], keepdims=1),
    ]
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    graph = helper.make_graph(
        nodes,
        "tiny",
        inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[one, axes],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(folder / "model.onnx"))
    _tokenizer().save(str(folder / "tokenizer.json"))
    card = {"name": "tiny", "model_sha256": "0" * 64, "settings": settings or {}}
    (folder / "card.json").write_text(json.dumps(card), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("onnxruntime")
    return _write_model(tmp_path_factory.mktemp("reranker"))


@pytest.fixture(scope="module")
def routes(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("cat") / "tiny.yaml"
    path.write_text(TINY_CATALOG, encoding="utf-8")
    return {r.route_id: r for r in load_catalog(path).routes}


# -- route text --------------------------------------------------------------------------------


def test_route_text_names_provider_endpoint_inputs_and_outputs(routes) -> None:
    text = route_text(routes["matproj/rest/summary"])
    assert text.startswith("Materials Project: search_summary. Summary properties of materials")
    assert "Inputs: formula" in text
    assert "Returns: material_id, band_gap, k_vrh" in text
    assert route_text(routes["matproj/rest/summary"]) == text  # deterministic


def test_route_text_puts_matched_fields_first_with_their_meaning(routes) -> None:
    text = route_text(routes["matproj/rest/summary"], fields=["k_vrh", "unknown"])
    assert "Returns: k_vrh (bulk modulus) [GPa], material_id, band_gap" in text


def test_route_text_respects_its_budget(routes) -> None:
    for limit in (40, 80, 200):
        assert len(route_text(routes["cod/rest/result"], max_chars=limit)) <= limit


# -- pairs -> ids --------------------------------------------------------------------------------


def test_encode_pairs_layout_and_padding() -> None:
    tok = _tokenizer()
    ids, mask, types = encode_pairs(tok, "band gap", ["silicon", "materials project summary"])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    assert ids.shape == mask.shape == types.shape == (2, 8)
    assert ids[0].tolist() == [cls, 4, 5, sep, 7, sep, 0, 0]
    assert mask[0].tolist() == [1, 1, 1, 1, 1, 1, 0, 0]
    assert types[0].tolist() == [0, 0, 0, 0, 1, 1, 0, 0]
    assert types[1].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_encode_pairs_truncates_query_then_text_and_uses_the_cache() -> None:
    tok = _tokenizer()
    cache: dict[str, list[int]] = {}
    text = " ".join(["silicon"] * 50)
    ids, _, _ = encode_pairs(
        tok, "band gap of silicon", [text], max_length=12, query_tokens=2, cache=cache
    )
    assert ids.shape == (1, 12)
    assert ids[0, 1:3].tolist() == [4, 5]  # the query's first two pieces
    assert ids[0, -1] == tok.token_to_id("[SEP]")
    assert text in cache
    again = encode_pairs(
        tok, "band gap of silicon", [text], max_length=12, query_tokens=2, cache=cache
    )
    assert np.array_equal(again[0], ids)


# -- the model -----------------------------------------------------------------------------------


def test_score_batches_and_keeps_input_order(tiny_model: Path) -> None:
    model = Reranker(tiny_model, batch_size=2)
    texts = ["silicon", "band gap of silicon", "xyz", "materials project summary search"]
    scores = model.score("band gap", texts)
    assert scores.dtype == np.float32
    assert scores.tolist() == [2.0, 5.0, 1.0, 5.0]  # text pieces and the last [SEP]
    one_by_one = [float(model.score("band gap", [t])[0]) for t in texts]
    assert one_by_one == scores.tolist()
    assert model.score("band gap", []).shape == (0,)


def test_rank_orders_by_score_ties_keep_input_order(tiny_model: Path) -> None:
    model = Reranker(tiny_model)
    texts = ["silicon", "band gap of silicon", "xyz", "materials project summary search"]
    ranked = model.rank("q", texts, ids=["a", "b", "c", "d"])
    assert [r.id for r in ranked] == ["b", "d", "a", "c"]
    assert [r.index for r in model.rank("q", texts, top_k=2)] == [1, 3]
    with pytest.raises(ValueError):
        model.rank("q", texts, ids=["a"])


def test_card_settings_reach_the_encoder(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    folder = _write_model(tmp_path / "m", settings={"max_length": 6, "query_tokens": 1})
    model = Reranker(folder)
    ids, _, _ = model.encode("band gap", ["silicon silicon silicon silicon"])
    assert ids.shape == (1, 6)
    assert model.identity == "tiny:000000000000"


def test_missing_files_are_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"model\.onnx"):
        Reranker(tmp_path)


def test_unloadable_onnx_is_a_model_error(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    folder = _write_model(tmp_path / "m")
    (folder / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="onnxruntime cannot load"):
        Reranker(folder).score("q", ["t"])


@pytest.mark.parametrize("missing", ["onnxruntime", "tokenizers"])
def test_missing_dependency_names_the_package(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == missing or name.startswith(missing + "."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MissingDependencyError, match=missing):
        Reranker(tiny_model).score("q", ["t"])


def test_shipped_is_none_without_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rerank, "_SHIPPED", "no-such-model")
    assert Reranker.shipped() is None
    assert default_reranker() is None


def test_shipped_model_loads_when_present() -> None:
    model = Reranker.shipped()
    if model is None:
        pytest.skip("no shipped reranker in this checkout")
    assert all((Path(str(model.path)) / name).is_file() for name in MODEL_FILES)
    assert model.card["size_bytes"] <= 30 * 1024 * 1024
    scores = model.score("band gap of silicon", ["Materials Project: band gap", "weather"])
    assert scores.shape == (2,) and np.isfinite(scores).all()


def test_rerank_module_imports_no_torch() -> None:
    code = (
        "import sys, schemarouter.rerank;"
        "print(','.join(m for m in ('torch', 'transformers', 'sentence_transformers', "
        "'onnxruntime') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_blend_order_mixes_z_scores_and_keeps_fused_order_on_ties() -> None:
    from schemarouter.rerank import blend_order

    fused = [3.0, 2.0, 1.0]
    assert blend_order([0.0, 0.0, 0.0], fused).tolist() == [0, 1, 2]
    assert blend_order([1.0, 2.0, 9.0], fused, weight=0.0).tolist() == [2, 1, 0]
    # reranker and fusion disagree evenly: equal weights tie, fused order decides
    assert blend_order([1.0, 2.0, 3.0], fused, weight=1.0).tolist() == [0, 1, 2]
    assert blend_order([1.0, 2.0, 3.0], fused, weight=0.5).tolist() == [2, 1, 0]
    # forced routes carry -inf fused scores: treated as the lowest, never NaN
    assert blend_order([5.0, 1.0], [float("-inf"), 1.0], weight=0.1).tolist() == [0, 1]
    with pytest.raises(ValueError):
        blend_order([1.0], [1.0, 2.0])
