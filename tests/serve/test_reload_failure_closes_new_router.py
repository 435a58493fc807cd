"""A reload that fails with an error of no SchemaRouter kind (an ``OSError`` reading the new
generation's files, a ``MemoryError``, a bug) closes the router it opened, as one refused
with a ``SchemaRouterError`` does, and the old generation answers on (thirteenth review).
Before, only a ``SchemaRouterError`` closed it: every such failed reload left a router open
(its index, its Milvus connection, its sessions), and the exception went on to the caller
(``POST /admin/reload`` answered 500 with no reason)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.generation import open_index, reload

from servers.serve_process import build
from servers.user_api import weather_openapi

OPTIONS = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}
FORECAST = "weather__rest__get_forecast"


def test_a_reload_that_fails_with_a_plain_error_closes_its_router_and_keeps_the_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "weather.yaml"
    source.write_text(yaml.safe_dump(weather_openapi("http://127.0.0.1:9")))
    index = tmp_path / "index"
    build(source, index)
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **OPTIONS)
    try:
        open_index(gateway)
        old, state = gateway.router, gateway.index_state
        built, closed = list[Any](), list[Any]()
        build_index, close = SchemaRouter.build_index, SchemaRouter.close

        def failing_build(self: SchemaRouter, *args: Any, **kwargs: Any) -> Any:
            build_index(self, *args, **kwargs)  # the new generation's index is open
            built.append(self)
            raise OSError(errno.EIO, "Input/output error", "vectors.npy")

        def counted_close(self: SchemaRouter) -> None:
            closed.append(self)
            close(self)

        monkeypatch.setattr(SchemaRouter, "build_index", failing_build)
        monkeypatch.setattr(SchemaRouter, "close", counted_close)
        for _ in range(2):
            said: list[str] = []
            assert reload(gateway, said=said) is False
            assert said[-1].startswith(f"reload refused, generation {state.generation} ")
            assert "OSError" in said[-1] and "Input/output error" in said[-1]
        assert len(built) == 2 and old not in built
        assert [any(r is router for r in closed) for router in built] == [True, True]
        assert not any(r is old for r in closed)
        assert gateway.router is old and gateway.index_state == state
        monkeypatch.undo()
        assert FORECAST in {t["name"] for t in gateway.pinned().search("forecast", 2)["tools"]}
    finally:
        gateway.close()


def test_an_index_that_fails_to_open_with_a_plain_error_is_failed_not_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, a plain error opening the index at start left ``/readyz`` at ``loading`` for
    ever (only a ``SchemaRouterError`` set ``failed``) and ended serve's warm-up thread with a
    traceback; now it is ``failed`` with the error's type, and one line says why."""
    from schemarouter.serve.cli import _warm_up

    source = tmp_path / "weather.yaml"
    source.write_text(yaml.safe_dump(weather_openapi("http://127.0.0.1:9")))
    build(source, tmp_path / "index")
    gateway = Gateway.from_config(GatewayConfig(index=str(tmp_path / "index")), **OPTIONS)

    def failing_build(self: SchemaRouter, *args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EIO, "Input/output error", "vectors.npy")

    monkeypatch.setattr(SchemaRouter, "build_index", failing_build)
    try:
        with pytest.raises(OSError):
            open_index(gateway)
        assert gateway.index_state.probe() == {"state": "failed", "error": "OSError"}
        assert not gateway.index_state.ready
        capsys.readouterr()
        _warm_up(gateway, False)
        (line,) = capsys.readouterr().err.splitlines()
        assert line == (
            "schemarouter serve: the index did not open: OSError: [Errno 5] Input/output "
            "error: 'vectors.npy'"
        )
    finally:
        gateway.close()
