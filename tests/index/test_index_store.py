"""Saving and loading an index: round trip, stale and corrupt files, atomic saves."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Registration
from schemarouter.errors import CorruptIndexError, IndexStoreError, StaleIndexError
from schemarouter.fingerprint import fingerprint
from schemarouter.index import HashingEncoder, HybridIndex, IndexSettings, store
from schemarouter.registry.registry import Registry

from helpers import openapi_document
from index_helpers import base_routes, make_route, registry_with

QUERIES = ["weather forecast", "band gap", "dew point", "날씨", "stock price"]


def results(index: HybridIndex) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    return [
        [(h.route_id, round(h.score, 9), h.matched_fields) for h in index.search(q, k=5)]
        for q in QUERIES
    ]


@pytest.fixture
def registry() -> Registry:
    return registry_with(base_routes())


@pytest.fixture
def saved(registry: Registry, tmp_path: Path) -> tuple[HybridIndex, Path]:
    index = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder())
    path = tmp_path / "index"
    index.save(path)
    return index, path


def data_file(path: Path, name: str) -> Path:
    return next(path.glob(f"gen-*/{name}"))


def test_round_trip_gives_the_same_results(
    saved: tuple[HybridIndex, Path], registry: Registry
) -> None:
    index, path = saved
    loaded = HybridIndex.load(path, registry.snapshot())
    assert results(loaded) == results(index)
    assert loaded.registry_fingerprint == index.registry_fingerprint
    assert loaded.registry_version == index.registry_version and len(loaded) == len(index)
    assert loaded.encoder_identity == "hashing-v1:dim=128"
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["registry_fingerprint"] == registry.snapshot().fingerprint
    assert all(len(f["sha256"]) == 64 for f in manifest["files"].values())
    # A loaded index keeps updating incrementally.
    registry.register(
        Registration(source="x", routes=(make_route("astro", "moons", "moons of a planet"),))
    )
    loaded.apply(registry.snapshot())
    assert loaded.search("moons of saturn", k=1)[0].route_id == "astro/rest/moons"


@pytest.mark.parametrize("codec", ["flat", "sq8"])
def test_hnsw_round_trip(registry: Registry, tmp_path: Path, codec: str) -> None:
    settings = IndexSettings(hnsw_threshold=3, hnsw_codec=codec)
    index = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder(), settings=settings)
    index.save(tmp_path / "hnsw")
    assert list(tmp_path.glob("hnsw/gen-*/endpoint_hnsw.faiss"))
    loaded = HybridIndex.load(tmp_path / "hnsw", registry.snapshot())
    assert loaded.describe()["endpoint_index"] == "hnsw"
    assert results(loaded) == results(index)


def test_stale_fingerprint_is_refused(saved: tuple[HybridIndex, Path], registry: Registry) -> None:
    _, path = saved
    registry.remove(provider="tmdb")
    with pytest.raises(StaleIndexError, match="registry"):
        HybridIndex.load(path, registry.snapshot())


def test_stale_refusal_says_which_routes_differ(
    saved: tuple[HybridIndex, Path], registry: Registry
) -> None:
    """Another registry at the same version: the refusal names what was added, removed and
    changed, not two equal version numbers."""
    _, path = saved
    routes = [r for r in base_routes() if r.provider.id != "tmdb"]
    routes[0] = make_route("weather", "forecast", "Hourly weather forecast for a city")
    routes.append(make_route("astro", "moons", "moons of a planet"))
    other = registry_with(routes).snapshot()
    assert other.version == registry.snapshot().version
    with pytest.raises(StaleIndexError) as refused:
        HybridIndex.load(path, other)
    what = refused.value.what
    assert "version" not in what
    assert "1 route added (astro/rest/moons)" in what
    assert "removed (tmdb/rest/" in what
    assert "1 route changed (weather/rest/forecast: provider, endpoint)" in what
    assert "Rebuild" in str(refused.value.hint)


@pytest.mark.parametrize("name", ["routes.json", "endpoint_vectors.npy"])
def test_a_damaged_folder_is_corrupt_whether_or_not_the_registry_matches(
    saved: tuple[HybridIndex, Path], registry: Registry, name: str
) -> None:
    """routes.json cut in half, opened by a registry one provider short: the refusal was
    "the current registry's N routes have another fingerprint" (false), and its hint sent
    the operator to sync=True (user trial O); the damaged file is named first."""
    _, path = saved
    file = data_file(path, name)
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    registry_short = registry_with([r for r in base_routes() if r.provider.id != "tmdb"])
    for snapshot in (registry_short.snapshot(), registry.snapshot()):
        for sync in (False, True):
            with pytest.raises(CorruptIndexError, match=f"index file gen-[0-9a-f]+/{name} has"):
                HybridIndex.load(path, snapshot, sync=sync)


def test_stale_refusal_says_which_part_of_a_changed_route_moved(tmp_path: Path) -> None:
    """The same route ids under a provider shown as ``Weather`` and as ``weather`` (a CLI
    build and a Python replica, user trial O): the refusal said only "1 route changed";
    it says the provider moved, and an access path that moved is named as such."""
    routes = [make_route("weather", "forecast", "Weather forecast for a city", display="Weather")]
    HybridIndex.build(registry_with(routes).snapshot(), encoder=HashingEncoder()).save(
        tmp_path / "index"
    )
    renamed = [make_route("weather", "forecast", "Weather forecast for a city", display="weather")]
    with pytest.raises(StaleIndexError) as refused:
        HybridIndex.load(tmp_path / "index", registry_with(renamed).snapshot())
    assert "1 route changed (weather/rest/forecast: provider)" in refused.value.what
    moved = routes[0].model_copy(
        update={"access": routes[0].access.model_copy(update={"base_url": "https://x.org"})}
    )
    moved = type(moved).build(moved.provider, moved.access, moved.endpoint)
    with pytest.raises(StaleIndexError) as refused:
        HybridIndex.load(tmp_path / "index", registry_with([moved]).snapshot())
    assert "1 route changed (weather/rest/forecast: access path)" in refused.value.what


def test_sync_brings_an_index_of_another_registry_to_this_one(
    saved: tuple[HybridIndex, Path],
    registry: Registry,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``sync=True``: routes no longer registered are dropped, new and changed ones
    embedded; it answers as the saved index loaded and then applied does, and says what
    differed."""
    _, path = saved
    routes = [r for r in base_routes() if r.provider.id != "tmdb"]
    routes[0] = make_route("weather", "forecast", "Hourly weather forecast for a city")
    routes.append(make_route("astro", "moons", "moons of a planet"))
    other = registry_with(routes).snapshot()
    with caplog.at_level("INFO", logger="schemarouter.index.hybrid"):
        caught_up = HybridIndex.load(path, other, sync=True)
    caught_up.check_current(other)  # raises StaleIndexError where it does not reflect it
    applied = HybridIndex.load(path, registry.snapshot())
    applied.apply(other)
    assert results(caught_up) == results(applied)
    assert sorted(caught_up.route_ids) == sorted(other.routes)
    assert caught_up.search("moons of saturn", k=1)[0].route_id == "astro/rest/moons"
    assert "1 route added (astro/rest/moons)" in caplog.text
    assert "1 route changed (weather/rest/forecast)" in caplog.text
    # saved again, it loads against this registry without catching up
    caught_up.save(tmp_path / "again")
    assert results(HybridIndex.load(tmp_path / "again", other)) == results(applied)
    # the encoder is still checked
    with pytest.raises(StaleIndexError, match="embedded with"):
        HybridIndex.load(path, other, encoder=HashingEncoder(dim=64), sync=True)


