"""The Milvus index backend against a real engine: Milvus Lite on a temporary file.

One Milvus Lite server serves the whole session (each test writes its own collection);
the tests that stop the engine get a server of their own.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter.contracts import Effect, Registration
from schemarouter.errors import (
    CorruptIndexError,
    IndexBackendError,
    MissingDependencyError,
    StaleIndexError,
)
from schemarouter.index import HashingEncoder, HybridIndex, MilvusIndex, RouteFilter
from schemarouter.index.build import open_index
from schemarouter.index.milvus.rows import parse_milvus_uri
from schemarouter.index.tokenize import QueryText
from schemarouter.registry.registry import Registry

from index_helpers import base_routes, make_route, registry_with

pymilvus = pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

QUERIES = [
    "weather forecast temperature",
    "movie release date",
    "band gap of a material",
    "Young's modulus",
    "stock price in a currency",
    "translate this text",
    "서울 미세먼지",
    "humidity and dew point",
]
_names = itertools.count()


@pytest.fixture(scope="session")
def lite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("milvus") / "routes.db"


@pytest.fixture
def encoder() -> HashingEncoder:
    return HashingEncoder(64)


def milvus(lite_file: Path, encoder: HashingEncoder, **kwargs: Any) -> MilvusIndex:
    name = kwargs.pop("collection", f"t{next(_names)}")
    return MilvusIndex(str(lite_file), collection=name, encoder=encoder, **kwargs)


def top(index: Any, query: str, k: int = 5, **kwargs: Any) -> list[str]:
    return [h.route_id for h in index.search(query, k=k, **kwargs)]


def test_parity_with_the_in_process_index(lite_file: Path, encoder: HashingEncoder) -> None:
    """Same documents, same encoder, the router's fusion: the same routes in the same order,
    the same matched fields, the same abstention signal."""
    snapshot = registry_with(base_routes()).snapshot()
    local = HybridIndex.build(snapshot, encoder=encoder)
    remote = milvus(lite_file, encoder).open(snapshot)
    assert len(remote) == len(snapshot) and remote.registry_fingerprint == snapshot.fingerprint
    for query in QUERIES:
        mine, theirs = local.search(query, k=5), remote.search(query, k=5)
        assert [h.route_id for h in theirs] == [h.route_id for h in mine], query
        assert theirs[0].matched_fields == mine[0].matched_fields, query
        assert theirs[0].dense_score == pytest.approx(mine[0].dense_score, abs=1e-5)
        assert remote.known_token_share(query) == local.known_token_share(query)
        # the request tokenized once by the router reads the same in both backends
        text = QueryText.of(query)
        assert remote.search(text, k=5) == theirs and local.search(text, k=5) == mine
        assert remote.known_token_share(text) == local.known_token_share(text)
    for mode in ("lexical", "dense"):
        assert top(remote, "movie title", mode=mode)[0] == top(local, "movie title", mode=mode)[0]
    assert remote.known_token_share("zzqx vvkw") == 0.0
    # opening it again for the same registry (a router handed an opened index) costs nothing
    client, remote._client = remote._client, None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MilvusIndex, "client", property(lambda self: pytest.fail("reconnected")))
        assert remote.open(snapshot) is remote
    remote._client = client


@pytest.mark.parametrize("fusion", ["rrf", "weighted"])
def test_milvus_side_fusion_finds_the_obvious_route(
    lite_file: Path, encoder: HashingEncoder, fusion: str
) -> None:
    snapshot = registry_with(base_routes()).snapshot()
    remote = milvus(lite_file, encoder, fusion=fusion).open(snapshot)
    hits = remote.search("weather forecast temperature", k=3)
    assert hits[0].route_id == "weather/rest/forecast"
    assert "temperature" in hits[0].matched_fields
    assert hits[0].dense_score > 0.3 and hits[0].score > hits[1].score
    assert top(remote, "search movies by title", k=1) == ["tmdb/rest/search_movie"]


def test_before_open_and_on_rebuild(lite_file: Path, encoder: HashingEncoder) -> None:
    """Nothing runs before ``open``; ``open`` keeps the encoder it was given, ``rebuild``
    takes a new one; an unknown mode is refused as the in-process index refuses it."""
    snapshot = registry_with(base_routes()).snapshot()
    closed = milvus(lite_file, encoder)
    for attempt in (lambda: closed.search("weather"), lambda: closed.apply(snapshot)):
        with pytest.raises(ValueError, match="not open yet"):
            attempt()
    with pytest.raises(ValueError, match="not open yet"):
        MilvusIndex(str(lite_file), collection="none_yet").encoder  # noqa: B018
    remote = closed.open(snapshot, encoder=HashingEncoder(64))
    assert remote.encoder is encoder  # the one given at construction stays
    with pytest.raises(ValueError, match="unknown search mode 'fuzzy'"):
        remote.search("weather", mode="fuzzy")  # type: ignore[arg-type]
    other = HashingEncoder(32)
    rebuilt = remote.rebuild(snapshot, encoder=other)
    assert rebuilt.encoder is other and rebuilt.describe()["encoder"] == other.identity
    assert top(rebuilt.rebuild(snapshot), "weather forecast temperature", k=1) == [
        "weather/rest/forecast"
    ]
    assert rebuilt.encoder is other  # a rebuild without one keeps the current encoder


def test_incremental_add_replace_remove(lite_file: Path, encoder: HashingEncoder) -> None:
    registry = registry_with(base_routes())
    remote = milvus(lite_file, encoder).open(registry.snapshot())
    before = encoder.texts_encoded
    bikes = make_route("bikes", "stations", "Bike sharing stations nearby", {"docks": "free docks"})
    registry.register(Registration(source="t", routes=(bikes,)))
    stats = remote.apply(registry.snapshot())
    assert stats.encoded == 2 and encoder.texts_encoded - before == 2  # only the new route
    assert top(remote, "bike sharing docks", k=1) == [bikes.route_id]
    assert remote.known_token_share("bike") == 1.0
    # replace: the new text is found, the old one is gone
    renamed = make_route("bikes", "stations", "Scooter rental points", {"docks": "free docks"})
    registry.register(Registration(source="t", routes=(renamed,)), replace=True)
    remote.apply(registry.snapshot())
    assert top(remote, "scooter rental", k=1) == [bikes.route_id]
    assert bikes.route_id not in top(remote, "sharing nearby", k=10, mode="lexical")
    registry.remove(provider="bikes")
    remote.apply(registry.snapshot())
    assert bikes.route_id not in top(remote, "scooter rental docks", k=10)
    assert len(remote) == len(base_routes())
    # a fresh handle on the same collection agrees (nothing lived only in this process)
    again = milvus(lite_file, encoder, collection=remote.name).open(registry.snapshot())
    assert again.describe()["documents"] == remote.describe()["documents"]
    assert again._stored_fingerprint() == registry.snapshot().fingerprint
    local = HybridIndex.build(registry.snapshot(), encoder=encoder)
    for query in QUERIES:
        assert top(again, query) == top(local, query), query


def test_filters_match_the_in_process_index(lite_file: Path, encoder: HashingEncoder) -> None:
    routes = base_routes()
    routes[3] = routes[3].model_copy(
        update={"endpoint": routes[3].endpoint.model_copy(update={"effect": Effect.WRITE})}
    )
    snapshot = registry_with(routes).snapshot()
    local = HybridIndex.build(snapshot, encoder=encoder)
    remote = milvus(lite_file, encoder).open(snapshot)
    filters = [
        RouteFilter.of(providers=["tmdb", "stocks"]),
        RouteFilter.of(effects=["write"]),
        RouteFilter.of(access_kinds="http", providers=["weather", "korea"]),
        RouteFilter.of(source_types=["calculated"]),
        RouteFilter.of(providers=["nobody"]),
    ]
    for f in filters:
        for query in ("weather price movie", "band gap"):
            theirs = top(remote, query, k=6, filters=f)
            assert theirs == top(local, query, k=6, filters=f), (f, query)
            assert all(f.matches(snapshot.routes[r]) for r in theirs)
    assert top(remote, "stock price", filters=RouteFilter.of(effects="write")) == [
        routes[3].route_id
    ]
    assert top(remote, "movie", filters=RouteFilter.of(providers=["nobody"])) == []
    with pytest.raises(ValueError, match="'teleport'"):
        RouteFilter.of(effects=["teleport"])


def test_a_collection_for_another_registry_or_encoder_is_refused(
    lite_file: Path, encoder: HashingEncoder
) -> None:
    first = registry_with(base_routes()[:3]).snapshot()
    built = milvus(lite_file, encoder).open(first)
    other = registry_with(base_routes()).snapshot()
    with pytest.raises(StaleIndexError, match="built for registry version") as caught:
        milvus(lite_file, encoder, collection=built.name).open(other)
    assert "--rebuild" in str(caught.value) and "sync=True" in str(caught.value)
    with pytest.raises(StaleIndexError, match="embedded with 'hashing-v1:dim=64'"):
        milvus(lite_file, HashingEncoder(32), collection=built.name).open(first)
    # sync=True brings it to this registry instead
    synced = milvus(lite_file, encoder, collection=built.name, sync=True).open(other)
    assert synced.registry_fingerprint == other.fingerprint and len(synced) == len(other)
    assert top(synced, "translate this text", k=1) == ["translate/rest/translate_text"]
    # a collection SchemaRouter did not write is not taken over
    client = synced.client
    schema = client.create_schema(auto_id=True)
    schema.add_field("id", pymilvus.DataType.INT64, is_primary=True)
    schema.add_field("v", pymilvus.DataType.FLOAT_VECTOR, dim=2)
    client.create_collection("foreign", schema=schema)
    with pytest.raises(CorruptIndexError, match="not written by SchemaRouter"):
        milvus(lite_file, encoder, collection="foreign").open(first)


class FailingClient:
    """A real ``MilvusClient`` whose ``fail_on`` call first runs ``fault`` (a real stop of the
    engine, or an engine error), ``after`` calls of that method in."""

    def __init__(self, inner: Any, fail_on: str, fault: Any, after: int = 0) -> None:
        self.inner, self.fail_on, self.fault, self.after = inner, fail_on, fault, after

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if name != self.fail_on:
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            self.after -= 1
            if self.after == -1:
                self.fault()
            return method(*args, **kwargs)

        return call


def test_a_failed_update_is_rolled_back(lite_file: Path, encoder: HashingEncoder) -> None:
    registry = registry_with(base_routes())
    remote = milvus(lite_file, encoder).open(registry.snapshot())
    before = (remote.registry_fingerprint, len(remote), remote._stored_fingerprint())

    def engine_error() -> None:
        raise pymilvus.MilvusException(code=65535, message="injected: segment flush failed")

    routes = [make_route("bikes", f"op{i}", f"bike operation {i}") for i in range(3)]
    registry.register(Registration(source="t", routes=tuple(routes)))
    registry.remove(provider="stocks")
    remote._client = FailingClient(remote.client, "delete", engine_error)
    with pytest.raises(IndexBackendError, match="deleting old documents") as caught:
        remote.apply(registry.snapshot())
    assert caught.value.code == "SR303" and "injected" in str(caught.value)
    remote._client = remote._client.inner
    # nothing changed: same metadata, same stored routes, the new ones never searchable
    assert (remote.registry_fingerprint, len(remote), remote._stored_fingerprint()) == before
    assert "bikes" not in " ".join(top(remote, "bike operation", k=10))
    assert milvus(lite_file, encoder, collection=remote.name).open(
        registry_with(base_routes()).snapshot()
    )
    remote.apply(registry.snapshot())  # the engine is back: the same update goes through
    assert top(remote, "bike operation 1", k=1) == [routes[1].route_id]


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Path]:
    """A Milvus Lite server of this test's own (it gets stopped)."""
    from milvus_lite import server_manager_instance

    path = tmp_path / "own.db"
    yield path
    server_manager_instance.release_server(str(path))


