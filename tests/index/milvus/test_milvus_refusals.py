"""What a Milvus index says where it refuses (a real Milvus Lite engine on a temporary file):
a ``save`` to a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter.errors import ArgumentError
from schemarouter.index import HashingEncoder, MilvusIndex

from index_helpers import base_routes, registry_with

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


def test_save_on_a_milvus_index_is_a_coded_error_and_index_build_names_a_stray_out(
    tmp_path: Path, tiny_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``MilvusIndex.save(DIR)`` (the call a ``HybridIndex`` takes, as in
    ``router.build_index().save(DIR)``) raised ``AttributeError``; ``index build --backend
    milvus --out DIR`` checked DIR, then wrote no folder without a word."""
    from schemarouter import SchemaRouter
    from schemarouter.cli import main

    lite = tmp_path / "routes.db"
    index = MilvusIndex(str(lite), collection="saved", encoder=HashingEncoder(64))
    out = tmp_path / "folder"
    router = SchemaRouter(
        registry=registry_with(base_routes()),
        encoder=HashingEncoder(64),
        index=f"milvus+lite://{lite}?collection=router",
        abstention=None,
        reranker=None,
        embedding_cache=None,
    )
    for call in (
        lambda: index.save(out),  # before it is opened: nothing connects
        lambda: index.open(registry_with(base_routes()).snapshot()).save(out),
        lambda: router.build_index().save(out),
    ):
        with pytest.raises(ArgumentError) as caught:
            call()
        error = caught.value
        assert error.code == "SR001"
        assert "already persistent" in str(error) and str(lite) in str(error.where)
        assert "schemarouter index build SOURCES --out DIR" in str(error.hint)
        assert not out.exists()
    build = ["index", "build", str(tiny_catalog), "--backend", "milvus", "--quiet"]
    uri = f"milvus+lite://{lite}?collection=cli"
    assert main([*build, "--uri", uri, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "indexed 2 routes" in captured.out
    assert (
        "warning: --out only applies to the in-process backend; ignored for --backend milvus "
        "(the collection at --uri is the index, kept by Milvus; " in captured.err
    )
    assert not out.exists()
    assert main([*build, "--uri", uri]) == 0
    assert "warning" not in capsys.readouterr().err
