"""What a Milvus index says where it refuses (a real Milvus Lite engine on a temporary file):
a ``save`` to a folder, a collection built for other routes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter.errors import ArgumentError, StaleIndexError
from schemarouter.index import HashingEncoder, MilvusIndex
from schemarouter.index.milvus.refusals import MAX_PARTS_BYTES, meta_parts
from schemarouter.index.milvus.rows import META_KEY
from schemarouter.registry.registry import RegistrySnapshot as Snapshot

from index_helpers import base_router, base_routes, make_route, registry_with

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


def test_save_on_a_milvus_index_is_a_coded_error_and_index_build_names_a_stray_out(
    tmp_path: Path, tiny_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``MilvusIndex.save(DIR)`` (the call a ``HybridIndex`` takes, as in
    ``router.build_index().save(DIR)``) raised ``AttributeError``; ``index build --backend
    milvus --out DIR`` checked DIR, then wrote no folder without a word."""
    from schemarouter.cli import main

    lite = tmp_path / "routes.db"
    index = MilvusIndex(str(lite), collection="saved", encoder=HashingEncoder(64))
    out = tmp_path / "folder"
    router = base_router(f"milvus+lite://{lite}?collection=router")
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


def _moved_registry() -> Snapshot:
    """``base_routes()`` with one provider renamed, one endpoint described anew, one route
    removed and five added."""
    routes = [r for r in base_routes() if r.provider.id != "korea"]
    routes[0] = make_route(
        "weather",
        "forecast",
        "Daily weather forecast for a city",
        {
            "temperature": "air temperature",
            "humidity": "relative humidity",
            "dew_point": "dew point of the air",
        },
        display="Weather Company",  # the provider moved, the endpoint did not
        aliases=("날씨", "天气"),
    )
    routes[2] = make_route(
        "tmdb",
        "search_movie",
        "Search films by their title",  # the endpoint moved, the provider did not
        {"title": "movie title", "release_date": "date of release"},
    )
    routes += [make_route(f"extra{n}", "lookup", f"Lookup number {n}") for n in range(5)]
    return registry_with(routes).snapshot()


DIFFERENCE = (
    "5 routes added (extra0/rest/lookup, extra1/rest/lookup, extra2/rest/lookup and 2 more); "
    "1 route removed (korea/rest/air_quality); 2 routes changed "
    "(tmdb/rest/search_movie: endpoint, weather/rest/forecast: provider)"
)


def test_a_stale_collection_names_the_routes_that_differ_and_the_part_that_moved(
    tmp_path: Path,
) -> None:
    """A collection built for other routes was refused with its registry version and route
    count only, where a saved folder's refusal names the routes that differ and which part
    of a changed route moved."""
    encoder = HashingEncoder(64)
    path = str(tmp_path / "routes.db")
    built = registry_with(base_routes()).snapshot()
    index = MilvusIndex(path, collection="routes", encoder=encoder).open(built)
    moved = _moved_registry()
    # opening it with other routes
    with pytest.raises(StaleIndexError) as caught:
        MilvusIndex(path, collection="routes", encoder=encoder).open(moved)
    message = str(caught.value)
    assert f"built for registry version {built.version} ({len(built)} routes)" in message
    assert f"compared with the collection, this registry has {DIFFERENCE}" in message
    assert "sync=True" in str(caught.value.hint)
    # a collection whose metadata keeps no part fingerprints for the routes it holds (one
    # written by an earlier version, or left by one that kept another writer's): the routes
    meta = json.loads(index.client.describe_collection("routes")["properties"][META_KEY])
    meta["parts"]["registry_fingerprint"] = "sha256:another"
    index.client.alter_collection_properties("routes", properties={META_KEY: json.dumps(meta)})
    with pytest.raises(StaleIndexError) as caught:
        MilvusIndex(path, collection="routes", encoder=encoder).open(moved)
    assert "2 routes changed (tmdb/rest/search_movie, weather/rest/forecast)" in str(caught.value)
    # the index asked whether it reflects other routes
    with pytest.raises(StaleIndexError) as caught:
        index.check_current(moved)
    assert f"compared with the collection, the snapshot has {DIFFERENCE}" in str(caught.value)
    index.check_current(built)


def test_a_replica_names_the_routes_another_writer_moved(tmp_path: Path) -> None:
    """A replica refused once another writer changed the collection, saying only how many
    routes each side has; it names the routes that differ now."""
    encoder = HashingEncoder(64)
    path = str(tmp_path / "routes.db")
    full = registry_with(base_routes()).snapshot()
    writer = MilvusIndex(path, collection="shared", encoder=encoder).open(full)
    replica = MilvusIndex(path, collection="shared", encoder=encoder, stale_check_s=0)
    replica.open(full)
    writer.apply(_moved_registry())
    with pytest.raises(StaleIndexError) as caught:
        replica.search("movie release date", k=1)
    message = str(caught.value)
    assert "was changed by another writer after this router opened it" in message
    assert (
        "compared with the collection, this router's registry has 1 route added "
        "(korea/rest/air_quality); 5 routes removed (extra0/rest/lookup, extra1/rest/lookup, "
        "extra2/rest/lookup and 2 more); 2 routes changed (tmdb/rest/search_movie: endpoint, "
        "weather/rest/forecast: provider)"
    ) in message
    writer.drop()
    with pytest.raises(StaleIndexError, match=r"now holds nothing \(it was dropped\)"):
        replica.search("movie release date", k=1)


def test_the_part_fingerprints_kept_in_the_metadata_are_bounded() -> None:
    """A collection property is read on every stale check and kept in the cluster's
    metadata store: past ``MAX_PARTS_BYTES`` the parts are left out (the routes are still
    named)."""
    few = registry_with(base_routes()).snapshot()
    parts = meta_parts(few)
    assert parts is not None and parts["registry_fingerprint"] == few.fingerprint
    assert set(parts["providers"]) == {r.provider.id for r in few.routes.values()}
    many = registry_with([make_route(f"p{n:04d}", "e", f"Endpoint {n}") for n in range(400)])
    assert len(json.dumps(meta_parts(few))) < MAX_PARTS_BYTES
    assert meta_parts(many.snapshot()) is None
