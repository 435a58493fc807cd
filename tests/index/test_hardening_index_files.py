"""Saved indexes and Milvus targets under the second adversarial review (issue #24, findings
11, 12, 13 and 17): every fault a typed error with its place, and no secret in either."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import (
    ArgumentError,
    CorruptIndexError,
    IndexBackendError,
)
from schemarouter.index import HashingEncoder, HybridIndex
from schemarouter.registry.registry import Registry

from index_helpers import base_routes, registry_with


@pytest.fixture
def registry() -> Registry:
    return registry_with(base_routes())


def _router(registry: Registry, index: Any) -> SchemaRouter:
    return SchemaRouter(
        registry=registry,
        encoder=HashingEncoder(64),
        index=index,
        abstention=None,
        reranker=None,
        embedding_cache=None,
    )


# -- 17: a saved manifest nested 100,000 deep, or a FIFO --------------------------------------


@pytest.fixture
def saved(registry: Registry, tmp_path: Path) -> Path:
    path = tmp_path / "index"
    HybridIndex.build(registry.snapshot(), encoder=HashingEncoder()).save(path)
    return path


@pytest.mark.parametrize("depth", [150, 100_000])
def test_a_deeply_nested_manifest_is_a_corrupt_index(
    saved: Path, registry: Registry, depth: int
) -> None:
    """``HybridIndex.load`` raised an untyped ``RecursionError`` (100,000 levels)."""
    (saved / "manifest.json").write_text("[" * depth + "]" * depth, encoding="utf-8")
    with pytest.raises(CorruptIndexError, match="nest") as caught:
        HybridIndex.load(saved, registry.snapshot())
    assert "manifest.json" in str(caught.value)


def _load_into(path: Path, registry: Registry, outcome: list[BaseException]) -> None:
    try:
        HybridIndex.load(path, registry.snapshot())
    except BaseException as exc:
        outcome.append(exc)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_manifest_that_is_a_fifo_or_a_device_is_refused_at_once(
    saved: Path, registry: Registry
) -> None:
    for make in (lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero")):
        manifest = saved / "manifest.json"
        manifest.unlink()
        make(manifest)
        outcome: list[BaseException] = []
        worker = threading.Thread(target=_load_into, args=(saved, registry, outcome), daemon=True)
        worker.start()
        worker.join(10)
        assert not worker.is_alive(), "still reading the manifest after 10 s"
        assert isinstance(outcome[0], CorruptIndexError), outcome
        assert "not a regular file" in str(outcome[0])


# -- 11, 12: Milvus URIs --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("milvus+lite://", "needs a file path"),
        ("milvus://", "needs HOST:PORT"),
        ("milvus:///routes", "needs HOST:PORT"),
        ("milvus://h:1/routes?fusion=evil", "unknown fusion 'evil'"),
        ("milvus://h:port/routes", "not a valid Milvus URI"),
        ("milvus://[::1/routes", "not a valid Milvus URI"),
        ("milvus://h:1/routes?colection=x", "unknown Milvus URI parameters"),
    ],
)
def test_a_malformed_milvus_uri_is_a_typed_error_from_retrieve(
    registry: Registry, uri: str, message: str
) -> None:
    """``retrieve`` raised plain ``ValueError`` for each of these."""
    router = _router(registry, uri)
    with pytest.raises(ArgumentError, match=message) as caught:
        router.retrieve("weather forecast")
    assert "Milvus URI" in str(caught.value) and "milvus://" in str(caught.value)


SECRET = "SuperSecret123"


def test_a_password_in_a_milvus_uri_never_shows(registry: Registry) -> None:
    """``milvus://root:SuperSecret123@host/routes`` put the password in ``describe()`` and in
    the ``IndexBackendError``; it now travels as the token ``root:SuperSecret123``."""
    pytest.importorskip("pymilvus")
    from schemarouter.index.milvus.index import MilvusIndex
    from schemarouter.index.milvus.rows import parse_milvus_uri

    uri = f"milvus://root:{SECRET}@127.0.0.1:9/routes"
    assert parse_milvus_uri(uri) == {
        "uri": "http://127.0.0.1:9",
        "collection": "routes",
        "token": f"root:{SECRET}",
    }
    index = MilvusIndex.from_uri(uri, timeout=1)
    assert SECRET not in json.dumps(index.describe())
    with pytest.raises(IndexBackendError) as caught:
        _router(registry, uri).retrieve("weather forecast")
    assert SECRET not in str(caught.value) and "127.0.0.1:9" in str(caught.value)
    direct = MilvusIndex(f"http://root:{SECRET}@127.0.0.1:9", encoder=HashingEncoder(64), timeout=1)
    assert SECRET not in json.dumps(direct.describe())
    with pytest.raises(IndexBackendError) as caught:
        direct.open(registry.snapshot())
    assert SECRET not in str(caught.value)


def test_an_engine_message_quoting_the_secret_is_redacted() -> None:
    from schemarouter.index.milvus.rows import MilvusTarget

    target = MilvusTarget(f"http://root:{SECRET}@db:19530", f"root:{SECRET}", "", "c", "Strong")
    message = f"cannot connect to http://root:{SECRET}@db:19530 with token root%3A{SECRET}"
    assert SECRET not in target.redact(message)
    assert target.redacted() == "http://db:19530#default/c"


# -- 13: a Milvus Lite file whose segments are gone -----------------------------------------


def test_a_milvus_lite_file_without_its_segments_is_corrupt(
    registry: Registry, tmp_path: Path
) -> None:
    """The collection opened as clean and every search returned nothing, with no error."""
    pytest.importorskip("pymilvus")
    pytest.importorskip("milvus_lite")
    from schemarouter.index.milvus.index import MilvusIndex

    path = tmp_path / "routes.db"
    built = MilvusIndex(str(path), collection="gone", encoder=HashingEncoder(64))
    built.open(registry.snapshot())
    assert built.search("weather forecast", k=1)
    built.close()
    from milvus_lite import server_manager_instance

    server_manager_instance.release_server(str(path))  # as a new process finds the file
    partition = path / "collections" / "gone" / "partitions" / "_default"
    segments = [*partition.glob("data/*"), *partition.glob("indexes/*")]
    assert segments, sorted(str(p) for p in path.rglob("*"))
    for segment in segments:
        if segment.is_dir():
            shutil.rmtree(segment)
        else:
            segment.unlink()
    reopened = MilvusIndex(str(path), collection="gone", encoder=HashingEncoder(64))
    with pytest.raises(CorruptIndexError, match=r"holds 0 rows where its metadata lists \d+"):
        reopened.open(registry.snapshot())
    reopened.close()
    server_manager_instance.release_server(str(path))
