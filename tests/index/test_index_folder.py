"""A saved index where it is deployed (user trial H): saves into one folder take turns, a
load that races a rebuild retries, a killed build blocks no retry, a folder that cannot be
written is refused before the build, an index of another encoder is stale (not corrupt),
symlinked data files load, an empty index path is refused."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter, __version__
from schemarouter.contracts import Registration
from schemarouter.errors import (
    ArgumentError,
    CorruptIndexError,
    IndexStoreError,
    StaleIndexError,
)
from schemarouter.index import HashingEncoder, HybridIndex, folder, store
from schemarouter.index.build import build_index
from schemarouter.registry.registry import Registry, RegistrySnapshot

from index_helpers import base_routes, make_route, registry_with
from servers.user_api import weather_openapi


@pytest.fixture
def registry() -> Registry:
    return registry_with(base_routes())


def _index(snapshot: RegistrySnapshot) -> HybridIndex:
    return HybridIndex.build(snapshot, encoder=HashingEncoder())


def _two_snapshots() -> tuple[RegistrySnapshot, RegistrySnapshot]:
    registry = registry_with(base_routes())
    first = registry.snapshot()
    registry.register(
        Registration(source="x", routes=(make_route("astro", "moons", "moons of a planet"),))
    )
    return first, registry.snapshot()


def _generations(path: Path) -> list[str]:
    return sorted(p.name for p in path.glob("gen-*"))


# -- F1: two saves into one folder ------------------------------------------------------------


def test_saves_into_one_folder_at_once_all_succeed_and_the_folder_loads(tmp_path: Path) -> None:
    """Each save deleted every generation but its own, the other save's too: both returned
    success and the folder held only manifest.json (or one save died with a
    FileNotFoundError on its own deleted temporary folder)."""
    first, second = _two_snapshots()
    indexes = [_index(first), _index(second), _index(first), _index(second)]
    for round_ in range(6):
        path = tmp_path / f"index{round_}"
        _index(first).save(path)  # an earlier deploy
        outcomes: list[Any] = [None] * len(indexes)
        barrier = threading.Barrier(len(indexes))

        def save(
            i: int,
            index: HybridIndex,
            out: list[Any] = outcomes,
            at: Path = path,
            start: threading.Barrier = barrier,
        ) -> None:
            start.wait()
            try:
                out[i] = index.save(at)
            except BaseException as exc:  # recorded for the assertion
                out[i] = exc

        threads = [threading.Thread(target=save, args=(i, x)) for i, x in enumerate(indexes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes == [path] * len(indexes), outcomes
        assert len(_generations(path)) == 1
        assert not list(path.glob(".tmp-*")) and not list(path.glob("*.tmp"))
        loaded = [HybridIndex.load(path, s) for s in (first, second) if _loads(path, s)]
        assert len(loaded) == 1  # the last save's registry, whole


def _loads(path: Path, snapshot: RegistrySnapshot) -> bool:
    try:
        HybridIndex.load(path, snapshot)
    except StaleIndexError:
        return False
    return True


def test_a_save_waits_while_another_writes_the_folder_and_gives_up_with_a_message(
    registry: Registry, tmp_path: Path
) -> None:
    first, second = _two_snapshots()
    path = tmp_path / "index"
    _index(first).save(path)
    done: list[Any] = []
    with folder.writing(path):  # another build is writing this folder
        waiting = threading.Thread(target=lambda: done.append(_index(second).save(path)))
        waiting.start()
        time.sleep(0.5)
        assert waiting.is_alive() and not done  # it waits its turn ...
        assert _loads(path, first)  # ... and the index in place is untouched meanwhile
        with pytest.raises(IndexStoreError, match="another save is writing this index folder"):
            store.save_index(_index(second)._saved(), path, wait=0.2)
    waiting.join(10)
    assert done == [path]
    assert _loads(path, second) and _generations(path) == [_generations(path)[0]]


# -- F4: what a killed build leaves ---------------------------------------------------------


def test_a_killed_builds_leftovers_block_no_retry(registry: Registry, tmp_path: Path) -> None:
    """A build killed while writing a new folder left ``.tmp-gen-*``, and every retry was
    refused: "the folder is not empty and holds no index"."""
    path = tmp_path / "index"
    path.mkdir()
    (path / ".tmp-gen-78552c7aaee3").mkdir()
    (path / ".tmp-gen-78552c7aaee3" / "routes.json").write_text("{")
    (path / "gen-0123456789ab").mkdir()  # renamed into place, killed before the commit
    (path / ".manifest.json.gen-0123456789ab.tmp").write_text("{")
    store.check_index_folder(path)  # nothing of anyone else's here
    _index(registry.snapshot()).save(path)
    assert sorted(p.name for p in path.iterdir() if not p.name.startswith("gen-")) == [
        ".lock",
        "manifest.json",
    ]
    assert len(_generations(path)) == 1
    HybridIndex.load(path, registry.snapshot())
    # a folder holding something else is still refused, and the message says what it holds
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    (other / ".tmp-gen-78552c7aaee3").mkdir()
    with pytest.raises(IndexStoreError, match=r"holds no index \(it holds notes\.txt\)"):
        _index(registry.snapshot()).save(other)


# -- F2: a load while the folder is rebuilt --------------------------------------------------


def _replacing(
    monkeypatch: pytest.MonkeyPatch, path: Path, snapshot: RegistrySnapshot, times: int
) -> None:
    """Interleave real saves with loads: after the loader has read the manifest (the first
    ``times`` times), a rebuild of the same registry replaces the generation it names."""
    real = store.read_manifest
    calls = {"n": 0}

    def read_then_rebuild(at: Path) -> dict[str, Any]:
        manifest = real(at)
        calls["n"] += 1
        if calls["n"] <= times:
            _index(snapshot).save(path)
        return manifest

    monkeypatch.setattr(store, "read_manifest", read_then_rebuild)


def test_a_load_that_races_a_rebuild_reads_the_new_generation(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker read generation N, the rebuild committed N+1 and deleted N, and the worker
    was told "index file gen-N/... is missing ... Rebuild the index"."""
    snapshot = registry.snapshot()
    path = tmp_path / "index"
    _index(snapshot).save(path)
    _replacing(monkeypatch, path, snapshot, times=1)
    loaded = HybridIndex.load(path, snapshot)
    assert loaded.search("weather forecast", k=1)[0].route_id == "weather/rest/forecast"
    # replaced on every try: said so, not "corrupt"
    _replacing(monkeypatch, path, snapshot, times=store.LOAD_ATTEMPTS)
    with pytest.raises(IndexStoreError, match="replaced 3 times while it loaded") as caught:
        HybridIndex.load(path, snapshot)
    assert not isinstance(caught.value, CorruptIndexError)
    # a file damaged in place (the manifest still names its generation) is still corrupt
    monkeypatch.undo()
    next(path.glob("gen-*/docs_vec.npy")).unlink()
    with pytest.raises(CorruptIndexError, match=r"docs_vec\.npy is missing"):
        HybridIndex.load(path, snapshot)


