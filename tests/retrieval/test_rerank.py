"""The query-time reranker: route text, pair encoding, loading, batching, a missing model."""

from __future__ import annotations

import builtins
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter, shipped
from schemarouter.errors import MissingDependencyError, ModelError
from schemarouter.index import HashingEncoder
from schemarouter.registry.catalog import load_catalog
from schemarouter.retrieval import rerank
from schemarouter.retrieval.rerank import (
    MODEL_FILES,
    Reranker,
    encode_pairs,
    route_text,
)

from helpers import BUNDLED_CATALOG, REPO, TINY_CATALOG

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
    digest = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()
    card = {"name": "tiny", "model_sha256": digest, "settings": settings or {}}
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
    digest = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()
    assert model.identity == f"tiny:{digest[:12]}"


def test_missing_files_are_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"model\.onnx"):
        Reranker(tmp_path)


def test_unloadable_onnx_is_a_model_error(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    folder = _write_model(tmp_path / "m")
    (folder / "model.onnx").write_bytes(b"not a model")
    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    card["model_sha256"] = hashlib.sha256(b"not a model").hexdigest()  # the card's own file
    (folder / "card.json").write_text(json.dumps(card), encoding="utf-8")
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
    monkeypatch.setattr(shipped, "_LOADED", {})
    assert Reranker.shipped() is None
    from schemarouter.training.baselines import load_reranker

    assert load_reranker("auto") == (None, "reranker: skipped (no shipped reranker model)")


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
        "import sys, schemarouter.retrieval.rerank;"
        "print(','.join(m for m in ('torch', 'transformers', 'sentence_transformers', "
        "'onnxruntime') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_blend_order_mixes_z_scores_and_keeps_fused_order_on_ties() -> None:
    from schemarouter.retrieval.rerank import blend_order

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


def test_blend_order_with_a_learned_coefficient_keeps_the_logit_scale() -> None:
    from schemarouter.retrieval.rerank import blend_order

    fused = [3.0, 2.0, 1.0]  # z: +1.22, 0, -1.22
    # logit + a * z(fused): a one-logit lead beats fusion's lead at a=0.25, not at a=1
    assert blend_order([0.0, 0.0, 1.0], fused, coefficient=0.25).tolist() == [2, 0, 1]
    assert blend_order([0.0, 0.0, 1.0], fused, coefficient=1.0).tolist() == [0, 1, 2]
    # z-scored, the same logits rank otherwise: the scale is what the coefficient is about
    assert blend_order([0.0, 0.0, 1.0], fused).tolist() == [0, 2, 1]
    assert blend_order([0.0, 0.0, 100.0], fused, coefficient=1.0).tolist() == [2, 0, 1]
    # weight scales fusion's part; 0 is the logit alone (ties keep fused order)
    assert blend_order([0.0, 0.0, 1.0], fused, weight=0.0, coefficient=1.0).tolist() == [2, 0, 1]


# -- in the router -----------------------------------------------------------------------------


class Scripted:
    """A fake cross-encoder: a fixed score per route text prefix, else 0; counts its calls."""

    def __init__(self, prefer: str = "", *, wrong_count: bool = False) -> None:
        self.prefer = prefer
        self.wrong_count = wrong_count
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, texts):
        self.calls.append((query, list(texts)))
        scores = [10.0 if self.prefer and self.prefer in t else 0.0 for t in texts]
        return scores[:-1] if self.wrong_count else scores


def _router(reranker, **kwargs) -> SchemaRouter:
    from schemarouter.index import HashingEncoder

    r = SchemaRouter(
        encoder=HashingEncoder(),
        abstention=None,
        embedding_cache=None,
        reranker=reranker,
        **kwargs,
    )
    r.add_catalog(BUNDLED_CATALOG)
    return r


def test_router_reranks_the_fused_window_and_keeps_the_fused_score() -> None:
    query = "band gap of silicon"
    fused = _router(None).retrieve(query, k=10)
    assert not fused.reranked and not fused.warnings  # said once per process, in the log
    # promote the route fusion put last among the top 10
    last = fused.candidates[-1]
    scripted = Scripted(prefer=f"{last.endpoint}")
    r = _router(scripted, rerank_weight=0.0, rerank_depth=10)
    result = r.retrieve(query, k=10)
    assert result.reranked and not any("reranking is off" in w for w in result.warnings)
    assert len(scripted.calls) == 1 and len(scripted.calls[0][1]) == 10
    assert result.candidates[0].route_id == last.route_id
    # same routes, reordered; fused score kept, the model's logit beside it
    assert sorted(result.route_ids) == sorted(fused.route_ids)
    top = result.candidates[0]
    assert top.score == pytest.approx(last.score)
    assert top.scores["rerank"] == 10.0 and "fused" in top.scores
    assert [c.rank for c in result.candidates] == list(range(1, 11))


