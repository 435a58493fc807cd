"""A large catalog says how far its registration and its first index build got: 100,000
routes took 18 s to register (over a minute on a loaded machine) and 40 s to index, and
nothing was said while the routes were compiled and checked, nor after the embedding bar
(tokens, BM25 weights, the HNSW graph). Lines each ``registry.progress.EVERY`` things (5,000;
100 here) on the ``schemarouter.progress`` logger, bars of the index build's steps; quiet
where asked (``progress=False``, ``--quiet``), as the index's bars are."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.index import HashingEncoder
from schemarouter.registry import progress

from helpers import openapi_document


def _document(count: int) -> dict[str, Any]:
    operation = {
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "ok"}},
    }
    paths = {
        f"/things{i}/{{id}}": {"get": {"operationId": f"getThing{i}", **operation}}
        for i in range(count)
    }
    return openapi_document("things", paths)


def _tools(count: int) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {"key": {"type": "string"}}}
    return [
        {"name": f"lookup_{i}", "description": "Look up", "inputSchema": schema}
        for i in range(count)
    ]


def _router(**options: Any) -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None, **options)


@pytest.fixture(autouse=True)
def _every_hundred(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "EVERY", 100)


def _said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage().rsplit(": ", 1)[1] for r in caplog.records if r.name == progress.LOGGER.name
    ]


def test_a_large_openapi_document_says_how_far_its_registration_got(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="schemarouter"):
        _router().add_openapi(_document(250), provider="things")
    assert _said(caplog) == [
        "100 operations compiled",
        "200 operations compiled",
        "100 of 250 routes checked",
        "200 of 250 routes checked",
    ]


def test_a_large_tool_listing_says_how_far_its_registration_got(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="schemarouter"):
        _router().add_mcp_tools(_tools(250), provider="tools")
    assert _said(caplog) == [
        "100 of 250 tools compiled",
        "200 of 250 tools compiled",
        "100 of 250 routes checked",
        "200 of 250 routes checked",
    ]


def test_a_first_index_build_shows_each_of_its_steps(capsys: pytest.CaptureFixture[str]) -> None:
    router = _router(progress=True)
    router.add_openapi(_document(30), provider="things")
    router.build_index()
    said = capsys.readouterr().err  # not a terminal: a line at the end of each bar
    assert "documents: 30 / 30 routes (100%)" in said, said
    assert "tokens: " in said and " docs (100%)" in said
    assert "indexing: 3 / 3 steps (100%)" in said
    quiet = _router(progress=False)
    quiet.add_openapi(_document(30), provider="things")
    quiet.build_index()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("flag", ["--progress", "--quiet"])
def test_index_build_prints_how_far_a_large_source_got(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "things.json").write_text(json.dumps(_document(250)), encoding="utf-8")
    argv = ["index", "build", "--openapi", str(folder), "--out", str(tmp_path / "index"), flag]
    assert main(argv) == 0
    said = capsys.readouterr().err
    lines = [line for line in said.splitlines() if line.endswith(("compiled", "checked"))]
    if flag == "--quiet":
        assert lines == [], said
        return
    assert [line.rsplit(": ", 1)[1] for line in lines] == [
        "100 operations compiled",
        "200 operations compiled",
        "100 of 250 routes checked",
        "200 of 250 routes checked",
    ], said
    assert "indexing: 3 / 3 steps (100%)" in said


@pytest.mark.parametrize("shown", [True, None, False])
def test_a_router_made_with_progress_prints_how_far_its_registration_got(
    capsys: pytest.CaptureFixture[str], shown: bool | None
) -> None:
    """``SchemaRouter(progress=True)`` showed its index's bars and nothing while 100,000
    tools were registered; ``None`` (logging not configured) and ``False`` print nothing."""
    _router(progress=shown).add_mcp_tools(_tools(250), provider="tools")
    said = capsys.readouterr().err
    if not shown:
        assert said == ""
        return
    assert said.splitlines() == [
        "registering: mcp:tools: 100 of 250 tools compiled",
        "registering: mcp:tools: 200 of 250 tools compiled",
        "registering: mcp:tools: 100 of 250 routes checked",
        "registering: mcp:tools: 200 of 250 routes checked",
    ], said
