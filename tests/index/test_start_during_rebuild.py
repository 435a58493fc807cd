"""A serving process that starts from an index folder while a rebuild replaces it starts
from the new index, not a stale-index error (trial Z2, left open: the registry was read
from one generation and the index loaded from the next, whose registry differs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter, bundled_catalog
from schemarouter.errors import StaleIndexError
from schemarouter.index import HashingEncoder

from servers.user_api import weather_openapi

MODELS: dict[str, Any] = {"abstention": None, "reranker": None, "ranking": None}


def _router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(64), embedding_cache=None, **MODELS)


def _start(folder: Path) -> SchemaRouter:
    return SchemaRouter.from_index(
        folder, encoder=HashingEncoder(64), embedding_cache=None, **MODELS
    )


def test_a_start_that_meets_a_rebuild_starts_from_the_new_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "index"
    before = _router()
    before.add_catalog(bundled_catalog())
    before.build_index()
    before.index.save(folder)
    after = _router()  # the day's rebuild: one more document
    after.add_catalog(bundled_catalog())
    after.add_openapi(weather_openapi("http://127.0.0.1:9"))
    after.build_index()

    restore = SchemaRouter.restore_registry
    rebuilt: list[bool] = []

    def restore_then_rebuild(self: SchemaRouter, path: Any, **options: Any) -> Any:
        change = restore(self, path, **options)
        if not rebuilt:  # the rebuild lands between the registry read and the index load
            after.index.save(folder)
            rebuilt.append(True)
        return change

    monkeypatch.setattr(SchemaRouter, "restore_registry", restore_then_rebuild)
    started = _start(folder)
    assert rebuilt == [True]
    assert started.snapshot().fingerprint == after.snapshot().fingerprint
    query = "weather forecast for a station"
    assert started.retrieve(query, k=5).route_ids == after.retrieve(query, k=5).route_ids


def test_a_lazy_start_that_meets_a_rebuild_says_to_start_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SchemaRouter(index=DIR)`` (and the command line) restores on first use: where a
    rebuild lands between, the refusal says so, not "the current registry has 4 routes
    removed" (a registry difference nobody made)."""
    folder = tmp_path / "index"
    before = _router()
    before.add_catalog(bundled_catalog())
    before.build_index()
    before.index.save(folder)
    after = _router()
    after.add_catalog(bundled_catalog())
    after.add_openapi(weather_openapi("http://127.0.0.1:9"))
    after.build_index()
    restore = SchemaRouter.restore_registry

    def restore_then_rebuild(self: SchemaRouter, path: Any, **options: Any) -> Any:
        change = restore(self, path, **options)
        after.index.save(folder)
        return change

    monkeypatch.setattr(SchemaRouter, "restore_registry", restore_then_rebuild)
    router = SchemaRouter(index=folder, encoder=HashingEncoder(64), embedding_cache=None, **MODELS)
    with pytest.raises(StaleIndexError, match="rebuilt while this process started") as caught:
        router.retrieve("band gap of GaN", k=5)
    assert "Start again" in str(caught.value)
    # started again, it starts from the new index
    again = SchemaRouter(index=folder, encoder=HashingEncoder(64), embedding_cache=None, **MODELS)
    monkeypatch.setattr(SchemaRouter, "restore_registry", restore)
    assert again.retrieve("band gap of GaN", k=5).route_ids
    assert again.snapshot().fingerprint == after.snapshot().fingerprint
