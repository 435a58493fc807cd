"""A saved index whose array files declare a shape or type they do not hold, with every file's
sha256 and the manifest re-signed (a forged or damaged folder; the ninth security review):
a header declaring 4 TiB raised an untyped ``MemoryError`` from ``HybridIndex.load`` (and a
declared size that fits memory is allocated before the file is found short), and an array of
the wrong rank said only "tuple index out of range". Each is a ``CorruptIndexError`` naming
the file, what it declares and what it should be, before anything is allocated."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from schemarouter.errors import CorruptIndexError
from schemarouter.index import HashingEncoder, HybridIndex, store
from schemarouter.registry.registry import Registry

from index_helpers import base_routes, registry_with


@pytest.fixture(scope="module")
def registry() -> Registry:
    return registry_with(base_routes())


@pytest.fixture
def saved(registry: Registry, tmp_path: Path) -> Path:
    path = tmp_path / "index"
    HybridIndex.build(registry.snapshot(), encoder=HashingEncoder()).save(path)
    return path


def _replace(path: Path, name: str, data: bytes) -> None:
    """``name`` of the saved generation replaced by ``data``, its hash and the manifest
    re-signed as a writer would."""
    manifest = json.loads((path / "manifest.json").read_text())
    file = path / manifest["generation"] / name
    file.write_bytes(data)
    entry = manifest["files"][f"{manifest['generation']}/{name}"]
    entry.update(sha256=store._sha256(file), bytes=file.stat().st_size)
    manifest["checksum"] = store._manifest_checksum(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))


def _header_only(descr: str, shape: tuple[int, ...]) -> bytes:
    """An .npy file that declares ``shape`` of ``descr`` and holds 16 bytes."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(16)


def _saved_array(path: Path, name: str) -> np.ndarray:
    manifest = json.loads((path / "manifest.json").read_text())
    return np.load(path / manifest["generation"] / name)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "descr", "shape"),
    [
        ("docs_kind.npy", "|i1", (2**42,)),
        ("endpoint_vectors.npy", "<f4", (2**38, 64)),
        ("lexical_tf_indptr.npy", "<i8", (2**31,)),
    ],
)
def test_a_declared_size_the_file_does_not_hold_is_refused_before_it_is_allocated(
    saved: Path, registry: Registry, name: str, descr: str, shape: tuple[int, ...]
) -> None:
    _replace(saved, name, _header_only(descr, shape))
    with pytest.raises(CorruptIndexError, match=rf"{name} declares .* holds 16") as caught:
        HybridIndex.load(saved, registry.snapshot(), encoder=HashingEncoder())
    assert caught.value.where and str(saved) in caught.value.where


@pytest.mark.parametrize(
    ("name", "change", "says"),
    [
        ("docs_route.npy", lambda a: np.array(3), "1 dimension"),
        ("docs_route.npy", lambda a: a.reshape(-1, 1), "1 dimension"),
        ("docs_route.npy", lambda a: a.astype(np.float64) + 0.5, "integers"),
        ("lexical_tf_data.npy", lambda a: a.astype(np.float64) * 0.5, "integers"),
        ("lexical_tf_indptr.npy", lambda a: a.reshape(1, -1), "1 dimension"),
        ("endpoint_vectors.npy", lambda a: a.astype(np.complex64), "float32"),
        ("field_vectors.npy", lambda a: a.reshape(-1), "2 dimensions"),
    ],
)
def test_an_array_of_the_wrong_rank_or_type_is_named(
    saved: Path, registry: Registry, name: str, change: object, says: str
) -> None:
    assert callable(change)
    _replace(saved, name, _npy(change(_saved_array(saved, name))))
    with pytest.raises(CorruptIndexError, match=rf"{name} .*{says}"):
        HybridIndex.load(saved, registry.snapshot(), encoder=HashingEncoder())
