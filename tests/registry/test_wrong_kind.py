"""A source of the wrong kind given to the Python API: the refusal says what it is and which
router method takes it (the command line names its flags instead: test_cli_sources.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.errors import DocumentError

from helpers import TINY_CATALOG
from servers.user_api import weather_openapi

# any OpenAPI document: the tests hand it to the wrong registration
WEATHER = weather_openapi("http://127.0.0.1:9")


@pytest.fixture
def weather_file(tmp_path: Path) -> Path:
    path = tmp_path / "weather.yaml"
    path.write_text(yaml.safe_dump(WEATHER))
    return path


def _refusal(register: Any) -> str:
    with pytest.raises(DocumentError) as info:
        register()
    return str(info.value)


def test_the_python_api_names_the_router_method_not_the_cli_flag(
    weather_file: Path, tmp_path: Path
) -> None:
    """``router.add_catalog('weather.yaml')``, ``SchemaRouter.from_catalog(...)`` and
    ``add_mcp_tools(<OpenAPI dict>)`` said "Pass it with --openapi [PROVIDER=]FILE
    (retrieve, index build and serve all take it)" to a Python caller (trial W F2). In
    Python the hint names the method: router.add_openapi(...), router.add_catalog(...)."""
    router = SchemaRouter()
    for register in (
        lambda: router.add_catalog(weather_file),
        lambda: SchemaRouter.from_catalog(weather_file),
        lambda: router.add_mcp_tools(WEATHER, provider="m"),
    ):
        message = _refusal(register)
        assert "this is an OpenAPI document, not" in message
        assert "Register it with router.add_openapi(...)" in message
        assert "--openapi" not in message
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(TINY_CATALOG)
    message = _refusal(lambda: router.add_openapi(catalog))
    assert "this is a SchemaRouter catalog, not an OpenAPI document" in message
    assert "Register it with router.add_catalog(path)" in message
    assert "--catalog" not in message
    assert len(router.snapshot()) == 0


def test_the_cli_still_names_its_flag(
    weather_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same file given to the CLI as a catalog keeps the README's wording: the flag."""
    assert main(["retrieve", "forecast", "--catalog", str(weather_file)]) == 1
    err = capsys.readouterr().err
    assert "this is an OpenAPI document, not a SchemaRouter catalog" in err
    assert "Pass it with --openapi [PROVIDER=]FILE" in err
    assert "router.add_openapi" not in err
    # and after the command, Python callers get the method again
    assert "router.add_openapi(...)" in _refusal(lambda: SchemaRouter().add_catalog(weather_file))


def test_catalog_text_is_refused_as_text_not_read_as_a_path(tmp_path: Path) -> None:
    """``add_catalog(text)`` read the YAML as a file name: "cannot read the catalog path:
    File name too long (at # Bundled catalog: ...)", or for a short text "catalog not found"
    (trial W F9). Text (a line break, or a start of YAML or JSON) is refused as catalog text,
    saying a catalog is a file or a folder and to write the text to a file first."""
    router = SchemaRouter()
    for text in (TINY_CATALOG, "# my catalog\n" * 400, '{"schemarouter_catalog": 1}'):
        message = _refusal(lambda text=text: router.add_catalog(text))
        assert "this looks like catalog text, not a path" in message
        assert "a catalog is a file or a folder" in message
        assert "write_text(text)" in message
        assert "too long" not in message and "not found" not in message
    assert len(router.snapshot()) == 0
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(TINY_CATALOG)
    assert router.add_catalog(str(catalog)).added  # the file's path still registers
