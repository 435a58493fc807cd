"""A reload refused (``POST /admin/reload``'s ``reason``, the SIGHUP log line) says what the
operator of ``serve`` can do: rebuild the folder it serves with ``schemarouter index build``
and reload again (user trial Y3). Before, it passed on the library's hint, which names Python
calls (``sync=True``, ``router.build_index()``, ``router.index.save(FOLDER)``) no operator of
the command can make, and the folder as ``FOLDER``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig, SourceSpec
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.generation import open_index, reload

from servers.serve_process import build
from servers.user_api import weather_openapi

OPTIONS = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}


def _document(folder: Path, operation: str) -> Path:
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / f"{operation}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _refusal(gateway: Gateway) -> str:
    said: list[str] = []
    assert not reload(gateway, said=said)
    return said[-1]


def _in_serves_terms(reason: str, index: Path) -> None:
    assert f"schemarouter index build --config CONFIG --out {index}`" in reason
    assert "POST /admin/reload" in reason and "kill -HUP" in reason
    for python in ("sync=True", "router.build_index", "router.index.save", "FOLDER"):
        assert python not in reason, reason


def test_a_damaged_folder_refused_on_reload_says_how_to_rebuild_it(tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(_document(tmp_path, "getForecast"), index)
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **OPTIONS)
    try:
        open_index(gateway)
        second = build(_document(tmp_path, "getOutlook"), index)
        vectors = index / second["generation"] / "endpoint_vectors.npy"
        with vectors.open("r+b") as handle:
            handle.truncate(32)
        reason = _refusal(gateway)
        assert "[SR302]" in reason and "endpoint_vectors.npy has 32 bytes" in reason
        _in_serves_terms(reason, index)
    finally:
        gateway.close()


def test_a_stale_folder_refused_on_reload_says_how_to_rebuild_it(tmp_path: Path) -> None:
    """``serve --config`` registering its documents beside the folder: the folder rebuilt
    from other documents is stale on the reload."""
    index = tmp_path / "index"
    first = _document(tmp_path, "getForecast")
    build(first, index)
    source = SourceSpec(source=str(first), provider="weather")
    config = GatewayConfig(index=str(index), openapi=(source,))
    gateway = Gateway.from_config(config, **OPTIONS)
    try:
        open_index(gateway)
        build(_document(tmp_path, "getOutlook"), index)
        reason = _refusal(gateway)
        assert "[SR301]" in reason and "weather/rest/get_outlook" in reason
        _in_serves_terms(reason, index)
    finally:
        gateway.close()


@pytest.mark.parametrize("damage", ["truncate", "missing"])
def test_an_index_that_did_not_open_at_start_says_it_in_serves_terms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """The start's line named serve's command for a missing folder only; a damaged one had
    the library's hint, and ``--out`` the damaged file's path."""
    from schemarouter.serve.cli import _warm_up

    index = tmp_path / "index"
    manifest = build(_document(tmp_path, "getForecast"), index)
    vectors = index / manifest["generation"] / "endpoint_vectors.npy"
    if damage == "truncate":
        with vectors.open("r+b") as handle:
            handle.truncate(32)
    else:
        vectors.unlink()
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **OPTIONS)
    try:
        _warm_up(gateway, progress=False)
    finally:
        gateway.close()
    said = capsys.readouterr().err
    assert "the index did not open: [SR302]" in said
    _in_serves_terms(said, index)
    assert json.loads((index / "manifest.json").read_text())["generation"] in said
