"""Model folders given to the router: ``encoder=``, ``reranker=`` and ``ranking=`` each take
the folder its ``train-*`` command writes (the shipped ones under ``models/`` here), and a
folder of the wrong kind, or no folder, is refused when the router is built, with the coded
error that names the folder and what to pass."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.cli import build_parser
from schemarouter.errors import ArgumentError, ModelError
from schemarouter.index import OnnxEncoder
from schemarouter.index.encoders.onnx import ENCODER_FILES
from schemarouter.retrieval import learned, rerank
from schemarouter.retrieval.learned import RankingModel
from schemarouter.retrieval.rerank import Reranker
from schemarouter.shipped import shipped_folder

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")


def _shipped(name: str, files: tuple[str, ...]) -> Path:
    folder = shipped_folder(name, files)
    if folder is None:
        pytest.skip(f"no shipped {name} model in this checkout")
    return folder


@pytest.fixture(scope="module")
def encoder_folder() -> Path:
    """``models/encoder``: what ``schemarouter train-encoder`` writes."""
    return _shipped("encoder", ENCODER_FILES)


@pytest.fixture(scope="module")
def folders(encoder_folder: Path) -> dict[str, Path]:
    """Each kind's folder as its ``train-*`` command writes it: keyword -> folder."""
    return {
        "encoder": encoder_folder,
        "reranker": _shipped("reranker", rerank.MODEL_FILES),
        "ranking": _shipped("ranking", learned.MODEL_FILES),
    }


# -- encoder= ------------------------------------------------------------------------------


@pytest.mark.parametrize("as_type", [str, Path])
def test_router_takes_the_folder_of_a_trained_encoder(
    encoder_folder: Path, tiny_catalog: Path, as_type: type
) -> None:
    router = SchemaRouter(
        encoder=as_type(encoder_folder), embedding_cache=None, reranker=None, ranking=None
    )
    router.add_catalog(tiny_catalog)
    result = router.retrieve("band gap of silicon from the Materials Project", k=2)
    assert result.route_ids[0] == "matproj/rest/summary"
    # the index embeds with that folder's model, the identity OnnxEncoder(folder) has
    assert router.index.encoder_identity == OnnxEncoder(encoder_folder).identity


