"""Who closes a Milvus client: ``router.close()`` (and ``with SchemaRouter(...)``) closes
the client of an index the router opened from a ``milvus://`` URI; an index object passed
in belongs to its owner and stays open. An index not yet opened answers ``isinstance``."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder, MilvusIndex
from schemarouter.index.backend import DeferredIndex, RouteIndex

from index_helpers import base_router

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

_names = itertools.count()


@pytest.fixture(scope="module")
def lite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("milvus_closing") / "routes.db"


def _router(index: object) -> SchemaRouter:
    return base_router(index)


def test_closing_the_router_closes_the_milvus_client_it_opened(lite_file: Path) -> None:
    """``router.close()`` closed the MCP sessions only: the pymilvus client of the index the
    router opened from its ``milvus://`` URI stayed connected."""
    uri = f"milvus+lite://{lite_file}?collection=closing_{next(_names)}"
    with _router(uri) as router:
        assert router.retrieve("weather forecast temperature", k=1).route_ids
        index = router.index
        assert isinstance(index, MilvusIndex)
        client = index._client
        assert client is not None and client._handler is not None
    assert client._handler is None  # pymilvus's own "closed"
    assert index._client is None
    second = _router(uri)
    second.retrieve("movie release date", k=1)
    client = second.index._client  # type: ignore[attr-defined]
    second.close()
    assert client._handler is None
    second.close()  # closing twice is harmless


def test_an_index_passed_in_stays_open_for_its_owner(lite_file: Path) -> None:
    """The router closes what it opened itself; a ``MilvusIndex`` the caller made is the
    caller's to close (it may serve other routers)."""
    mine = MilvusIndex(str(lite_file), collection=f"owned_{next(_names)}")
    with _router(mine) as router:
        assert router.retrieve("weather forecast temperature", k=1).route_ids
        assert router.index is mine
    assert mine._client is not None and mine._client._handler is not None
    client = mine._client
    mine.close()
    assert client._handler is None


def test_an_index_not_opened_yet_answers_isinstance(lite_file: Path) -> None:
    """``isinstance(MilvusIndex(...), RouteIndex)`` raised ValueError on Python 3.11 (the
    protocol check reads ``encoder_identity``, which needed the encoder ``open`` sets)."""
    closed = MilvusIndex(str(lite_file), collection=f"unopened_{next(_names)}")
    assert isinstance(closed, RouteIndex)
    assert isinstance(closed, DeferredIndex)
    assert closed.encoder_identity == ""  # nothing known before open
    given = MilvusIndex(str(lite_file), collection="x", encoder=HashingEncoder(64))
    assert isinstance(given, RouteIndex)
    assert given.encoder_identity == HashingEncoder(64).identity
    with pytest.raises(ValueError, match="not open yet"):
        closed.encoder  # noqa: B018 - the encoder itself still needs open
