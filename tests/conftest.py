"""Shared fixtures: a tiny inline catalog, the shared public data (skips where absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import TINY_CATALOG, shared_data_dir


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
