"""The embedding cache under the second adversarial review (issue #24, findings 5, 14, 15
and 16): several processes writing one cache never store a text with another text's vector,
and a reader refuses segments of the wrong shape, nested too deep, with vectors that are not
finite, or that are FIFOs or devices, then embeds their texts again."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import CorruptIndexError
from schemarouter.index import EmbeddingCache, HashingEncoder
from schemarouter.index.cache import embed_texts
from schemarouter.training.bench.cache_concurrency import run_once

from index_helpers import base_routes, registry_with

ENCODER = HashingEncoder(64)


def _router(cache: EmbeddingCache) -> SchemaRouter:
    return SchemaRouter(
        registry=registry_with(base_routes()),
        encoder=ENCODER,
        embedding_cache=cache,
        abstention=None,
        reranker=None,
    )


def _top(cache: EmbeddingCache) -> str:
    """What a new router on ``cache`` ranks first for a weather request (within 60 s: a guard against a hang)."""
    found: list[Any] = []
    worker = threading.Thread(
        target=lambda: found.append(_router(cache).retrieve("weather forecast", k=3)),
        daemon=True,
    )
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "retrieve still running after 60 s"
    candidates = found[0].candidates
    assert candidates, "no candidates"
    route_id: str = candidates[0].route_id
    return route_id


@pytest.fixture
def warm(tmp_path: Path) -> Path:
    """A cache folder a first router filled (one segment)."""
    root = tmp_path / "cache"
    assert _top(EmbeddingCache(root)) == "weather/rest/forecast"
    (meta,) = root.rglob("seg-*.json")
    return meta


# -- 5: two processes writing one cache ------------------------------------------------------


def test_processes_writing_one_cache_at_once_keep_every_vector_right(tmp_path: Path) -> None:
    """Three processes, 60 texts each (a third shared), two texts per write, started at one
    instant: segment numbers collided and texts were stored with another text's vector
    (and others lost). ``training/bench/cache_concurrency.py`` runs the review's 2 x 360."""
    result = run_once(tmp_path / "cache", processes=3, texts=60, batch=2, encoder="hashing")
    assert result["worker_failures"] == []
    assert (result["wrong"], result["lost"]) == (0, 0), result
    assert result["right"] == result["texts"] == 140


def test_a_segment_is_named_by_its_content_and_a_torn_one_is_refused(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    texts = ["alpha", "beta"]
    embed_texts(ENCODER, texts, cache=cache)
    (meta,) = tmp_path.rglob("seg-*.json")
    assert meta.stem == "seg-" + hashlib.sha256(meta.read_bytes()).hexdigest()[:32]
    info = json.loads(meta.read_text())
    npy = meta.with_suffix(".npy")
    assert info["vectors_sha256"] == hashlib.sha256(npy.read_bytes()).hexdigest()
    # another writer's vectors under these keys (the old race): refused, embedded again
    np.save(npy, np.ones((2, 64), dtype=np.float32))
    fresh = EmbeddingCache(tmp_path)
    _, found = fresh.get(ENCODER.identity, texts, 64)
    assert not found.any()
    assert isinstance(fresh.problems[0], CorruptIndexError)
    assert "not the ones its keys were written with" in str(fresh.problems[0])


# -- 14: segments of the wrong shape, or nested too deep --------------------------------------


def _forge_json(meta: Path, body: bytes) -> Path:
    """Replace the segment's .json by ``body`` under the name its content hashes to (a
    forger who knows the format), keeping the .npy beside it."""
    digest = hashlib.sha256(body).hexdigest()[:32]
    target = meta.with_name(f"seg-{digest}.json")
    target.write_bytes(body)
    meta.with_suffix(".npy").rename(target.with_suffix(".npy"))
    meta.unlink()
    return target


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"null", "must be an object, not NoneType"),
        (b"[]", "must be an object, not list"),
        (b'{"keys": 5}', "segment format"),
        ("[" * 100_000 + "]" * 100_000, "nests deeper than"),
        ("[" * 150 + "]" * 150, "nested deeper than 100 levels"),
    ],
)
@pytest.mark.parametrize("named", [True, False])
def test_a_segment_of_the_wrong_shape_is_refused_and_its_texts_embedded_again(
    warm: Path, body: bytes | str, message: str, named: bool
) -> None:
    """``null``, ``[]``, ``{"keys": 5}`` or JSON 100,000 levels deep raised an untyped
    ``AttributeError`` / ``TypeError`` / ``RecursionError`` from every new router's
    ``retrieve``."""
    data = body.encode() if isinstance(body, str) else body
    if named:
        path = _forge_json(warm, data)
    else:
        warm.write_bytes(data)
        path, message = warm, "does not match its name"
    cache = EmbeddingCache(warm.parents[1])
    assert _top(cache) == "weather/rest/forecast"
    assert cache.problems, "nothing was refused"
    problem = cache.problems[0]
    assert isinstance(problem, CorruptIndexError) and problem.where == str(path)
    assert message in str(problem)
    # the texts were embedded again and written as a new, good segment
    assert _top(EmbeddingCache(warm.parents[1])) == "weather/rest/forecast"