def test_another_encoder_is_refused(saved: tuple[HybridIndex, Path], registry: Registry) -> None:
    _, path = saved
    with pytest.raises(StaleIndexError, match="embedded with"):
        HybridIndex.load(path, registry.snapshot(), encoder=HashingEncoder(dim=64))


@pytest.mark.parametrize(
    "name", ["docs_route.npy", "lexical_vocab.json", "endpoint_vectors.npy", "routes.json"]
)
def test_truncated_file_is_corrupt(
    saved: tuple[HybridIndex, Path], registry: Registry, name: str
) -> None:
    _, path = saved
    file = data_file(path, name)
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    with pytest.raises(CorruptIndexError, match="truncated") as caught:
        HybridIndex.load(path, registry.snapshot())
    # what to run, from the shell or in Python (trial X2: "Rebuild the index", no command)
    assert "`schemarouter index build SOURCES --out FOLDER`" in str(caught.value)
    assert "router.index.save(FOLDER)" in str(caught.value)


@pytest.mark.parametrize("name", ["lexical_tf_data.npy", "field_vectors.npy", "field_keys.json"])
def test_tampered_file_is_corrupt(
    saved: tuple[HybridIndex, Path], registry: Registry, name: str
) -> None:
    _, path = saved
    file = data_file(path, name)
    data = bytearray(file.read_bytes())
    data[-3] ^= 0x01  # same size, one bit flipped
    file.write_bytes(bytes(data))
    with pytest.raises(CorruptIndexError, match="sha256"):
        HybridIndex.load(path, registry.snapshot())


