"""A gateway given its index folder as a router option (``Gateway.from_config(config,
index=DIR)``, the way ``build_router`` reads it first) reloads that folder and names its
generation, as one given ``index:`` in its config does (trial V1: the reload read the
config's index only, and refused: "the gateway serves no saved index folder"). A closed
gateway reloads nothing."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.generation import open_index, reload

from servers.serve_process import build
from servers.user_api import weather_openapi


def _document(folder: Path, operation: str) -> Path:
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / f"{operation}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_a_folder_given_as_a_router_option_is_the_one_reloaded(tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = build(_document(tmp_path, "getForecast"), index)
    options = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}
    gateway = Gateway.from_config(GatewayConfig(), index=str(index), **options)
    try:
        assert open_index(gateway).generation == first["generation"]
        second = build(_document(tmp_path, "getOutlook"), index)
        assert reload(gateway)
        manifest = json.loads((index / "manifest.json").read_text())
        assert gateway.index_state.generation == second["generation"] == manifest["generation"]
        assert gateway.router.snapshot().fingerprint == manifest["registry_fingerprint"]
        assert first["registry_fingerprint"] != manifest["registry_fingerprint"]
    finally:
        gateway.close()


def test_a_closed_gateway_is_not_reloaded(tmp_path: Path) -> None:
    """A SIGHUP after SIGTERM (the gateway closed, its requests draining) loads nothing: a
    router opened then was never closed (trial V1)."""
    index = tmp_path / "index"
    build(_document(tmp_path, "getForecast"), index)
    options = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **options)
    open_index(gateway)
    router = gateway.router
    gateway.close()
    build(_document(tmp_path, "getOutlook"), index)
    assert not reload(gateway)
    assert gateway.router is router
