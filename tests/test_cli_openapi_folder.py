"""A platform's OpenAPI documents live in a folder (trial X2: 1,488 of them, changed daily):
``--openapi DIR`` registers each document under it, each named by its own title, and a
batch build shows how far registering has got, which is most of its time at that size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter.cli import main

from servers.user_api import weather_openapi


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "apis"
    (root / "team-a").mkdir(parents=True)
    (root / "team-b" / "_drafts").mkdir(parents=True)
    document = weather_openapi("http://127.0.0.1:9")
    (root / "team-a" / "weather.json").write_text(json.dumps(document))
    document["info"]["title"] = "Ocean Weather"
    (root / "team-b" / "ocean.json").write_text(json.dumps(document))
    (root / "team-b" / "_drafts" / "draft.json").write_text("{")  # a draft: not read
    return root


def test_openapi_takes_a_folder_of_documents(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "index"
    argv = ["--openapi", str(folder)]
    assert main(["index", "build", *argv, "--out", str(out), "--quiet", "--no-cache"]) == 0
    assert "indexed 8 routes" in capsys.readouterr().out  # 4 operations in each document
    assert main(["routes", *argv, "--json"]) == 0
    ids = {r["route_id"] for r in json.loads(capsys.readouterr().out)}
    assert {"weather/rest/get_forecast", "ocean_weather/rest/get_forecast"} <= ids
    query = ["retrieve", "Ocean Weather daily forecast for a city", "-k", "1", "--json"]
    assert main([*query, *argv, "--index", str(out)]) == 0
    best = json.loads(capsys.readouterr().out)["candidates"][0]["route_id"]
    assert best == "ocean_weather/rest/get_forecast"


def test_a_bad_document_in_the_folder_is_named_by_its_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = folder / "team-a" / "broken.json"
    broken.write_text('{"openapi": "3.1.0", "info": ')
    assert main(["routes", "--openapi", str(folder)]) == 1
    said = capsys.readouterr().err
    assert f"(at {broken}" in said
    assert "1 of 3 sources could not be registered" in said


def test_a_folder_takes_no_provider_name(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["routes", "--openapi", f"weather={folder}"]) == 1
    said = capsys.readouterr().err
    assert "a folder of OpenAPI documents is given one provider ('weather')" in said
    assert "Leave PROVIDER= out for a folder" in said


def test_an_empty_folder_says_it_holds_no_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["routes", "--openapi", str(tmp_path)]) == 1
    assert "no OpenAPI documents (*.yaml, *.yml, *.json) in folder" in capsys.readouterr().err


def test_a_build_shows_the_sources_registered(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where stderr is a log, the bar is whole lines: the last says all were registered."""
    out = tmp_path / "index"
    argv = ["index", "build", "--openapi", str(folder), "--out", str(out), "--progress"]
    assert main([*argv, "--no-cache"]) == 0
    said = capsys.readouterr().err
    assert "registering: 2 / 2 sources (100%)" in said
    assert said.index("registering:") < said.index("documents:")


def test_a_router_built_with_progress_keeps_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``progress=True`` to ``build_router`` (and ``Gateway.from_config``) is the router's
    own option still, and also shows the sources registered."""
    from schemarouter.serve.config import GatewayConfig, SourceSpec
    from schemarouter.serve.sources import build_router

    config = GatewayConfig(openapi=(SourceSpec(source=str(folder)),))
    router = build_router(config, progress=True, embedding_cache=None)
    try:
        assert router.progress is True
        assert len(router.snapshot()) == 8
    finally:
        router.close()
    assert "registering: 2 / 2 sources (100%)" in capsys.readouterr().err