def test_missing_files_and_folders_are_corrupt(
    saved: tuple[HybridIndex, Path], registry: Registry, tmp_path: Path
) -> None:
    _, path = saved
    with pytest.raises(CorruptIndexError, match="no index here: the folder does not exist"):
        HybridIndex.load(tmp_path / "nowhere", registry.snapshot())
    data_file(path, "docs_vec.npy").unlink()
    with pytest.raises(CorruptIndexError, match="missing"):
        HybridIndex.load(path, registry.snapshot())


def test_edited_or_garbled_manifest_is_corrupt(
    saved: tuple[HybridIndex, Path], registry: Registry
) -> None:
    _, path = saved
    manifest_file = path / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["settings"]["field_weight"] = 0.9
    manifest_file.write_text(json.dumps(manifest))
    with pytest.raises(CorruptIndexError, match="altered"):
        HybridIndex.load(path, registry.snapshot())
    manifest_file.write_text("{not json")
    with pytest.raises(CorruptIndexError, match="unreadable"):
        HybridIndex.load(path, registry.snapshot())


def test_crash_mid_save_leaves_the_previous_index_loadable(
    saved: tuple[HybridIndex, Path], registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, path = saved
    before = results(index)
    registry.register(
        Registration(source="x", routes=(make_route("astro", "moons", "moons of a planet"),))
    )
    snapshot_before = registry_with(base_routes()).snapshot()
    index.apply(registry.snapshot())
    calls = {"n": 0}
    real = store._write_array

    def crash_on_third(file: Path, array: np.ndarray) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full (simulated)")
        real(file, array)

    monkeypatch.setattr(store, "_write_array", crash_on_third)
    with pytest.raises(IndexStoreError, match=r"cannot write the index: disk full \(simulated"):
        index.save(path)
    assert results(HybridIndex.load(path, snapshot_before)) == before
    assert not list(path.glob(".tmp-*"))
    monkeypatch.setattr(store, "_write_array", real)

    # A crash after the new generation is written but before the manifest is replaced.
    real_write = store._fsync_write

    def crash_on_manifest(file: Path, data: bytes) -> None:
        if "manifest" in file.name:
            raise KeyboardInterrupt
        real_write(file, data)

    monkeypatch.setattr(store, "_fsync_write", crash_on_manifest)
    with pytest.raises(KeyboardInterrupt):
        index.save(path)
    assert results(HybridIndex.load(path, snapshot_before)) == before
    monkeypatch.setattr(store, "_fsync_write", real_write)

    index.save(path)  # a good save commits and cleans up older generations
    assert len(list(path.glob("gen-*"))) == 1
    loaded = HybridIndex.load(path, registry.snapshot())
    assert loaded.search("moons", k=1)[0].route_id == "astro/rest/moons"
    with pytest.raises(StaleIndexError):
        HybridIndex.load(path, snapshot_before)


def test_refuses_to_save_over_unrelated_files(
    saved: tuple[HybridIndex, Path], tmp_path: Path
) -> None:
    index, _ = saved
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(IndexStoreError, match="not empty"):
        index.save(other)
    with pytest.raises(IndexStoreError, match="file"):
        index.save(other / "notes.txt")
    assert (other / "notes.txt").read_text() == "mine"


def test_index_settings_a_saved_index_does_not_use_are_a_warning(
    saved: tuple[HybridIndex, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """``SchemaRouter(index=DIR, index_settings=...)`` searched with the saved index's own
    settings without a word (trial K, suggestion 10)."""
    from schemarouter import SchemaRouter

    _, path = saved
    router = SchemaRouter(
        index=path,
        index_settings=IndexSettings(fusion="rrf", lexical_weight=0.9),
        embedding_cache=None,
        abstention=None,
    )
    for route in base_routes():
        router.registry.register(Registration(source="x", routes=(route,)))
    with caplog.at_level("WARNING", logger="schemarouter.router"):
        router.build_index()
    # the router's record (the store also says the index's encoder is not the default's)
    (record,) = [r for r in caplog.records if r.name == "schemarouter.router"]
    assert "fusion" in record.getMessage() and "lexical_weight" in record.getMessage()
    assert router.index.settings.fusion != "rrf"  # the index's own, as documented


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("name", ["endpoint_vectors.npy", "field_vectors.npy"])
def test_non_finite_vectors_are_a_corrupt_index(
    saved: tuple[HybridIndex, Path], registry: Registry, name: str, value: float
) -> None:
    """Vectors all NaN with the file's sha256 and the manifest re-signed (a writer or an
    encoder that produced NaN): the index loaded, dense search returned nothing and hybrid
    scores fell by half, with only a numpy RuntimeWarning (user trial O)."""
    _, path = saved
    file = data_file(path, name)
    vectors = np.load(file)
    vectors[0, 0] = value
    np.save(file, vectors, allow_pickle=False)
    manifest = json.loads((path / "manifest.json").read_text())
    entry = manifest["files"][f"{file.parent.name}/{name}"]
    entry.update(sha256=store._sha256(file), bytes=file.stat().st_size)
    manifest["checksum"] = store._manifest_checksum(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CorruptIndexError, match="vectors hold values that are not finite"):
        HybridIndex.load(path, registry.snapshot())


@pytest.mark.parametrize("where", ["top", "bm25"])
def test_an_index_another_version_wrote_is_named_so_not_corrupt(
    saved: tuple[HybridIndex, Path], registry: Registry, where: str
) -> None:
    """Upgrade trial V: the release of 2026-11-30 loading an index this one saved said
    ``[SR302] index files are inconsistent: unknown settings ['hnsw_codec'] ... Rebuild the
    index``: a corrupt folder, with no word of versions. This release said the same of an
    index whose manifest (re-signed, as a later release writes it) has a setting it does not
    know: it is stale, written by another version, and the message names the setting."""
    _, path = saved
    manifest = json.loads((path / "manifest.json").read_text())
    if where == "top":
        manifest["settings"]["hnsw_future_codec"] = "pq4"
    else:
        manifest["settings"]["bm25"]["k3"] = 7.0
    manifest["schemarouter_version"] = "9.0.0"
    manifest["checksum"] = store._manifest_checksum(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StaleIndexError) as refused:
        HybridIndex.load(path, registry.snapshot())
    message = str(refused.value)
    assert "written by another version of SchemaRouter (9.0.0" in message
    assert ("hnsw_future_codec" if where == "top" else "bm25.k3") in message
    assert "schemarouter index build" in refused.value.hint
    assert refused.value.other_version == "9.0.0"


def test_an_index_opened_before_anything_is_registered_says_to_register_its_sources(
    tmp_path: Path,
) -> None:
    """Trial W1: ``SchemaRouter(index=DIR)`` and a query before registering the sources said
    "6 routes removed ... Rebuild it, or load it with sync=True", which would make an empty
    index: the sources had never been registered in that process."""
    document = openapi_document(
        "Weather",
        {
            "/forecast": {
                "get": {
                    "operationId": "getForecast",
                    "summary": "Daily weather forecast for a city",
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    )
    builder = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    builder.add_openapi(document, provider="weather")
    builder.build_index()
    builder.index.save(tmp_path / "index")
    # the index keeps its registry (trial Z2): registered from it on first use
    router = SchemaRouter(index=tmp_path / "index", encoder=HashingEncoder(), embedding_cache=None)
    assert router.retrieve("weather forecast", k=1).route_ids == ("weather/rest/get_forecast",)
    # an index saved without it (an older version) says so, and what to do
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    manifest["files"] = {k: v for k, v in manifest["files"].items() if "registry" not in k}
    manifest["checksum"] = fingerprint({k: v for k, v in manifest.items() if k != "checksum"})
    (tmp_path / "index" / "manifest.json").write_text(json.dumps(manifest))
    router = SchemaRouter(index=tmp_path / "index", encoder=HashingEncoder(), embedding_cache=None)
    with pytest.raises(IndexStoreError, match="holds no registry") as refused:
        router.retrieve("weather forecast", k=1)
    assert str(refused.value.hint).startswith("Give the sources it was built from")
    # what it says to do works
    router.add_openapi(document, provider="weather")
    assert router.retrieve("weather forecast", k=1).route_ids == ("weather/rest/get_forecast",)
    # a registry that differs otherwise reads as before
    with pytest.raises(StaleIndexError) as refused:
        HybridIndex.load(tmp_path / "index", registry_with(base_routes()).snapshot())
    assert "Rebuild it" in str(refused.value.hint)