def test_engine_gone_mid_update_is_detected_and_repaired(
    own_server: Path, encoder: HashingEncoder
) -> None:
    from milvus_lite import server_manager_instance

    registry = registry_with(base_routes())
    old = registry.snapshot()
    remote = MilvusIndex(str(own_server), encoder=encoder, timeout=5).open(old)
    renamed = make_route("tmdb", "search_movie", "Find films by their name", {"title": "name"})
    registry.register(Registration(source="t", routes=(renamed,)), replace=True)
    new = registry.snapshot()

    def stop_engine() -> None:
        server_manager_instance.release_server(str(own_server))

    remote._client = FailingClient(remote.client, "delete", stop_engine)
    with pytest.raises(IndexBackendError, match="Milvus failed while deleting"):
        remote.apply(new)
    assert remote.registry_fingerprint == old.fingerprint  # this handle did not move on
    # the engine comes back (a new server on the same file): the collection holds both
    # versions of the route, which match neither registry, and is refused until repaired
    for snapshot in (old, new):
        with pytest.raises(CorruptIndexError, match="interrupted"):
            MilvusIndex(str(own_server), encoder=encoder).open(snapshot)
    repaired = MilvusIndex(str(own_server), encoder=encoder, sync=True).open(new)
    assert repaired._stored_fingerprint() == new.fingerprint
    local = HybridIndex.build(new, encoder=encoder)
    for query in ["find films by name", *QUERIES]:
        assert top(repaired, query) == top(local, query), query


