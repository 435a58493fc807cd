"""Every example of docs/integrations.md, run as a user would run it.

Each block marked ``<!-- example: NAME -->`` is extracted and run as it is written, in a
folder holding what the page says the reader has: ``weather.yaml`` (an OpenAPI document whose
server is a real loopback copy of the weather API), the page's ``gateway.yaml`` and the
``notes_server.py`` it names. The LLM APIs are loopback stand-ins (tests/servers/llm_apis.py)
reached through the SDKs' own environment variables; ``schemarouter`` and ``python`` are this
environment's, on ``PATH``. Python examples run as scripts (``__main__``), one interpreter for all of them.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
import yaml
from mcp.client.stdio import StdioServerParameters

from helpers import REPO
from servers.llm_apis import FakeAnthropic, FakeOpenAI
from servers.loopback import LoopbackServer
from servers.user_api import WeatherApp, weather_openapi

PAGE = REPO / "docs" / "integrations.md"
_EXAMPLE = re.compile(r"<!-- example: (\S+) -->\n```(\w+)\n(.*?)```", re.DOTALL)


def examples() -> dict[str, tuple[str, str]]:
    """name -> (language, code) of every marked example on the page."""
    found = {m.group(1): (m.group(2), m.group(3)) for m in _EXAMPLE.finditer(PAGE.read_text())}
    assert found, "no marked examples"
    return found


#: Python examples that are servers: an MCP client starts them (their own test), none runs
#: them as a script to the end.
SERVERS = {"gateway-python"}
PYTHON = sorted(
    name
    for name, (language, _) in examples().items()
    if language == "python" and name not in SERVERS
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    with (
        LoopbackServer(WeatherApp()) as weather,
        LoopbackServer(FakeAnthropic()) as claude,
        LoopbackServer(FakeOpenAI()) as gpt,
    ):
        path = tmp_path_factory.mktemp("reader")
        (path / "weather.yaml").write_text(yaml.safe_dump(weather_openapi(weather.base_url)))
        (path / "gateway.yaml").write_text(examples()["gateway.yaml"][1])
        shutil.copy(Path(__file__).parents[1] / "mcp_servers" / "notes_server.py", path)
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "ANTHROPIC_BASE_URL": claude.base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "OPENAI_BASE_URL": f"{gpt.base_url}/v1",
            "OPENAI_API_KEY": "test-key",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
        }
        yield path, env


#: Runs every Python example in one interpreter (each as ``__main__``, in its own namespace),
#: printing a marker before each and after a failure: imports are paid once, not per example.
_DRIVER = """
import runpy, sys, traceback
for name in sys.argv[1:]:
    print(f"=== example {name}", flush=True)
    try:
        runpy.run_path(f"example_{name}.py", run_name="__main__")
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        print(f"=== failed {name}", flush=True)
"""


@pytest.fixture(scope="module")
def printed(folder: tuple[Path, dict[str, str]]) -> dict[str, str]:
    """What each Python example printed (or its traceback)."""
    path, env = folder
    for name in PYTHON:
        (path / f"example_{name}.py").write_text(examples()[name][1])
    (path / "driver.py").write_text(_DRIVER)
    out = subprocess.run(
        [sys.executable, "driver.py", *PYTHON],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    sections = re.split(r"^=== example (\S+)\n", out.stdout, flags=re.MULTILINE)
    return dict(zip(sections[1::2], sections[2::2], strict=True))


#: What each example must print (a check per example that it did its job).
EXPECTED = {
    "definitions": ["anthropic ['weather__rest__get_forecast'", "weather/rest/get_forecast"],
    "call": ["ok {'date': '2025-06-01'", "{'days': [{'temp_max': 30.5}", "SR601"],
    "anthropic": ["Result:", "30.5", "Paris"],
    "openai": ["Result:", "30.5", "Paris"],
    "agents-sdk": ["Result:", "Paris"],
    "langgraph": ["weather__rest__get_forecast", '"city": "Paris"'],
    "llamaindex": ["weather__rest__get_forecast", '"city": "Paris"'],
}


def test_every_python_example_is_checked() -> None:
    assert sorted(EXPECTED) == PYTHON


@pytest.mark.parametrize("name", PYTHON)
def test_python_example_runs(name: str, printed: dict[str, str]) -> None:
    text = printed[name]
    assert f"=== failed {name}" not in text, text
    for expected in EXPECTED[name]:
        assert expected in text, f"{name} printed:\n{text}"


def test_the_gateway_config_loads(folder: tuple[Path, dict[str, str]]) -> None:
    from schemarouter.serve import load_config

    config = load_config(folder[0] / "gateway.yaml")
    assert config.mcp_servers[0].command == ["python", "notes_server.py"]
    assert "notes/mcp/search_notes" in config.allow.write


def test_the_claude_config_starts_the_gateway(folder: tuple[Path, dict[str, str]]) -> None:
    path, env = folder
    server = json.loads(examples()["claude-config"][1])["mcpServers"]["schemarouter"]
    command = shutil.which(server["command"], path=env["PATH"])
    assert command is not None

    async def run() -> Any:
        params = StdioServerParameters(command=command, args=server["args"], cwd=str(path), env=env)
        async with mcp.Client(params) as client:
            found = await client.call_tool("search_tools", {"query": "search research notes"})
            names = [t["name"] for t in found.structured_content["tools"]]
            called = await client.call_tool(
                "call_tool", {"name": "notes__mcp__search_notes", "arguments": {"query": "GaN"}}
            )
            return names, called

    names, called = asyncio.run(run())
    assert "notes__mcp__search_notes" in names
    assert not called.is_error
    assert called.structured_content["output"]["notes"][0]["title"] == "GaN band gap"


def test_the_gateway_script_serves_your_own_functions(folder: tuple[Path, dict[str, str]]) -> None:
    """Trial X3: a team with typed Python functions beside their OpenAPI document and MCP
    server found no way to put the functions behind ``schemarouter serve`` (a config names
    documents and servers, no code), though the public API does it in four lines. The page's
    script, started by an MCP client as the page says, offers and runs them beside the
    config's tools."""
    path, env = folder
    (path / "my_gateway.py").write_text(examples()["gateway-python"][1])

    async def run() -> Any:
        params = StdioServerParameters(
            command=sys.executable, args=["my_gateway.py"], cwd=str(path), env=env
        )
        async with mcp.Client(params) as client:
            found = await client.call_tool(
                "search_tools", {"query": "shipping cost of a parcel", "k": 3}
            )
            called = await client.call_tool(
                "call_tool",
                {"name": "team__python__shipping_cost", "arguments": {"weight_kg": 3}},
            )
            notes = await client.call_tool("search_tools", {"query": "search research notes"})
            return found, called, notes

    found, called, notes = asyncio.run(run())
    assert "team__python__shipping_cost" in [t["name"] for t in found.structured_content["tools"]]
    assert not called.is_error, called.content
    assert called.structured_content["output"] == 9.4
    assert "notes__mcp__search_notes" in [t["name"] for t in notes.structured_content["tools"]]
