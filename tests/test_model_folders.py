"""Model folders given to the router: ``encoder=``, ``reranker=`` and ``ranking=`` each take
the folder its ``train-*`` command writes (the shipped ones under ``models/`` here), and a
folder of the wrong kind, or no folder, is refused when the router is built, with the coded
error that names the folder and what to pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ArgumentError, ModelError
from schemarouter.index import OnnxEncoder
from schemarouter.index.encoders.onnx import ENCODER_FILES
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
