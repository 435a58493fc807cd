"""Saving an index where the file system, not the folder's owner, refuses it: a read-only
mount and a full disk, each a real mount (a bind mount ``-o ro`` and a 64 or 128 KiB tmpfs).
Mounting needs root and a kernel that lets this process mount; elsewhere these skip."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter.errors import IndexStoreError
from schemarouter.index import HashingEncoder, HybridIndex

from index_helpers import base_routes, make_route, registry_with


def _mount(*args: str) -> None:
    try:
        done = subprocess.run(["mount", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.strip()[:200]}")


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "mnt"
    point.mkdir()
    yield point
    subprocess.run(["umount", str(point)], capture_output=True, timeout=30)


def _index() -> HybridIndex:
    routes = base_routes() + [
        make_route("bulk", f"e{i}", f"endpoint number {i} of a bulk provider " * 20)
        for i in range(300)
    ]
    return HybridIndex.build(registry_with(routes).snapshot(), encoder=HashingEncoder())


def test_a_read_only_mount_is_named_as_the_cause(tmp_path: Path, mounted: Path) -> None:
    """Trial T2 (low): on ``mount -o ro`` the error said "permission denied ... or build as
    its owner", which no owner can act on."""
    source = tmp_path / "source"
    (source / "index").mkdir(parents=True)
    _mount("--bind", "-o", "ro", str(source), str(mounted))
    for target in (mounted / "index", mounted / "new" / "index"):
        with pytest.raises(IndexStoreError) as caught:
            _index().save(target)
        assert "mounted read-only" in str(caught.value), str(caught.value)
        assert "build as its owner" not in str(caught.value)
        assert "writable file system" in str(caught.value.hint)


@pytest.mark.parametrize("size", ["64k", "128k"])
def test_a_full_disk_says_so(mounted: Path, size: str) -> None:
    """Trial T2 (low): numpy's short write on a full disk said only "39168 requested and
    12256 written" (no errno); a full tmpfs of these sizes fills during an array's write."""
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mounted))
    with pytest.raises(IndexStoreError) as caught:
        _index().save(mounted / "index")
    message = str(caught.value)
    assert "no space left on" in message.lower(), message
    assert "previous index (if any) is unchanged" in str(caught.value.hint)
    assert not [p for p in (mounted / "index").rglob("*") if p.is_file() and p.stat().st_size]