def test_a_segment_with_the_keys_of_another_dimension_is_refused(warm: Path) -> None:
    info = json.loads(warm.read_text())
    info["dim"] = 32
    path = _forge_json(warm, json.dumps(info, sort_keys=True, separators=(",", ":")).encode())
    cache = EmbeddingCache(warm.parents[1])
    assert _top(cache) == "weather/rest/forecast"
    assert "dimension 32, not 64" in str(cache.problems[0]) and str(path) in str(cache.problems[0])


# -- 15: vectors that are not finite ---------------------------------------------------------


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, "overflow"])
def test_vectors_that_are_not_finite_are_dropped_and_embedded_again(
    warm: Path, value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """NaN, inf or a float32 overflow in every cached vector: ``retrieve`` returned no
    candidates, no error, no warning. Written consistently (hashes and name updated), so
    only the finiteness check stands between them and the index."""
    npy = warm.with_suffix(".npy")
    vectors = np.load(npy).astype(np.float64)
    if value == "overflow":
        vectors[:] = 1e39  # past float32's range: inf once stored as float32
        with np.errstate(over="ignore"):
            stored = vectors.astype(np.float32)
    else:
        vectors[:] = value
        stored = vectors.astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, stored, allow_pickle=False)
    info = json.loads(warm.read_text())
    info["vectors_sha256"] = hashlib.sha256(buffer.getvalue()).hexdigest()
    npy.write_bytes(buffer.getvalue())
    _forge_json(warm, json.dumps(info, sort_keys=True, separators=(",", ":")).encode())
    assert _top(EmbeddingCache(warm.parents[1])) == "weather/rest/forecast"
    assert any("not finite" in r.getMessage() for r in caplog.records)


def test_vectors_that_are_not_finite_are_never_written(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put(ENCODER.identity, ["a", "b"], np.array([[np.nan] * 64, [0.5] * 64], np.float32))
    vectors, found = EmbeddingCache(tmp_path).get(ENCODER.identity, ["a", "b"], 64)
    assert found.tolist() == [False, True] and np.isfinite(vectors).all()


# -- 16: a segment that is a FIFO or a device -----------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
@pytest.mark.parametrize("part", [".npy", ".json"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_segment_that_is_a_fifo_or_a_device_is_refused_at_once(
    warm: Path, tmp_path: Path, part: str, kind: str
) -> None:
    """A segment replaced by a symlink to a FIFO: ``retrieve`` hung."""
    target = tmp_path / "pipe"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target = Path("/dev/zero")
    victim = warm.with_suffix(part)
    victim.unlink()
    victim.symlink_to(target)
    cache = EmbeddingCache(warm.parents[1])
    assert _top(cache) == "weather/rest/forecast"
    assert "not a regular file" in str(cache.problems[0])
