"""A restore gives what its parse freed back to the system (glibc's malloc_trim)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from schemarouter.index.heap import trim_heap


def resident_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def glibc() -> bool:
    import ctypes

    return hasattr(ctypes.CDLL(None), "malloc_trim") if sys.platform == "linux" else False


@pytest.mark.skipif(not glibc(), reason="malloc_trim is glibc's")
def test_freed_heap_memory_between_live_blocks_goes_back_to_the_system() -> None:
    # 64 MiB in 8 KiB blocks (the C heap, under the mmap threshold), each followed by a
    # block that stays: freed, the 8 KiB blocks cannot shrink the heap from its top
    freed, kept = [], []
    for i in range(8192):
        freed.append(bytes(8192 - 33) + i.to_bytes(4, "little"))
        kept.append(bytes(600) + i.to_bytes(4, "little"))
    del freed
    before = resident_bytes()
    assert trim_heap()
    assert before - resident_bytes() > 32 * 2**20
    assert len(kept) == 8192


def test_trimming_elsewhere_does_nothing_and_says_so() -> None:
    assert trim_heap() is glibc()
