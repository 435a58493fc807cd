"""Shared fixtures: a tiny inline catalog, the shared public data (skips where absent), the
loopback servers of the execution tests and a fresh router over them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter import SchemaRouter

from helpers import TINY_CATALOG, shared_data_dir
from servers.loopback import LoopbackServer
from servers.user_api import WeatherApp
from servers.world import Servers, fresh_router, running_servers


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("public data not found (set SCHEMAROUTER_SHARED_DATA or add ../shared/data)")
    return path


@pytest.fixture
def tiny_catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_CATALOG, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    """Every loopback server (one set per test module)."""
    with running_servers() as running:
        yield running


@pytest.fixture
def served_router(servers: Servers, tmp_path: Path) -> SchemaRouter:
    """A fresh router over :func:`servers`, whose state is reset first."""
    servers.reset()
    return fresh_router(servers, tmp_path)


@pytest.fixture(scope="module")
def weather() -> Iterator[LoopbackServer]:
    """A user's own weather API (tests/servers/user_api.py) on loopback, one per module."""
    with LoopbackServer(WeatherApp()) as server:
        yield server
