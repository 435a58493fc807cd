"""A generation is searched once before it answers: at start before ``/readyz`` says ready,
and on a reload before the switch (user trial Y3: at 100,000 routes the first search built
the registry's lookup tables and tool names for 9.4 s, which the first client after the
probe said ready, and after every reload, waited for)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.generation import WARM_QUERY, open_index, reload

from servers.serve_process import build
from servers.user_api import weather_openapi

OPTIONS = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}


def _document(folder: Path, operation: str) -> Path:
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / f"{operation}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("executable_only", [True, False])
def test_each_generation_is_searched_before_it_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executable_only: bool
) -> None:
    index = tmp_path / "index"
    build(_document(tmp_path, "getForecast"), index)
    config = GatewayConfig.model_validate(
        {"index": str(index), "search": {"executable_only": executable_only}}
    )
    gateway = Gateway.from_config(config, **OPTIONS)
    asked: list[tuple[Any, Any, str, str]] = []  # router asked, router serving, state, query

    def spy(method: str) -> None:
        original = getattr(SchemaRouter, method)

        def searched(self: SchemaRouter, query: str, *args: Any, **kwargs: Any) -> Any:
            asked.append((self, gateway.router, gateway.index_state.state, query))
            return original(self, query, *args, **kwargs)

        monkeypatch.setattr(SchemaRouter, method, searched)

    spy("retrieve")
    spy("retrieve_executable")
    try:
        open_index(gateway)
        [(router, serving, state, query)] = asked
        assert router is serving is gateway.router and query == WARM_QUERY
        assert state == "loading"  # before the probe says ready
        asked.clear()
        build(_document(tmp_path, "getOutlook"), index)
        old = gateway.router
        assert reload(gateway)
        [(router, serving, state, query)] = asked
        assert router is gateway.router and serving is old  # the new one, before the switch
        assert query == WARM_QUERY and state == "open"
        asked.clear()
        gateway.search("daily weather outlook", k=1)
        assert [q for *_, q in asked] == ["daily weather outlook"]
    finally:
        gateway.close()