def test_unreachable_engine_is_a_typed_error(encoder: HashingEncoder) -> None:
    from schemarouter import SchemaRouter

    snapshot = registry_with(base_routes()).snapshot()
    with pytest.raises(IndexBackendError, match="Milvus failed while connecting") as caught:
        MilvusIndex("http://127.0.0.1:9", encoder=encoder, timeout=1).open(snapshot)
    assert "127.0.0.1:9" in str(caught.value) and "token" not in str(caught.value).split("(")[0]
    router = SchemaRouter(
        registry=registry_with(base_routes()),
        encoder=encoder,
        index="milvus://127.0.0.1:9/routes?token=secret-value",
        abstention=None,
        reranker=None,
    )
    with pytest.raises(IndexBackendError) as caught:
        router.retrieve("weather forecast")
    assert "secret-value" not in str(caught.value)


def test_router_on_milvus_returns_what_it_returns_in_process(
    lite_file: Path, encoder: HashingEncoder
) -> None:
    from schemarouter import SchemaRouter

    def router(**kwargs: Any) -> SchemaRouter:
        return SchemaRouter(
            registry=registry_with(base_routes()),
            encoder=encoder,
            abstention=None,
            reranker=None,
            embedding_cache=None,
            **kwargs,
        )

    local = router()
    uri = f"milvus+lite://{lite_file}?collection=router_{next(_names)}"
    remote = router(index=uri)
    for query in QUERIES:
        a, b = local.retrieve(query, k=3), remote.retrieve(query, k=3)
        assert b.route_ids == a.route_ids, query
        assert [c.matched_fields for c in b.candidates] == [c.matched_fields for c in a.candidates]
    assert isinstance(remote.index, MilvusIndex)
    # registrations reach the collection through the router's listener
    remote.registry.register(
        Registration(source="t", routes=(make_route("bikes", "docks", "Bike docks"),))
    )
    assert remote.retrieve("bike docks", k=1).route_ids[0] == "bikes/rest/docks"


