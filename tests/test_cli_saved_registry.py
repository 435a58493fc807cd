"""The command line of a saved registry (trial Z2): ``catalog export`` writes what sources
register as one catalog file; ``retrieve --index DIR`` and ``serve --index DIR`` with no
source start from the registry the index keeps, not from the bundled catalog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.sources import build_router

from servers.user_api import FORECAST, weather_openapi


def test_catalog_export_registers_again_with_the_same_fingerprints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "weather.json"
    document.write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    out = tmp_path / "exported.json"
    assert main(["catalog", "export", "--openapi", f"weather={document}", "--out", str(out)]) == 0
    assert "exported 4 routes of 1 providers" in capsys.readouterr().out
    direct = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    direct.add_openapi(document, provider="weather")
    again = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    again.add_catalog(out)
    assert again.snapshot().fingerprint == direct.snapshot().fingerprint
    assert again.is_bound(FORECAST)  # a catalog's HTTP routes are bound as declared
    assert main(["catalog", "validate", str(out)]) == 0
    assert main(["catalog", "export", "--out", str(out)]) == 2
    assert "nothing to export" in capsys.readouterr().err


def test_retrieve_and_a_gateway_start_from_the_index_folder_alone(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "index"
    assert main(["index", "build", str(tiny_catalog), "--out", str(folder), "--quiet"]) == 0
    capsys.readouterr()
    argv = ["retrieve", "cell volume", "--index", str(folder), "--json", "-k", "2"]
    assert main(argv) == 0
    found = json.loads(capsys.readouterr().out)
    ids = [c["route_id"] for c in found["candidates"]]
    expected = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    expected.add_catalog(tiny_catalog)
    assert ids and set(ids) <= set(expected.snapshot().route_ids())  # not the bundled catalog
    # serve's router: the same registry, from the folder; export reads it too
    router = build_router(GatewayConfig(index=str(folder)), reranker=None, abstention=None)
    try:
        assert router.snapshot().fingerprint == expected.snapshot().fingerprint
    finally:
        router.close()
    assert main(["retrieve", "cell volume", "--index", str(folder), "--sync"]) == 2
    assert "--sync brings the index folder to the sources given" in capsys.readouterr().err
    out = tmp_path / "from_index.json"
    assert main(["catalog", "export", "--index", str(folder), "--out", str(out)]) == 0
    again = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    again.add_catalog(out)
    assert again.snapshot().fingerprint == expected.snapshot().fingerprint
