"""A Milvus Lite build killed while it wrote (user trial B): `kill -9` of `schemarouter index
build --backend milvus` part way, then the repair the refusal names (`sync=True`, or the
same `index build` again). Real files, a real Milvus Lite engine, a real killed process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.errors import CorruptIndexError
from schemarouter.index import HashingEncoder, MilvusIndex
from schemarouter.index.documents import route_documents
from schemarouter.index.settings import IndexSettings

from index_helpers import base_routes, registry_with

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

TESTS = Path(__file__).resolve().parents[2]
# a build whose process dies after its first write request of WRITE_BATCH rows
KILLED = """
import os, sys
sys.path.insert(0, sys.argv[2])
from index_helpers import base_routes, registry_with
from schemarouter.index import HashingEncoder, MilvusIndex
import schemarouter.index.milvus.index as milvus_index
milvus_index.WRITE_BATCH = int(sys.argv[3])
index = MilvusIndex(sys.argv[1], collection="routes", encoder=HashingEncoder(64))
client = index.client
insert = client.insert
def insert_then_die(*args, **kwargs):
    if getattr(client, "written", 0):
        os._exit(9)  # killed between two write requests
    client.written = 1
    return insert(*args, **kwargs)
client.insert = insert_then_die
index.open(registry_with(base_routes()).snapshot())
"""


def _rows(index: MilvusIndex) -> int:
    (row,) = index.client.query(index.name, filter="", output_fields=["count(*)"])
    return int(row["count(*)"])


def test_a_route_cut_off_by_a_killed_build_is_written_whole_by_the_repair(
    tmp_path: Path,
) -> None:
    """The first route's rows span two write requests (an endpoint document, then one per
    field). Killed after the first, the collection held that route's endpoint document and
    not all its field documents; the repair took the endpoint document for the whole route
    and never wrote the rest: the repaired collection held fewer documents than a fresh
    build (48,055 of 48,057 in the trial, after `kill -9` of a 4,231-route `index build`),
    and its metadata counted only what the repair wrote (46,007)."""
    snapshot = registry_with(base_routes()).snapshot()
    first = snapshot.routes[sorted(snapshot.routes)[0]]
    batch = len(route_documents(first, IndexSettings().limits)) - 1
    assert batch >= 1  # the first route does not fit in one write request
    path = tmp_path / "routes.db"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, str(path), str(TESTS), str(batch)],
        capture_output=True,
        timeout=240,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert killed.returncode == 9, killed.stderr[-2000:]
    encoder = HashingEncoder(64)
    with pytest.raises(CorruptIndexError, match="interrupted"):
        MilvusIndex(str(path), collection="routes", encoder=encoder).open(snapshot)
    repaired = MilvusIndex(str(path), collection="routes", encoder=encoder, sync=True)
    repaired.open(snapshot)
    fresh = MilvusIndex(str(tmp_path / "fresh.db"), collection="routes", encoder=encoder)
    fresh.open(snapshot)
    assert _rows(repaired) == _rows(fresh) == fresh.describe()["documents"]
    assert repaired.describe()["documents"] == fresh.describe()["documents"]
    # the cut-off route's field documents are found again, as in a fresh build
    for doc in route_documents(first, IndexSettings().limits)[1:]:
        hits = {h.route_id: h.matched_fields for h in repaired.search(doc.text, k=3)}
        assert doc.field in hits[first.route_id], doc.text
        assert hits == {h.route_id: h.matched_fields for h in fresh.search(doc.text, k=3)}
    repaired.close()
    fresh.close()
