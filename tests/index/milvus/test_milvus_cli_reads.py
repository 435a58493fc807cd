"""`schemarouter retrieve --index URI` reads a Milvus collection; it never builds one (user
trial B). A real Milvus Lite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter.cli import main

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


def _collections(path: Path) -> list[str]:
    from pymilvus import MilvusClient

    from schemarouter.index.milvus.lite import lite_closed, lite_opened
    from schemarouter.index.milvus.rows import MilvusTarget

    target = MilvusTarget(str(path), "", "", "x", "Strong")
    lite_opened(target)  # counted, so closing it lets the file go as the CLI's does
    client = MilvusClient(uri=str(path))
    try:
        return sorted(client.list_collections())
    finally:
        client.close()
        lite_closed(target)


def test_retrieve_refuses_a_collection_that_does_not_exist_instead_of_building_it(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`retrieve --index "milvus+lite://.../routes.db?collection=acme_prd"` (a typo of
    acme_prod) answered as if all was well: it created collection acme_prd in the file and
    embedded and wrote every route of the sources into it, from a read command (on a cluster:
    a full copy written by a reader, the one-writer rule broken by a typo), where `retrieve
    --index DIR` refuses a folder with no index ("no index here")."""
    path = tmp_path / "routes.db"
    uri = f"milvus+lite://{path}"
    build = ["index", "build", str(tiny_catalog), "--backend", "milvus", "--quiet"]
    assert main([*build, "--uri", f"{uri}?collection=prod"]) == 0
    capsys.readouterr()
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index"]
    assert main([*argv, f"{uri}?collection=prd"]) == 1
    err = capsys.readouterr().err
    assert "no collection 'prd' here (the collections there: 'prod')" in err, err
    assert f"--uri milvus+lite://{path} --collection prd" in err
    assert _collections(path) == ["prod"]  # nothing written
    # the collection that exists is read as before
    assert main([*argv, f"{uri}?collection=prod"]) == 0
    assert "cod/rest/result" in capsys.readouterr().out
