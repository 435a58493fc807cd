"""Reloads of a gateway's index folder while other threads search and describe through it
(eleventh security review; held, kept as tests): the folder rebuilt in place, swapped by
rename, and swapped while the reload reads it; then replaced by folders a reload cannot
serve. Two generations that cannot be told apart by accident: v1 names its forecast tool
``get_forecast``, v2 ``get_outlook``."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import yaml

from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.gateway import Gateway
from schemarouter.serve.generation import open_index, reload

from servers.serve_process import build
from servers.user_api import weather_openapi

OPTIONS = {"encoder": HashingEncoder(64), "embedding_cache": None, "abstention": None}
V1, V2 = "weather__rest__get_forecast", "weather__rest__get_outlook"


def _document(folder: Path, operation: str) -> Path:
    spec = weather_openapi("http://127.0.0.1:9")
    spec["paths"]["/forecast"]["get"]["operationId"] = operation
    path = folder / f"{operation}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _swap(index: Path, built: Path) -> None:
    """``index`` replaced by a copy of ``built``, by two renames (a deploy's swap)."""
    staged = index.with_name("staged")
    shutil.copytree(built, staged)
    os.rename(index, index.with_name("old"))
    os.rename(staged, index)
    shutil.rmtree(index.with_name("old"))


def _reload_into(gateway: Gateway, said: list[str]) -> None:
    said.append(str(reload(gateway)))


def test_requests_during_reloads_are_answered_wholly_by_one_generation(tmp_path: Path) -> None:
    v1, v2 = _document(tmp_path, "getForecast"), _document(tmp_path, "getOutlook")
    built = {1: tmp_path / "v1", 2: tmp_path / "v2"}
    build(v1, built[1])
    build(v2, built[2])
    index = tmp_path / "index"
    shutil.copytree(built[1], index)
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **OPTIONS)
    open_index(gateway)
    stop, problems, answered = threading.Event(), list[Any](), [0]

    def ask() -> None:
        while not stop.is_set():
            view = gateway.pinned()
            try:
                names = {t["name"] for t in view.search("weather forecast outlook", 4)["tools"]}
                for name in names:  # every tool it offered, described by the same view
                    view.describe(name)
            except Exception as exc:
                problems.append(repr(exc))
                continue
            if {V1, V2} <= names or not names & {V1, V2}:
                problems.append(f"mixed or empty: {sorted(names)}")
            answered[0] += 1

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        for round in range(9):
            version = 2 if round % 2 == 0 else 1
            how = round % 3
            if how == 0:
                build(v2 if version == 2 else v1, index)  # rebuilt into the folder
            elif how == 1:
                _swap(index, built[version])  # swapped by rename
            said: list[str] = []
            loading = threading.Thread(target=_reload_into, args=(gateway, said))
            loading.start()
            if how == 2:
                _swap(index, built[version])  # swapped while the reload reads it
            loading.join()
            assert said and said[0] in ("True", "False")
        # a last reload of a settled folder serves it
        assert reload(gateway)
        search = gateway.pinned().search("weather forecast outlook", 4)
        expected = V2 if version == 2 else V1
        assert expected in {t["name"] for t in search["tools"]}
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        gateway.close()
    assert problems == []
    assert answered[0] > 0


def test_a_reload_of_a_folder_that_cannot_be_served_keeps_the_old_and_says_why(
    tmp_path: Path,
) -> None:
    """A folder that is a symlink to itself, a generation that is a file, a manifest that is
    a folder: each reload is refused with the reason, and the old generation still answers."""
    build(_document(tmp_path, "getForecast"), tmp_path / "index")
    index = tmp_path / "index"
    gateway = Gateway.from_config(GatewayConfig(index=str(index)), **OPTIONS)
    try:
        open_index(gateway)
        router = gateway.router

        def looped() -> None:
            shutil.rmtree(index)
            index.symlink_to(index)

        def generation_a_file() -> None:
            generation = build(_document(tmp_path, "getOutlook"), index)["generation"]
            shutil.rmtree(index / generation)
            (index / generation).write_text("x")

        def manifest_a_folder() -> None:
            build(_document(tmp_path, "getOutlook"), index)
            (index / "manifest.json").unlink()
            (index / "manifest.json").mkdir()

        for damage in (looped, generation_a_file, manifest_a_folder):
            if index.is_symlink():
                index.unlink()
            damage()
            said: list[str] = []
            assert not reload(gateway, said=said), damage.__name__
            assert said[-1].startswith("reload refused, generation ") and "[SR302]" in said[-1]
            assert gateway.router is router
            assert V1 in {t["name"] for t in gateway.pinned().search("forecast", 2)["tools"]}
    finally:
        gateway.close()