def test_router_blends_with_the_coefficient_a_model_learned() -> None:
    query = "band gap of silicon"
    fused = _router(None).retrieve(query, k=10)
    last = fused.candidates[-1]
    scripted = Scripted(prefer=f"{last.endpoint}")  # a ten-logit lead for fusion's 10th
    scripted.fusion_coefficient = 0.1  # the logit's lead decides
    learned = _router(scripted, rerank_depth=10).retrieve(query, k=10)
    assert learned.candidates[0].route_id == last.route_id
    scripted.fusion_coefficient = 1e6  # fusion's spread dwarfs the lead: fused order
    learned = _router(scripted, rerank_depth=10).retrieve(query, k=10)
    assert learned.route_ids == fused.route_ids and learned.reranked


def test_router_rerank_false_is_fusion_order() -> None:
    query = "band gap of silicon"
    fused = _router(None).retrieve(query, k=5)
    scripted = Scripted(prefer="zzz")
    r = _router(scripted)
    off = r.retrieve(query, k=5, rerank=False)
    assert off.route_ids == fused.route_ids and not off.reranked  # the result says so
    assert scripted.calls == []


def test_router_keeps_named_routes_on_top_when_reranking() -> None:
    query = "OQMD formation energy of NaCl"
    fused = _router(None).retrieve(query, k=5)
    assert fused.candidates[0].provider == "oqmd"
    # the fake model prefers anything but OQMD: the named provider still leads
    r = _router(Scripted(prefer="Materials Project"), rerank_weight=0.0)
    result = r.retrieve(query, k=5)
    assert result.reranked
    assert result.candidates[0].route_id == fused.candidates[0].route_id
    # the forced route is not even scored: its text is not among those sent
    forced = r.snapshot().routes[result.candidates[0].route_id]
    sent = r.reranker.calls[0][1]
    assert not any(t.startswith(route_text(forced)[:40]) for t in sent)
    # the candidate says why it leads; the routes the model re-scored do not carry the mark
    assert result.candidates[0].scores["named"] == 1.0
    assert all("named" not in c.scores for c in result.candidates if "rerank" in c.scores)


def test_router_rerank_reaches_state_aware_retrieval() -> None:
    from schemarouter.retrieval.state import ExecutionState

    query = "band gap of silicon"
    base = _router(None).retrieve(query, k=10)
    last = base.candidates[-1]
    r = _router(Scripted(prefer=last.endpoint), rerank_weight=0.0, rerank_depth=10)
    state = r.retrieve_state_aware(query, state=ExecutionState(), k=3)
    assert state.reranked and state.candidates[0].route_id == last.route_id


def test_router_rejects_a_reranker_that_miscounts() -> None:
    r = _router(Scripted(wrong_count=True))
    with pytest.raises(ModelError, match="scores for"):
        r.retrieve("band gap of silicon", k=5)


def test_router_abstains_before_reranking() -> None:
    from schemarouter.index import HashingEncoder

    scripted = Scripted()
    r = SchemaRouter(
        encoder=HashingEncoder(), abstention=None, embedding_cache=None, reranker=scripted
    )
    result = r.retrieve("band gap of silicon", k=5)  # empty registry: nothing to rerank
    assert result.off_catalog and result.candidates == ()
    assert not result.reranked and scripted.calls == []


def test_router_loads_a_reranker_folder(tiny_model: Path) -> None:
    r = _router(str(tiny_model))
    assert isinstance(r.reranker, Reranker)
    result = r.retrieve("band gap of silicon", k=5)
    assert result.reranked and all("rerank" in c.scores for c in result.candidates)
    with pytest.raises(ModelError):
        SchemaRouter(reranker=tiny_model.parent / "missing")
    with pytest.raises(ValueError, match="rerank_depth"):
        SchemaRouter(reranker=None, rerank_depth=1)


