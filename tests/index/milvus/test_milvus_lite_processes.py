"""One Milvus Lite file, several processes (user trial B): Milvus Lite lets one process at a
time open a file (it holds a lock on it while its engine runs in that process). Real files,
a real Milvus Lite engine, real child processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import IndexBackendError

from index_helpers import LITE_OPEN, base_router

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

TESTS = Path(__file__).resolve().parents[2]


def _child(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LITE_OPEN, str(path), str(TESTS), "hold"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def _router(path: Path) -> SchemaRouter:
    return base_router(f"milvus+lite://{path}?collection=routes")


def test_closing_the_router_lets_another_process_open_the_lite_file(tmp_path: Path) -> None:
    """``router.close()`` closed the pymilvus client, but Milvus Lite's engine in this process
    kept the file's lock until the process ended: a child (an ``index build --rebuild``, a
    second service) then failed with "Milvus failed while connecting: Open local milvus
    failed", for as long as the closed router's process lived."""
    path = tmp_path / "routes.db"
    router = _router(path)
    assert router.retrieve("weather forecast", k=1).route_ids == ("weather/rest/forecast",)
    router.close()
    child = _child(path)
    out, _ = child.communicate("", timeout=240)
    assert out.startswith("OK weather/rest/forecast"), out
    # the closed router answers again: it opens the file anew, the collection loaded
    assert router.retrieve("weather forecast", k=1).route_ids == ("weather/rest/forecast",)
    router.close()


def test_a_lite_file_open_in_another_process_is_named_as_such(tmp_path: Path) -> None:
    """A second process opening a Milvus Lite file a running process has open got "Milvus
    failed while connecting: ConnectionConfigException: Open local milvus failed ... check
    that its folder can be written and the disk is not full; where the file is damaged:
    Rebuild it (... --rebuild ...); where even that fails, delete .../routes.db": advice to
    rebuild or delete a file another service was serving from."""
    path = tmp_path / "routes.db"
    holder = _child(path)
    try:
        assert holder.stdout is not None
        first = holder.stdout.readline()
        assert first.startswith("OK weather/rest/forecast"), first
        router = _router(path)
        with pytest.raises(IndexBackendError) as caught:
            router.retrieve("weather forecast", k=1)
        said = str(caught.value)
        assert f"the Milvus Lite file {path} is open in another process" in said
        assert "nothing is wrong with the file" in said
        hint = str(caught.value.hint)
        assert "router.close()" in hint and "milvus://HOST:PORT/NAME" in hint
        assert "delete" not in said and "--rebuild" not in said and "disk" not in said
    finally:
        holder.communicate("", timeout=240)
    # the holder gone, the same router opens it
    assert router.retrieve("weather forecast", k=1).route_ids == ("weather/rest/forecast",)
    router.close()
