"""A catalog folder holding a saved index's ``manifest.json`` where no index is (copied
there by mistake with a catalog, or an index folder reused for catalog files): its YAML
catalog files are still read, and where only its JSON files were skipped, the error says
which manifest made them an index's (trial T5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.index.build import build_index

from helpers import TINY_CATALOG


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    """A real saved index's manifest.json."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "catalog.yaml").write_text(TINY_CATALOG, "utf-8")
    out = tmp_path / "built"
    build_index([source], out, progress=False, encoder=HashingEncoder(), cache=False)
    return out / "manifest.json"


def test_a_stray_manifest_does_not_drop_the_yaml_catalog_files_of_its_folder(
    tmp_path: Path, manifest: Path
) -> None:
    """A manifest.json copied into catalogs/lab with the lab's catalog: every file of the
    folder was skipped as an index's, without a word (18 files of the bundled catalog
    became 17; a catalog of one folder failed "no catalog files ... in folder")."""
    catalogs = tmp_path / "catalogs"
    (catalogs / "lab").mkdir(parents=True)
    (catalogs / "lab" / "catalog.yaml").write_text(TINY_CATALOG, "utf-8")
    shutil.copy(manifest, catalogs / "lab" / "manifest.json")
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    router.add_catalog(catalogs)
    assert len(router.snapshot()) > 0


def test_json_catalog_files_skipped_for_a_manifest_are_named_in_the_error(
    tmp_path: Path, manifest: Path
) -> None:
    catalogs = tmp_path / "catalogs"
    catalogs.mkdir()
    (catalogs / "catalog.json").write_text(json.dumps(yaml.safe_load(TINY_CATALOG)), "utf-8")
    shutil.copy(manifest, catalogs / "manifest.json")
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    with pytest.raises(DocumentError) as caught:
        router.add_catalog(catalogs)
    said = str(caught.value)
    assert "2 JSON files are a saved index's" in said, said
    assert f"{catalogs} holds its manifest.json" in said
    assert "move a manifest.json that is no index's out of it" in said