# -- F3: a folder this process cannot write ---------------------------------------------------


def _unprivileged(fn: Callable[[], str]) -> str:
    """``fn()`` as a user that the file modes apply to: this process where it is not root,
    else a forked child as ``nobody`` (root ignores file modes)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            outcome = fn()
        except BaseException as exc:  # reported to the parent
            outcome = f"{type(exc).__name__}: {exc}"
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        outcome = pipe.read().decode()
    os.waitpid(pid, 0)
    return outcome


@pytest.fixture
def open_folder() -> Any:
    """A folder every user may enter (pytest's own are the owner's only)."""
    path = Path(tempfile.mkdtemp(prefix="sr-index-"))
    path.chmod(0o755)
    yield path
    for p in path.rglob("*"):
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(path)


@pytest.mark.parametrize("where", ["existing folder", "index folder", "new folder"])
def test_a_folder_that_cannot_be_written_is_refused_before_the_build(
    registry: Registry, open_folder: Path, where: str
) -> None:
    """A PermissionError traceback from save_index, after every text had been embedded."""
    parent = open_folder / "srv"
    parent.mkdir()
    out = parent / "index"
    if where == "existing folder":
        out.mkdir()
    elif where == "index folder":
        _index(registry.snapshot()).save(out)
    for p in (out, parent):
        if p.exists():  # root owns them: read-only to nobody; read-only to their owner
            p.chmod(0o755 if os.geteuid() == 0 else 0o555)
    before = sorted(map(str, parent.rglob("*")))

    def build() -> str:
        encoder = HashingEncoder()
        try:
            build_index(registry.snapshot(), out, encoder=encoder, cache=False, progress=False)
        except IndexStoreError as exc:
            return f"IndexStoreError: {exc} | embedded {encoder.texts_encoded}"
        return "saved"

    outcome = _unprivileged(build)
    assert outcome.startswith("IndexStoreError: [SR300] cannot "), outcome
    assert "index folder" in outcome and "permission denied" in outcome
    assert outcome.endswith("| embedded 0"), outcome  # before the build
    assert sorted(map(str, parent.rglob("*"))) == before


# -- F6: an index of another encoder ------------------------------------------------------------


class _TeamEncoder(HashingEncoder):
    """A team's own encoder (as a `train-encoder` folder would be): one this installation
    does not know by its identity."""

    @property
    def identity(self) -> str:
        return "acme-encoder:fe831b888986a785:seq=128"


def test_an_index_of_an_unknown_encoder_is_stale_and_names_both(
    registry: Registry, tmp_path: Path
) -> None:
    """It was "CorruptIndexError: index files are inconsistent: no known encoder has identity
    ... Rebuild the index"."""
    path = tmp_path / "index"
    HybridIndex.build(registry.snapshot(), encoder=_TeamEncoder()).save(path)
    with pytest.raises(StaleIndexError) as caught:
        HybridIndex.load(path, registry.snapshot())
    message = str(caught.value)
    assert "embedded with 'acme-encoder:fe831b888986a785:seq=128'" in message
    assert f"written by SchemaRouter {__version__}" in message and "its encoder is '" in message
    assert "encoder=" in str(caught.value.hint)
    # with its encoder it loads
    loaded = HybridIndex.load(path, registry.snapshot(), encoder=_TeamEncoder())
    assert loaded.encoder_identity == "acme-encoder:fe831b888986a785:seq=128"


