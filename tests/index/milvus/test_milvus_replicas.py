"""Replicas of one deployment on a shared Milvus collection (Milvus Lite, one file): a
writer that changes the collection after a replica opened it is noticed (user trial O)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schemarouter.errors import StaleIndexError
from schemarouter.index import HashingEncoder, MilvusIndex

from index_helpers import base_routes, registry_with

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


def test_a_replica_refuses_once_another_writer_moved_the_collection(tmp_path: Path) -> None:
    """The writer removed a provider; the replica, which still has it registered, answered
    from the smaller collection without a word, while a new replica was refused."""
    encoder = HashingEncoder(64)
    path = str(tmp_path / "routes.db")
    full = registry_with(base_routes()).snapshot()
    writer = MilvusIndex(path, collection="shared", encoder=encoder, stale_check_s=0).open(full)
    replica = MilvusIndex(path, collection="shared", encoder=encoder, stale_check_s=2.0)
    replica.open(full)
    assert replica.search("movie release date", k=1)[0].route_id == "tmdb/rest/search_movie"
    checked = time.monotonic()  # the replica read the collection's fingerprint by now
    smaller = registry_with([r for r in base_routes() if r.provider.id != "tmdb"]).snapshot()
    writer.apply(smaller)
    # within the interval it answers as it did (one metadata read per interval at most; a
    # loaded machine may take the whole interval to apply, and then there is none left) ...
    if time.monotonic() - checked < 1.5:
        replica.search("movie release date", k=1)
    time.sleep(2.1)
    # ... then it reads the collection's fingerprint again and refuses, as a new one is
    with pytest.raises(StaleIndexError) as caught:
        replica.search("movie release date", k=1)
    message = str(caught.value)
    assert "was changed by another writer after this router opened it" in message
    assert f"now holds registry version {smaller.version} ({len(smaller)} routes)" in message
    assert f"({len(full)} routes)" in message
    with pytest.raises(StaleIndexError):  # it stays refused, not only once
        replica.search("weather forecast", k=1)
    with pytest.raises(StaleIndexError, match="built for registry version"):
        MilvusIndex(path, collection="shared", encoder=encoder).open(full)
    # the writer brings the collection back: the replica answers again at its next read
    writer.apply(full)
    time.sleep(2.1)
    assert replica.search("movie release date", k=1)[0].route_id == "tmdb/rest/search_movie"
    # the writer's own updates are never taken for another writer's
    writer.apply(smaller)
    assert writer.search("weather forecast", k=1)[0].route_id == "weather/rest/forecast"
