"""First use of a large catalog shows progress (issue #26): tqdm bars on stderr when the
``schemarouter`` logger is at INFO or the router is told to, and nothing otherwise."""

from __future__ import annotations

import argparse
import logging

import pytest

from schemarouter import SchemaRouter
from schemarouter import indexing as indexing_module
from schemarouter.index import HashingEncoder
from schemarouter.serve.cli import add_source_arguments, show_progress

_OBJ = {"type": "object"}
_TOOLS = {
    "tools": [
        {
            "name": "get_forecast",
            "description": "Weather forecast for a city.",
            "inputSchema": _OBJ,
        },
        {
            "name": "search_flights",
            "description": "Flights between two airports.",
            "inputSchema": _OBJ,
        },
    ]
}


def _router(**kwargs: object) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(32), abstention=None, reranker=None, **kwargs)
    router.add_mcp_tools(_TOOLS, provider="travel")
    return router


def test_progress_true_shows_lines_on_a_stderr_that_is_no_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Trial L: in a CI log (stderr no terminal) a build showed tqdm's carriage returns run
    into one line, or nothing: it now writes whole lines, the last with the count done."""
    _router(progress=True).retrieve("weather", k=1)
    captured = capsys.readouterr()
    assert "embedding: 2 / 2 texts (100%)" in captured.err
    assert "documents: 2 / 2 routes (100%)" in captured.err
    assert "\r" not in captured.err and captured.out == ""


def test_progress_lines_come_at_each_tenth_no_oftener_than_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from schemarouter.index.cache import ProgressLines

    lines = ProgressLines(1000, "embedding", "texts", every=0.0)
    for _ in range(100):
        lines.update(10)
    lines.close()
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith("embedding: 100 / 1,000 texts (10%)")
    assert said[-1].startswith("embedding: 1,000 / 1,000 texts (100%)") and len(said) == 10
    quiet = ProgressLines(1000, "embedding", "texts", every=3600.0)
    for _ in range(100):
        quiet.update(10)
    quiet.close()
    assert len(capsys.readouterr().err.splitlines()) == 1  # the end only


@pytest.mark.parametrize("level, shown", [(logging.INFO, True), (logging.WARNING, False)])
def test_a_large_catalog_shows_progress_when_the_logger_is_at_info(
    level: int,
    shown: bool,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(indexing_module, "PROGRESS_MIN_ROUTES", 2)
    caplog.set_level(level, logger="schemarouter")
    _router().retrieve("weather", k=1)
    assert ("embedding" in capsys.readouterr().err) is shown


def test_small_catalogs_and_progress_false_stay_quiet(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="schemarouter")
    _router().retrieve("weather", k=1)  # 2 routes: under PROGRESS_MIN_ROUTES
    _router(progress=False).build_index()
    assert "embedding" not in capsys.readouterr().err


def test_cli_flag() -> None:
    parser = argparse.ArgumentParser()
    add_source_arguments(parser)
    assert show_progress(parser.parse_args(["--progress"])) is True
    assert show_progress(parser.parse_args(["--no-progress"])) is False