def test_uris_and_the_missing_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert parse_milvus_uri("milvus://db.internal:19530/routes?consistency=Bounded") == {
        "uri": "http://db.internal:19530",
        "collection": "routes",
        "consistency_level": "Bounded",
    }
    assert parse_milvus_uri("milvus+https://cloud.example:443?token=t&db=prod") == {
        "uri": "https://cloud.example:443",
        "token": "t",
        "db_name": "prod",
    }
    assert parse_milvus_uri("milvus+lite:///srv/r.db?collection=c") == {
        "uri": "/srv/r.db",
        "collection": "c",
    }
    assert parse_milvus_uri("milvus+lite://rel/r.db")["uri"] == "rel/r.db"
    monkeypatch.setenv("MILVUS_TOKEN", "from-env")
    assert parse_milvus_uri("milvus://h:1")["token"] == "from-env"
    for bad in ("milvus://", "http://h:1", "milvus://h:1?colection=x"):
        with pytest.raises(ValueError):
            parse_milvus_uri(bad)
    monkeypatch.setitem(sys.modules, "pymilvus", None)
    with pytest.raises(MissingDependencyError, match=r"pip install -e .*\[milvus\]"):
        open_index(f"milvus+lite://{tmp_path}/x.db", Registry().snapshot())


def test_cli_builds_a_collection_and_retrieves_from_it(
    tiny_catalog: Path, lite_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from schemarouter.cli import main

    uri = f"milvus+lite://{lite_file}?collection=cli_{next(_names)}"
    build = ["index", "build", str(tiny_catalog), "--backend", "milvus", "--uri", uri]
    assert main([*build, "--quiet"]) == 0
    assert "indexed 2 routes" in capsys.readouterr().out
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", uri, "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["candidates"][0]["route_id"] == "cod/rest/result"
    other = tiny_catalog.with_name("other.yaml")
    other.write_text(tiny_catalog.read_text("utf-8").replace("Summary properties", "Other"))
    assert main(["retrieve", "cell volume", "--catalog", str(other), "--index", uri]) == 1
    assert "SR301" in capsys.readouterr().err
    assert main([*build, "--rebuild", "--quiet"]) == 0
    assert main(["index", "build", str(tiny_catalog), "--backend", "milvus"]) == 2


class _RequestReader(HashingEncoder):
    """An encoder with its own request path (as the cross-lingual bridge has)."""

    def __init__(self) -> None:
        super().__init__(64)
        self.requests: list[str] = []

    def encode_query(self, text: str) -> np.ndarray:
        self.requests.append(text)
        return self.encode([text])[0]


def test_requests_are_read_the_way_the_in_process_index_reads_them(lite_file: Path) -> None:
    """A request goes through the encoder's ``encode_query`` (where the bridge reads Korean),
    documents through ``encode``: on Milvus as in process."""
    snapshot = registry_with(base_routes()).snapshot()
    encoder = _RequestReader()
    remote = milvus(lite_file, encoder).open(snapshot)
    local = HybridIndex.build(snapshot, encoder=encoder)
    encoder.requests.clear()
    mine, theirs = local.search("서울 미세먼지", k=3), remote.search("서울 미세먼지", k=3)
    assert encoder.requests == ["서울 미세먼지", "서울 미세먼지"]
    assert [h.route_id for h in theirs] == [h.route_id for h in mine]
    remote.search("movie title", k=3, mode="lexical")
    assert len(encoder.requests) == 2  # a lexical search encodes nothing
