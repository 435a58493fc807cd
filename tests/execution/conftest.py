"""Fixtures of the execution tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from servers.loopback import LoopbackServer, ok


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    """A loopback server answering ``{"ok": true}`` (a module may define its own)."""
    with LoopbackServer(ok) as running:
        yield running