def test_an_encoder_folder_is_checked_when_the_router_is_built(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        SchemaRouter(encoder=tmp_path / "no-such-folder", embedding_cache=None)
    assert "the encoder folder lacks model.onnx" in caught.value.what
    assert caught.value.where == str(tmp_path / "no-such-folder")
    assert "schemarouter train-encoder" in (caught.value.hint or "")


def test_what_is_no_encoder_is_refused_when_the_router_is_built() -> None:
    with pytest.raises(ArgumentError) as caught:
        SchemaRouter(encoder=42, embedding_cache=None)  # type: ignore[arg-type]
    assert caught.value.where == "SchemaRouter(encoder=...)"
    assert "not int" in caught.value.what
    assert "encoder=FOLDER" in (caught.value.hint or "")


# -- a folder of another kind --------------------------------------------------------------

#: keyword -> what the error calls that kind, the command that writes it
KINDS = {
    "encoder": ("an encoder", "schemarouter train-encoder"),
    "reranker": ("a reranker", "schemarouter train-reranker"),
    "ranking": ("a ranking model", "schemarouter train-ranking"),
}


@pytest.mark.parametrize(
    ("keyword", "given"),
    [(k, g) for k in KINDS for g in KINDS if g != k],
)
def test_a_folder_of_another_kind_is_refused_when_the_router_is_built(
    folders: dict[str, Path], keyword: str, given: str
) -> None:
    folder = folders[given]
    with pytest.raises(ModelError) as caught:
        SchemaRouter(embedding_cache=None, **{keyword: str(folder)})  # type: ignore[arg-type]
    error = caught.value
    holds, wanted = KINDS[given][0], KINDS[keyword][0]
    assert error.what == (
        f"the folder holds {holds} (its card's name is schemarouter-{given}), not {wanted}"
    )
    assert error.where == str(folder)
    assert f"SchemaRouter({given}=FOLDER)" in (error.hint or "")
    assert f"`{KINDS[keyword][1]}`" in (error.hint or "")


@pytest.mark.parametrize(
    ("kind", "given"),
    [(OnnxEncoder, "reranker"), (Reranker, "encoder"), (RankingModel, "reranker")],
)
def test_each_model_class_refuses_a_folder_of_another_kind(
    folders: dict[str, Path], kind: type, given: str
) -> None:
    with pytest.raises(ModelError, match=f"the folder holds {KINDS[given][0]} "):
        kind(folders[given])


def _renamed(folder: Path, out: Path) -> Path:
    """A copy of ``folder`` whose card names no kind (a model of the user's own naming)."""
    shutil.copytree(folder, out)
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    card["name"] = "my-own-model"
    (out / "card.json").write_text(json.dumps(card), encoding="utf-8")
    return out


def test_an_encoder_given_a_rerankers_graph_says_so_not_onnxruntime(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    folder = _renamed(folders["reranker"], tmp_path / "rr")
    encoder = OnnxEncoder(folder)  # the card does not say what it is
    with pytest.raises(ModelError) as caught:
        encoder.encode(["band gap of silicon"])
    assert caught.value.what.startswith("the model has no output 'embedding' (its outputs: logits)")
    assert caught.value.where == str(folder / "model.onnx")
    assert "SchemaRouter(reranker=FOLDER)" in (caught.value.hint or "")


def test_a_reranker_given_an_encoders_graph_says_so_not_numpy(
    folders: dict[str, Path], tmp_path: Path, tiny_catalog: Path
) -> None:
    folder = _renamed(folders["encoder"], tmp_path / "enc")
    router = SchemaRouter(
        encoder=folders["encoder"], embedding_cache=None, reranker=folder, ranking=None
    )
    router.add_catalog(tiny_catalog)
    with pytest.raises(ModelError) as caught:
        router.retrieve("band gap of silicon", k=2)
    assert caught.value.what.startswith("the model's output 'embedding' (shape ['batch', 384])")
    assert caught.value.where == str(folder / "model.onnx")
    assert "SchemaRouter(encoder=FOLDER)" in (caught.value.hint or "")


# -- the hints name the command ------------------------------------------------------------


def _cli_commands() -> set[str]:
    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(commands.choices)


@pytest.mark.parametrize("kind", [OnnxEncoder, Reranker, RankingModel])
def test_a_model_folders_hint_names_the_command_that_writes_it(kind: type, tmp_path: Path) -> None:
    (tmp_path / "card.json").write_text('{"name": "mine"}', encoding="utf-8")
    with pytest.raises(ModelError, match="folder lacks") as caught:
        kind(tmp_path)  # a card of the user's own naming, the model's files missing
    hint = caught.value.hint or ""
    assert "python -m" not in hint
    command = re.search(r"`schemarouter ([a-z-]+)[ `]", hint)
    assert command is not None and command[1] in _cli_commands(), hint


def test_an_unreadable_ranking_model_says_to_retrain_it_with_the_cli_command(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "ranking"
    shutil.copytree(folders["ranking"], folder)
    (folder / "trees.npz").write_bytes(b"not an archive")
    with pytest.raises(ModelError, match="unreadable ranking model") as caught:
        SchemaRouter(ranking=folder, embedding_cache=None)
    assert caught.value.hint == "Retrain it with `schemarouter train-ranking`"


# -- a folder from another version ---------------------------------------------------------


def _edited(folder: Path, out: Path, **changes: object) -> Path:
    """A copy of ``folder`` whose card has ``changes``."""
    shutil.copytree(folder, out)
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    card.update(changes)
    (out / "card.json").write_text(json.dumps(card), encoding="utf-8")
    return out


@pytest.mark.parametrize("keyword", ["encoder", "reranker", "ranking"])
def test_a_model_folder_of_a_newer_card_format_is_refused_naming_both_versions(
    folders: dict[str, Path], tmp_path: Path, keyword: str
) -> None:
    """Trial U3: a model folder whose card said `"format": 99` (written by a later
    SchemaRouter) loaded as encoder, reranker and ranking model alike, and was used."""
    card = json.loads((folders[keyword] / "card.json").read_text(encoding="utf-8"))
    versions = {**card.get("versions", {}), "schemarouter": "9.0.0"}
    folder = _edited(folders[keyword], tmp_path / keyword, format=99, versions=versions)
    with pytest.raises(
        ModelError, match=r"card is format 99, written by SchemaRouter 9\.0\.0"
    ) as caught:
        SchemaRouter(**{keyword: folder}, embedding_cache=None)
    assert caught.value.where == str(folder / "card.json")
    assert "reads format 1 at most" in caught.value.what
    assert "Load it with the SchemaRouter that wrote it, or " in (caught.value.hint or "")


def test_a_reranker_trained_on_another_route_text_version_is_refused(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    """Trial U3: a reranker card records the version of the route text it was trained on
    (`route_text.version`, bumped whenever route_text writes routes differently), but the
    router never read it: a reranker of version 2's route text loaded and scored this
    version's texts."""
    card = json.loads((folders["reranker"] / "card.json").read_text(encoding="utf-8"))
    text = {**card["route_text"], "version": 2}
    folder = _edited(folders["reranker"], tmp_path / "rr", route_text=text)
    with pytest.raises(ModelError, match="trained on route text of version 2") as caught:
        SchemaRouter(reranker=folder, embedding_cache=None)
    assert f"writes version {rerank.ROUTE_TEXT_VERSION}" in caught.value.what
    assert caught.value.hint == "Retrain it with this version: `schemarouter train-reranker`"
    assert Reranker(folders["reranker"]).card["route_text"]["version"] == 1  # the shipped one loads
