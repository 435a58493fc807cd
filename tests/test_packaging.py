"""The wheel holds every Python folder and the runtime data; regular and editable installs
both import from another folder, and neither exposes top-level ``engine``/``index``/``training``.

The installs go into fresh virtual environments that reuse this environment's dependencies
through a ``.pth`` file (no network, no rebuild of torch), with ``pip --no-deps``. They build
from a copy of the checkout: setuptools writes ``build/`` and ``*.egg-info`` beside the
sources, and the checkout's own strict editable install reads its modules through
``build/__editable__...``, which another test process importing ``schemarouter`` meanwhile
must find whole (the default run has several workers).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAPPING = {
    "engine": "schemarouter",
    "index": "schemarouter.index",
    "training": "schemarouter.training",
}
DATA_FOLDERS = {"models": "schemarouter/models", "data": "schemarouter/data"}


def _python_folders() -> set[str]:
    """Every folder of Python files in the source tree, as an installed package path."""
    found: set[str] = set()
    for folder, package in MAPPING.items():
        for init in (REPO / folder).rglob("*.py"):
            if ".venv" in init.parts or "__pycache__" in init.parts:
                continue
            relative = init.parent.relative_to(REPO / folder)
            found.add("/".join([package.replace(".", "/"), *relative.parts]))
    return found


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What a build reads of the checkout, copied (see the module docstring)."""
    copy = tmp_path_factory.mktemp("source")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".venv", "build", "*.egg-info")
    for folder in (*MAPPING, *DATA_FOLDERS):
        shutil.copytree(REPO / folder, copy / folder, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, copy / name)
    return copy


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory, source: Path) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=out,
    )
    (path,) = out.glob("schemarouter_engine-*.whl")
    return path


def test_every_python_folder_is_in_the_wheel(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    folders_in_wheel = {n.rsplit("/", 1)[0] for n in names if n.endswith(".py")}
    missing = _python_folders() - folders_in_wheel
    assert not missing, (
        f"folders of Python files missing from the wheel: {sorted(missing)}; "
        "add them to [tool.setuptools] packages in pyproject.toml"
    )
    assert not [n for n in names if n.split("/")[0] in {"engine", "index", "training"}]
    for marker in (
        "schemarouter/py.typed",
        "schemarouter/index/py.typed",
        "schemarouter/training/py.typed",
        "schemarouter/registry/catalog.schema.json",
    ):
        assert marker in names
    for folder, target in DATA_FOLDERS.items():
        wanted = {
            f"{target}/{p.relative_to(REPO / folder).as_posix()}"
            for p in (REPO / folder).rglob("*")
            if p.is_file() and p.suffix in {".yaml", ".json", ".onnx", ".md", ".txt", ".jsonl"}
        }
        assert wanted <= set(names), sorted(wanted - set(names))[:5]


def _fresh_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(path)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # dependencies from this environment, without its own (editable) schemarouter
    deps = [p for p in {sysconfig.get_paths()["purelib"], *site.getsitepackages()}]
    (Path(purelib) / "_deps.pth").write_text("\n".join(deps) + "\n")
    return python


def _pip_install(python: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": ""}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )


IMPORT_CHECK = """
import importlib, json, sys
import schemarouter, schemarouter.index, schemarouter.training
from importlib.resources import files
for bare in ("engine", "index", "training"):
    try:
        importlib.import_module(bare)
    except ModuleNotFoundError:
        pass
    else:
        raise SystemExit(f"top-level module {bare!r} is importable")
print(json.dumps({"file": schemarouter.__file__,
                  "catalog": files("schemarouter.data").joinpath("catalogs").is_dir(),
                  "schema": files("schemarouter.registry").joinpath("catalog.schema.json").is_file()}))
"""


def _check_import(python: Path, cwd: Path) -> dict[str, object]:
    import json

    out = subprocess.run(
        [str(python), "-c", IMPORT_CHECK],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_regular_install_imports_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    _pip_install(python, str(wheel))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = _check_import(python, elsewhere)
    assert str(tmp_path / "venv") in str(result["file"])
    assert result["catalog"] and result["schema"]


def test_editable_install_imports_from_another_folder(tmp_path: Path, source: Path) -> None:
    """The README's install line for an extra (``pip install -e '.[serve]'`` in the
    checkout), into a fresh venv outside it: the distribution is ``schemarouter-engine``, it
    provides the extra, and the import name is ``schemarouter``."""
    python = _fresh_venv(tmp_path / "venv")
    _pip_install(python, "--config-settings", "editable_mode=strict", "-e", f"{source}[serve]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = _check_import(python, elsewhere)
    assert result["catalog"] and result["schema"]
    metadata = subprocess.run(
        [
            str(python),
            "-c",
            "from importlib.metadata import metadata; m = metadata('schemarouter-engine'); "
            "print(m['Name']); print(sorted(m.get_all('Provides-Extra')))",
        ],
        cwd=elsewhere,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    ).stdout.splitlines()
    assert metadata[0] == "schemarouter-engine"
    assert "serve" in metadata[1] and "milvus" in metadata[1]