def test_default_router_follows_the_shipped_models_card(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import schemarouter.retrieval.ranking as ranking_module

    model = Reranker.shipped()
    if model is None:
        pytest.skip("no shipped reranker in this checkout")
    if model.off_by_default:  # the card says off: fusion order, and the router says why once
        monkeypatch.setattr(ranking_module, "_SAID", set())
        caplog.set_level("INFO", logger="schemarouter.retrieval.ranking")
        r = SchemaRouter.from_catalog(BUNDLED_CATALOG)
        assert r.reranker is None
        result = r.retrieve("band gap of silicon", k=5)
        r.retrieve("band gap of GaN", k=5)
        assert not result.reranked and not result.warnings
        said = [x for x in caplog.records if model.off_by_default in x.getMessage()]
        assert len(said) == 1
        r = SchemaRouter.from_catalog(BUNDLED_CATALOG, reranker=Reranker.shipped())
    else:
        r = SchemaRouter.from_catalog(BUNDLED_CATALOG)
        assert SchemaRouter().reranker is model  # one shared session per process
    assert r.reranker is model
    result = r.retrieve("band gap of silicon", k=5)
    assert result.reranked and not any("reranking is off" in w for w in result.warnings)
    assert all(np.isfinite(c.scores["rerank"]) for c in result.candidates)
    top = result.candidates[0]
    assert any(f.semantic_id and "band_gap" in f.semantic_id for f in top.output_fields)


#: What the docs once said and the router never did (issue #22 asked for the opposite).
_PER_RESULT_CLAIM = re.compile(r"every result(?:'s `?warnings`?| says why)", re.IGNORECASE)


def test_the_docs_say_why_reranking_is_off_as_the_router_does() -> None:
    # the test above: the reason is one log record per process, no result's warnings
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = " ".join(path.read_text(encoding="utf-8").split())
        claim = _PER_RESULT_CLAIM.search(text)
        assert claim is None, f"{path.name}: ...{text[claim.start() - 120 : claim.end()]}"
    for name in ("reranker.md", "generalization.md"):
        text = " ".join((REPO / "docs" / name).read_text(encoding="utf-8").split())
        assert re.search(r"reranking is off once per process|once per process, in a log", text)


def test_fit_keeps_the_prefix_that_fits_the_token_budget(tiny_model: Path) -> None:
    model = Reranker(tiny_model)
    texts = ["band gap", "cell volume of silicon", "search", "band gap of silicon materials"]
    _, mask, _ = model.encode("band gap", texts)
    lengths = mask.sum(axis=1).tolist()  # [CLS] q [SEP] text [SEP]
    assert lengths == [7, 9, 6, 10]
    # cost of a prefix = pairs x its longest pair
    assert model.fit("band gap", texts, 10_000) == 4
    assert model.fit("band gap", texts, 27) == 3  # 3 x 9 = 27; 4 x 10 = 40
    assert model.fit("band gap", texts, 26) == 2
    assert model.fit("band gap", texts, 1) == 2  # never fewer than two
    assert model.fit("band gap", texts[:1], 1) == 1
    # score with a budget scores exactly that prefix, from one encoding
    full = model.score("band gap", texts)
    assert model.score("band gap", texts, max_tokens=27).tolist() == full[:3].tolist()
    assert model.score("band gap", texts, max_tokens=None).tolist() == full.tolist()


def test_router_reranks_only_what_fits_the_budget(tiny_model: Path) -> None:
    query = "band gap of silicon"
    wide = _router(str(tiny_model), rerank_tokens=None).retrieve(query, k=20)
    assert sum("rerank" in c.scores for c in wide.candidates) == 20
    budget = _router(str(tiny_model), rerank_tokens=400).retrieve(query, k=20)
    scored = sum("rerank" in c.scores for c in budget.candidates)
    assert 2 <= scored < 20
    # the routes past the budget keep fusion's order, after the reranked ones
    fused = _router(None).retrieve(query, k=20).route_ids
    assert budget.route_ids[scored:] == fused[scored:]


def test_router_takes_the_cli_words_for_the_reranker(tiny_model: Path) -> None:
    """``reranker="shipped"``, ``"none"`` and a folder, as ``--reranker`` takes them (#25)."""
    assert SchemaRouter(reranker="none", encoder=HashingEncoder()).reranker is None
    assert isinstance(SchemaRouter(reranker=str(tiny_model)).reranker, Reranker)
    model = Reranker.shipped()
    if model is None:
        pytest.skip("no shipped reranker in this checkout")
    r = SchemaRouter.from_catalog(BUNDLED_CATALOG, reranker=" Shipped ")
    assert r.reranker is model  # even where its card leaves it off by default
    assert r.retrieve("band gap of silicon", k=3).reranked
