"""A Milvus Lite file as an operator meets its problems (user trial O): a misspelt URI, a
folder that does not exist, a name without ``.db``, damaged data. Real files, a real
Milvus Lite engine (in a child process where the file is damaged, so its server does not
keep the good copy open)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.errors import ArgumentError, IndexBackendError
from schemarouter.index import HashingEncoder, MilvusIndex

from index_helpers import LITE_OPEN, base_routes, registry_with

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

TESTS = Path(__file__).resolve().parents[2]


def open_in_child(path: Path) -> tuple[str, str]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", LITE_OPEN, str(path), str(TESTS)],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )
    return done.stdout, done.stderr


def test_a_missing_folder_or_a_name_without_db_is_about_the_file(tmp_path: Path) -> None:
    """Both said "Check that the Milvus server is up and reachable (URI, token, network)"."""
    snapshot = registry_with(base_routes()).snapshot()
    missing = tmp_path / "no" / "such" / "routes.db"
    with pytest.raises(IndexBackendError) as caught:
        MilvusIndex(str(missing), encoder=HashingEncoder(64)).open(snapshot)
    assert f"the folder of the Milvus Lite file does not exist: {missing.parent}" in str(
        caught.value
    )
    assert "server" not in str(caught.value) and "Create the folder" in str(caught.value.hint)
    with pytest.raises(ArgumentError, match=r"must end in \.db, got 'routes\.txt'"):
        MilvusIndex(str(tmp_path / "routes.txt"), encoder=HashingEncoder(64)).open(snapshot)
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("damage", ["vector index", "schema"])
def test_damaged_milvus_lite_data_is_corrupt_with_a_rebuild_hint(
    tmp_path: Path, damage: str
) -> None:
    """A truncated vector index file: four engine tracebacks on stderr, then "Milvus failed
    while loading the collection: ... load it unsafely using the allow_pickle= keyword ...
    Check that the Milvus server is up"; a garbage schema.json the same."""
    path = tmp_path / "routes.db"
    out, _ = open_in_child(path)
    assert out.startswith("OK weather/rest/forecast"), out
    if damage == "schema":
        (path / "collections" / "routes" / "schema.json").write_text("garbage")
    else:
        (file,) = (path / "collections" / "routes").glob("partitions/*/indexes/*.idx")
        os.truncate(file, file.stat().st_size // 2)
    out, err = open_in_child(path)
    assert out.startswith("ERROR CorruptIndexError"), out
    assert "could not be read while" in out and "(damaged)" in out
    assert f"--uri milvus+lite://{path} --rebuild" in out and f"delete {path}" in out
    assert "allow_pickle" not in out and "server is up" not in out
    # Milvus Lite's own failed-request tracebacks ("LoadCollection failed: ...") stay off
    # stderr; pymilvus logs the failed call once on its own logger
    assert "Collection failed:" not in err and "site-packages/milvus_lite" not in err
    # the rebuild it names brings the collection back (a damaged schema: deleting it does)
    if damage == "vector index":
        code = LITE_OPEN.replace("index.open(snapshot)", "index.rebuild(snapshot)")
        subprocess.run([sys.executable, "-c", code, str(path), str(TESTS)], timeout=240)
        out, _ = open_in_child(path)
        assert out.startswith("OK weather/rest/forecast"), out


def test_a_single_file_db_is_named_as_such_not_as_damage(tmp_path: Path) -> None:
    """A .db that is a plain file (another program's, or another milvus-lite version's; this
    milvus-lite keeps a folder) got "Open local milvus failed ... where the file is damaged: Rebuild it (...
    --rebuild ...)", and that rebuild failed the same way."""
    path = tmp_path / "routes.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(100))
    for rebuild in (False, True):
        index = MilvusIndex(str(path), collection="routes", encoder=HashingEncoder(64))
        with pytest.raises(IndexBackendError) as caught:
            if rebuild:
                index.rebuild(registry_with(base_routes()).snapshot())
            else:
                index.open(registry_with(base_routes()).snapshot())
        said = str(caught.value)
        assert f"{path} is a file, not a Milvus Lite data folder" in said, said
        assert "another milvus-lite version" in said
        assert "Give a new .db path" in str(caught.value.hint)
        assert "--rebuild" not in said and "Open local milvus failed" not in said
    assert path.read_bytes().startswith(b"SQLite format 3")  # left as it was
