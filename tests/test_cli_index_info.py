"""``schemarouter index info DIR`` on a folder whose files no longer match its manifest
(user trial Y3): an operator inspecting a folder the replicas refuse was told all was well."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from schemarouter.cli import main


def built(catalog: Path, out: Path) -> dict[str, object]:
    assert main(["index", "build", str(catalog), "--out", str(out), "--quiet"]) == 0
    manifest: dict[str, object] = json.loads((out / "manifest.json").read_text())
    return manifest


def test_index_info_checks_the_files_against_the_manifest(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, ``index info`` read the manifest only: a folder with a truncated vector file
    printed its generation and routes and exited 0, while every ``serve --index`` and
    ``retrieve --index`` of it failed with ``[SR302]``."""
    out = tmp_path / "index"
    manifest = built(tiny_catalog, out)
    capsys.readouterr()
    assert main(["index", "info", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"files: {len(manifest['files'])} checked against the manifest" in said  # type: ignore[arg-type]

    vectors = out / str(manifest["generation"]) / "field_vectors.npy"
    with vectors.open("r+b") as handle:
        handle.truncate(64)
    assert main(["index", "info", str(out)]) == 1
    out_text, err = capsys.readouterr()
    assert f"generation {manifest['generation']}" in out_text  # what it is, still shown
    assert "[SR302]" in err and "field_vectors.npy has 64 bytes, the manifest says" in err
    assert f"schemarouter index build SOURCES --out {out}" in err  # what to do

    assert main(["index", "info", str(out), "--json"]) == 1
    info = json.loads(capsys.readouterr().out)
    assert info["generation"] == manifest["generation"]
    assert info["damaged"]["code"] == "SR302"
    assert "field_vectors.npy" in info["damaged"]["error"]


def test_index_info_names_a_generation_swapped_in_from_another_build(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A generation folder copied over from another build (a restore that mixed two
    nights): same file names, other bytes."""
    first, second = tmp_path / "first", tmp_path / "second"
    manifest = built(tiny_catalog, first)
    other = built(tiny_catalog, second)
    generation = first / str(manifest["generation"])
    shutil.rmtree(generation)
    shutil.copytree(second / str(other["generation"]), generation)
    routes = generation / "routes.json"
    routes.write_text(routes.read_text().replace("]", " ]", 1))  # another build's bytes
    capsys.readouterr()
    assert main(["index", "info", str(first)]) == 1
    err = capsys.readouterr().err
    assert "[SR302]" in err and "routes.json" in err


def test_index_info_of_a_folder_without_an_index_says_the_command_that_builds_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "Build one with `schemarouter index build` or HybridIndex.save", a Python
    call, and no folder."""
    for folder in (tmp_path / "missing", tmp_path):
        assert main(["index", "info", str(folder)]) == 1
        err = capsys.readouterr().err
        assert "[SR302] no index here" in err
        assert f"schemarouter index build SOURCES --out {folder}`" in err
        assert "HybridIndex" not in err
