"""Reading ``registry.json.gz`` is bounded, and a damaged line is named by its number
(trial W1: a 1 MB gzip of newlines that inflates to 1 GiB took 17.5 GiB of memory and 65 s
to refuse)."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest

from schemarouter.index.registry_file import registry_lines


def _gzip(head: bytes, body: bytes, repeat: int, tail: bytes = b"") -> bytes:
    """``head``, ``body`` ``repeat`` times and ``tail``, gzip-compressed a part at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [packer.compress(head), *(packer.compress(body) for _ in range(repeat))]
    return b"".join([*out, packer.compress(tail), packer.flush()])


def test_lines_come_with_their_numbers_and_blank_ones_are_skipped() -> None:
    data = gzip.compress(b'{"a":1}\n\n\n{"b":2}\n{"c":3}\n')
    assert list(registry_lines(data)) == [(1, b'{"a":1}'), (4, b'{"b":2}'), (5, b'{"c":3}')]


def test_a_bomb_of_blank_lines_is_refused_without_inflating_it_at_once() -> None:
    """16 MiB of newlines from 16 kB of gzip: refused past ``limit`` having held about a
    megabyte, where a megabyte of input was inflated and split whole."""
    data = _gzip(b"{}\n", b"\n" * (1 << 20), 16)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="larger than"):
            list(registry_lines(data, limit=4 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak


def test_a_line_past_its_limit_is_refused_naming_it() -> None:
    data = _gzip(b"{}\n", b"x" * (1 << 20), 3, b"\n")
    with pytest.raises(ValueError, match="line 2 is longer than"):
        list(registry_lines(data, line_limit=2 << 20))
    assert [n for n, _ in registry_lines(data)] == [1, 2]