def test_an_index_of_another_known_encoder_says_so_when_loaded_as_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Trial L: an index folder built in CI with the hashing encoder (a quick test build
    shipped by mistake) was loaded by `SchemaRouter(index=DIR)`, which asks for the default
    encoder, and answered with the hashing one without a word (Recall@5 17/20 -> 13/20 on the
    trial's requests). It still loads, and a warning names both encoders; naming the encoder
    says nothing."""
    document = tmp_path / "weather.json"
    document.write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    path = tmp_path / "index"
    builder = SchemaRouter(encoder=HashingEncoder(384), reranker=None, abstention=None)
    builder.add_openapi(document)
    builder.build_index(progress=False)
    builder.index.save(path)

    def first_answer(**options: Any) -> list[str]:
        router = SchemaRouter(index=path, reranker=None, abstention=None, **options)
        router.add_openapi(document)
        with caplog.at_level("WARNING", logger="schemarouter"):
            router.retrieve("daily weather forecast for a city", k=1)
        said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        caplog.clear()
        return said

    said = first_answer()
    assert len(said) == 1 and "embedded with 'hashing-v1:dim=384'" in said[0]
    assert "not the default encoder 'schemarouter-encoder:" in said[0]
    assert "Pass encoder=" in said[0]
    assert first_answer(encoder=HashingEncoder(384)) == []


# -- F7: symlinked data files --------------------------------------------------------------------


def test_symlinked_data_files_load(registry: Registry, tmp_path: Path) -> None:
    """A data file that is a symlink (an artifact store, Bazel runfiles, `cp -s`) was "missing"."""
    path = tmp_path / "index"
    index = _index(registry.snapshot())
    index.save(path)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    for file in path.glob("gen-*/*"):
        shutil.move(file, artifacts / file.name)
        file.symlink_to(artifacts / file.name)
    loaded = HybridIndex.load(path, registry.snapshot())
    assert loaded.search("band gap", k=1)[0].route_id == index.search("band gap", k=1)[0].route_id
    # what a symlink points at is still judged: a device is no index file, nothing is missing
    routes = next(path.glob("gen-*/docs_route.npy"))
    routes.unlink()
    routes.symlink_to("/dev/zero")
    with pytest.raises(CorruptIndexError, match=r"docs_route\.npy is not a regular file"):
        HybridIndex.load(path, registry.snapshot())
    routes.unlink()
    routes.symlink_to(tmp_path / "gone.npy")
    with pytest.raises(CorruptIndexError, match=r"docs_route\.npy is missing"):
        HybridIndex.load(path, registry.snapshot())


# -- F11: an empty index path ----------------------------------------------------------------


def test_an_empty_index_path_is_refused(registry: Registry) -> None:
    """``SchemaRouter(index="")`` (an unset variable) looked for an index in the working
    folder."""
    router = SchemaRouter(
        registry=registry,
        encoder=HashingEncoder(),
        index="",
        abstention=None,
        reranker=None,
        embedding_cache=None,
    )
    with pytest.raises(ArgumentError, match="index= is an empty path"):
        router.retrieve("weather", k=1)


def test_a_stale_index_says_routes_moved_between_providers_named_alike(tmp_path: Path) -> None:
    """Trial L: two documents titled alike register as ``weather`` and ``weather_2`` in the
    order given; registered in the other order, their route ids swap providers and the saved
    index is refused as stale, saying only which routes were added and removed. It now says
    they moved between the two providers, and why."""
    first, second = weather_openapi("http://127.0.0.1:9"), weather_openapi("http://127.0.0.1:9")
    second["paths"] = {"/alerts": {"get": {"operationId": "getAlerts", "responses": {
        "200": {"description": "ok"}}}}}  # fmt: skip
    files = [tmp_path / "a.json", tmp_path / "b.json"]
    for file, document in zip(files, (first, second), strict=True):
        file.write_text(json.dumps(document), encoding="utf-8")
    builder = SchemaRouter(encoder=HashingEncoder(), reranker=None, abstention=None)
    for file in files:
        builder.add_openapi(file)
    builder.build_index(progress=False)
    builder.index.save(tmp_path / "index")
    router = SchemaRouter(
        index=tmp_path / "index", encoder=HashingEncoder(), reranker=None, abstention=None
    )
    for file in reversed(files):
        router.add_openapi(file)
    with pytest.raises(StaleIndexError) as stale:
        router.retrieve("weather alerts", k=1)
    assert "moved from provider weather" in str(stale.value)
    assert "two sources named alike, registered in another order" in str(stale.value)


# -- trial T2: an index saved inside the catalog folder it was built from ----------------------


def test_an_index_saved_inside_its_catalog_folder_is_not_read_as_catalog_files(
    tmp_path: Path,
) -> None:
    """`schemarouter index build catalogs --out catalogs/index` (trial T2): the next load
    of `catalogs` read the index's own files as catalog files (`[SR101] a catalog must be a
    mapping at the top level, got list (at catalogs/index/gen-.../endpoint_keys.json)`),
    so neither `retrieve --index` nor a rebuild could register the catalog again."""
    from schemarouter.registry.catalog import catalog_problems

    from helpers import TINY_CATALOG

    catalog = tmp_path / "catalogs"
    catalog.mkdir()
    (catalog / "catalog.yaml").write_text(TINY_CATALOG, "utf-8")
    out = catalog / "index"
    first = build_index([catalog], out, progress=False, encoder=HashingEncoder(), cache=False)
    assert (out / folder.MANIFEST).is_file() and list(out.glob("gen-*/endpoint_keys.json"))

    again = build_index([catalog], out, progress=False, encoder=HashingEncoder(), cache=False)
    assert again.routes == first.routes
    assert catalog_problems(catalog) == []
    router = SchemaRouter(index=out, encoder=HashingEncoder())
    router.add_catalog(catalog)
    assert len(router.snapshot()) == first.routes
    found = router.retrieve("band gap", k=3).route_ids
    assert found and set(found) <= set(router.snapshot().routes)
    router.close()


def test_an_embedding_cache_kept_inside_the_catalog_folder_is_not_read_as_catalog_files(
    tmp_path: Path,
) -> None:
    """`SCHEMAROUTER_CACHE=catalogs/cache schemarouter index build catalogs --out DIR`
    (trial T2): the cache's `seg-<digest>.json` segments were read as catalog files on the
    next build (`[SR101] ... (at catalogs/cache/embeddings/.../seg-....json)`)."""
    from schemarouter.index.cache import EmbeddingCache

    from helpers import TINY_CATALOG

    catalog = tmp_path / "catalogs"
    catalog.mkdir()
    (catalog / "catalog.yaml").write_text(TINY_CATALOG, "utf-8")
    cache = EmbeddingCache(catalog / "cache" / "embeddings")
    first = build_index([catalog], tmp_path / "index", progress=False, cache=cache)
    assert first.texts_embedded and list((catalog / "cache").rglob("seg-*.json"))

    again = build_index([catalog], tmp_path / "index", progress=False, cache=cache)
    assert again.routes == first.routes and again.texts_embedded == 0
