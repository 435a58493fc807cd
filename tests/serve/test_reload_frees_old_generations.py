"""A reloaded gateway lets every old generation's registry go (user trial X4). Before, the
planner's producer tables (``retrieval.prerequisites``) held the last four snapshots strongly:
after each of a served process's first reloads one more old registry stayed in memory (its
routes, schemas and tables: a few MiB at 200 routes, hundreds at tens of thousands), which is
part of the growth W4 measured over the first reloads."""

from __future__ import annotations

import gc
import weakref
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


def test_the_registries_of_old_generations_are_collected_after_reloads(tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(_document(tmp_path, "getForecast"), index)
    options = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **options)
    old: list[weakref.ref[object]] = []
    try:
        open_index(gateway)
        for night in range(3):
            gateway.pinned().search("daily weather forecast", 2)  # the planner reads it
            old.append(weakref.ref(gateway.router.snapshot()))
            build(_document(tmp_path, f"getForecast{night}"), index)
            assert reload(gateway)
        gateway.pinned().search("daily weather forecast", 2)
        gc.collect()
        assert [ref() is None for ref in old] == [True, True, True]
        current = gateway.router.snapshot()
        assert "weather/rest/get_forecast2" in current.routes
    finally:
        gateway.close()
