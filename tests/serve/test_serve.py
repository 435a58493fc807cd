"""``schemarouter serve``: a real MCP client session against the gateway over stdio and over
streamable HTTP, with a real upstream MCP server (tests/mcp_servers/notes_server.py) and a
user's OpenAPI route served on loopback (tests/servers/user_api.py).

The gateway is read-only by default: upstream tools register as untrusted (write), so only
the routes the config names under ``allow`` run; calls go through ``router.acall`` (gate,
policy, health, output validation).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
import yaml
from mcp.client.stdio import StdioServerParameters

from schemarouter.cli import build_parser
from schemarouter.errors import DocumentError, PolicyError
from schemarouter.index import HashingEncoder
from schemarouter.serve import Gateway, GatewayConfig, load_config
from schemarouter.serve.cli import _serve_config

from servers.loopback import LoopbackServer
from servers.processes import free_port, http_mcp_server, serving
from servers.user_api import weather_openapi, weather_router

SERVERS = Path(__file__).parents[1] / "mcp_servers"
NOTES = SERVERS / "notes_server.py"
GATEWAY = SERVERS / "gateway_server.py"


def _config(folder: Path, weather_url: str, upstream: dict[str, Any]) -> Path:
    (folder / "weather.json").write_text(json.dumps(weather_openapi(weather_url)))
    config = {
        "name": "test-gateway",
        "openapi": [{"source": "weather.json", "provider": "weather"}],
        "mcp_servers": [{"provider": "notes", **upstream}],
        "allow": {"write": ["notes/mcp/search_notes", "notes__mcp__crash", "notes/mcp/server_pid"]},
        "search": {"rerank": False},
    }
    path = folder / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _structured(result: Any) -> Any:
    """The structured answer, checked against the text content (the same JSON)."""
    assert result.structured_content is not None, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def _conversation(client: Any) -> dict[str, Any]:
    """One session's worth of requests; what each answered."""
    seen: dict[str, Any] = {}
    listed = await client.list_tools()
    seen["tools"] = sorted(t.name for t in listed.tools)
    forecast = _structured(
        await client.call_tool("search_tools", {"query": "weather forecast", "k": 2})
    )
    seen["forecast_search"] = [t["name"] for t in forecast["tools"]]
    notes = _structured(await client.call_tool("search_tools", {"query": "search research notes"}))
    seen["notes_search"] = [t["name"] for t in notes["tools"]]
    seen["describe"] = _structured(
        await client.call_tool("describe_tool", {"name": "notes__mcp__search_notes"})
    )
    called = await client.call_tool(
        "call_tool",
        {"name": "weather__rest__get_forecast", "arguments": {"city": "Lyon", "days": 1}},
    )
    seen["forecast"] = (called.is_error, _structured(called))
    found = await client.call_tool(
        "call_tool", {"name": "notes__mcp__search_notes", "arguments": {"query": "band gap"}}
    )
    seen["notes"] = (found.is_error, _structured(found))
    refused = await client.call_tool(
        "call_tool", {"name": "notes__mcp__delete_note", "arguments": {"note_id": 1}}
    )
    seen["refused"] = (refused.is_error, refused.content[0].text)
    bad = await client.call_tool(
        "call_tool",
        {"name": "weather__rest__get_forecast", "arguments": {"city": "Lyon", "days": 99}},
    )
    seen["bad"] = (bad.is_error, bad.content[0].text)
    typo = await client.call_tool(
        "call_tool", {"name": "weather__rest__get_forcast", "arguments": {}}
    )
    seen["typo"] = (typo.is_error, typo.content[0].text)
    zero = await client.call_tool("search_tools", {"query": "weather", "k": 0})
    seen["zero"] = (zero.is_error, zero.content[0].text)
    return seen


def _check(seen: dict[str, Any]) -> None:
    assert seen["tools"] == ["call_tool", "describe_tool", "search_tools"]
    assert seen["forecast_search"][0] == "weather__rest__get_forecast"
    # untrusted upstream tools are writes: only the ones the config allows are offered
    assert "notes__mcp__search_notes" in seen["notes_search"]
    assert "notes__mcp__get_note" not in seen["notes_search"]
    assert "notes__mcp__delete_note" not in seen["notes_search"]
    describe = seen["describe"]
    assert describe["route_id"] == "notes/mcp/search_notes" and describe["allowed"] is True
    assert describe["effect"] == "write" and describe["executable"] is True
    assert {
        "name": "total",
        "path": "total",
        "type": "integer",
        "description": "Total",
    } in describe["returns"]
    error, forecast = seen["forecast"]
    assert (
        not error and forecast["output"]["city"] == "Lyon" and len(forecast["output"]["days"]) == 1
    )
    error, notes = seen["notes"]
    assert not error and notes["output"]["notes"][0]["title"] == "GaN band gap"
    error, text = seen["refused"]
    assert error and "allow.destructive" in text
    error, text = seen["bad"]
    assert error and "[SR601]" in text and "$.days" in text
    error, text = seen["typo"]
    assert error and "weather__rest__get_forecast" in text  # did you mean ...
    error, text = seen["zero"]
    assert error and "k must be" in text


def test_stdio_gateway_with_a_stdio_upstream(weather: LoopbackServer, tmp_path: Path) -> None:
    config = _config(tmp_path, weather.base_url, {"command": [sys.executable, str(NOTES)]})

    async def run() -> dict[str, Any]:
        params = StdioServerParameters(command=sys.executable, args=[str(GATEWAY), str(config)])
        async with mcp.Client(params) as client:
            seen = await _conversation(client)
            # the upstream dies mid-call; the gateway's session reconnects for the next one
            pid = _structured(
                await client.call_tool("call_tool", {"name": "notes__mcp__server_pid"})
            )
            crash = await client.call_tool(
                "call_tool", {"name": "notes__mcp__crash", "arguments": {}}
            )
            again = _structured(
                await client.call_tool("call_tool", {"name": "notes__mcp__server_pid"})
            )
            seen["reconnect"] = (pid["output"], crash.is_error, again["output"])
            return seen

    seen = asyncio.run(run())
    _check(seen)
    first, crashed, second = seen["reconnect"]
    assert crashed and first != second


def test_http_gateway_with_an_http_upstream(weather: LoopbackServer, tmp_path: Path) -> None:
    with http_mcp_server(NOTES) as upstream:
        config = _config(tmp_path, weather.base_url, {"url": upstream})
        port = free_port()
        with serving([sys.executable, str(GATEWAY), str(config), "http", str(port)], port):

            async def run() -> dict[str, Any]:
                async with mcp.Client(f"http://127.0.0.1:{port}/mcp") as client:
                    return await _conversation(client)

            _check(asyncio.run(run()))


# -- the gateway in process ------------------------------------------------------------------


@pytest.fixture
def gateway(weather: LoopbackServer) -> Iterator[Gateway]:
    router = weather_router(weather.base_url)
    config = GatewayConfig(allow={"write": ["weather__rest__create_alert"]})
    yield Gateway(router, config)
    router.close()


def test_writes_run_only_where_the_config_names_them(gateway: Gateway) -> None:
    body = {"body": {"city": "Nice", "message": "storm"}}
    assert gateway.call("weather__rest__create_alert", body).output == {
        "id": 1,
        "status": "created",
    }
    found = gateway.search("create a weather alert", k=5)
    names = [t["name"] for t in found["tools"]]
    assert "weather__rest__create_alert" in names
    closed = Gateway(gateway.router, GatewayConfig())  # read-only
    assert "weather__rest__create_alert" not in [
        t["name"] for t in closed.search("alert", k=5)["tools"]
    ]
    with pytest.raises(PolicyError, match=r"allow\.write"):
        closed.call("weather__rest__create_alert", body)
    described = closed.describe("weather/rest/create_alert")
    assert described["allowed"] is False and described["effect"] == "write"


def test_an_allow_entry_that_matches_no_tool_is_said_once(
    gateway: Gateway, caplog: pytest.LogCaptureFixture
) -> None:
    """An allow entry with a typo ('create_alrt') allowed nothing and nothing said so (user
    trial S #9): the first search, once no upstream is connecting, logs each entry that
    matches no registered tool, once."""
    config = GatewayConfig(
        allow={"write": ["weather__rest__create_alert", "weather/rest/create_alrt", "*/x_*"]}
    )
    typo = Gateway(gateway.router, config)
    with caplog.at_level(logging.WARNING, logger="schemarouter.serve.gateway"):
        typo.search("weather alert", k=2)
        typo.search("weather alert", k=2)
    said = [r.getMessage() for r in caplog.records if "matches no registered tool" in r.message]
    assert len(said) == 2
    assert "'weather/rest/create_alrt'" in said[0] and "'*/x_*'" in said[1]


def test_an_empty_search_says_why(gateway: Gateway) -> None:
    gateway.router.mark_unhealthy("weather/rest/get_forecast")
    gateway.router.mark_unhealthy("weather/rest/get_station")
    gateway.router.mark_unhealthy("weather/rest/get_broken")
    closed = Gateway(gateway.router, GatewayConfig())
    answer = closed.search("weather forecast", k=2)
    assert answer["tools"] == [] and answer["reason"]


def test_an_off_catalog_search_offers_the_best_tools_and_flags_the_request(
    weather: LoopbackServer,
) -> None:
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder
    from schemarouter.retrieval.abstention import AbstentionModel

    strict = AbstentionModel(weights={"top_dense": 0.0}, bias=-5.0, threshold=0.5, card={})
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=strict, reranker=None
    )
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    answer = Gateway(router, GatewayConfig()).search("forecast for Lyon tomorrow", k=2)
    # the verdict is the model's to give and the client's to act on: nothing is hidden
    assert answer["tools"] and answer["off_catalog"] is True
    assert "calibrated threshold 0.50" in answer["reason"] and answer["confidence"] < 0.5
    router.close()


# -- config ----------------------------------------------------------------------------------


def test_config_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(
        "catalogs: [cat]\nopenapi: [{source: specs/a.yaml}]\n"
        "mcp_servers: [{provider: n, command: python s.py, cwd: srv}]\n"
    )
    config = load_config(path)
    assert config.catalogs == (str(tmp_path / "cat"),)
    assert config.openapi[0].source == str(tmp_path / "specs/a.yaml")
    assert config.openapi[0].provider_id() == "a"
    assert config.mcp_servers[0].cwd == str(tmp_path / "srv")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcp_servers: [{provider: n}]", "exactly one of command"),
        ("mcp_servers: [{provider: n, command: x, url: 'http://h'}]", "exactly one of command"),
        ("allow: {write: [a], read: [b]}", "unknown key"),
        ("- just a list", "must be a mapping"),
        ("openapi: [{source: ''}]", "at least 1 character"),
        # every search was cut to max_k without a word (trial S #9)
        ("search: {k: 50, max_k: 20}", r"k \(50\) is above max_k \(20\)"),
    ],
)
def test_config_errors_say_where(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(text)
    with pytest.raises(DocumentError, match=message) as error:
        load_config(path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("written", "where"),
    [
        ("    timeout: fast\n", "gw.yaml:7: mcp_servers[1].timeout"),
        ("    tmeout: 5\n", "gw.yaml:7: mcp_servers[1].tmeout"),
        ("", "gw.yaml:5: mcp_servers[1]"),  # a required key missing: its mapping's line
    ],
)
def test_a_config_error_names_its_line(tmp_path: Path, written: str, where: str) -> None:
    """Trial P (low): an error of the config's check named the key path only
    (``gw.yaml: mcp_servers[1].timeout``); in a long file the author counted keys. The line
    is read back from the file."""
    path = tmp_path / "gw.yaml"
    path.write_text(
        "# the team's gateway\nname: team\nmcp_servers:\n"
        "  - {provider: a, command: python a.py}\n"
        "  - provider: b\n"
        "    trusted: true\n" + written + ("    command: python b.py\n" if written else "")
    )
    with pytest.raises(DocumentError) as error:
        load_config(path)
    assert error.value.where == str(tmp_path / where)


def test_an_upstream_starts_in_the_folder_its_cwd_names(tmp_path: Path) -> None:
    """The config's ``cwd:`` was read (and made relative to the file), then never passed on:
    the server started in the gateway's own folder."""
    path = tmp_path / "gw.yaml"
    cwd = Path("servers")
    (tmp_path / cwd).symlink_to(SERVERS, target_is_directory=True)
    upstream = {"provider": "notes", "command": [sys.executable, NOTES.name], "cwd": str(cwd)}
    path.write_text(yaml.safe_dump({"mcp_servers": [upstream], "search": {"rerank": False}}))
    gateway = Gateway.from_config(
        load_config(path), encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    try:
        assert "notes/mcp/get_note" in gateway.router.snapshot().route_ids()
    finally:
        gateway.close()


def test_an_upstreams_url_credential_shows_nowhere(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An HTTP upstream's credential travels in its URL; when it failed, the whole URL
    was in every search answer's ``unavailable`` and in the WARNING log (a user trial)."""
    url = f"http://agent:pw-s3cret@127.0.0.1:{free_port()}/mcp?token=t0k-s3cret"
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": [{"provider": "remote", "url": url}]}))
    gateway = Gateway.from_config(
        load_config(path),
        background=True,  # as serve does: the failure is told in every answer
        encoder=HashingEncoder(),
        embedding_cache=None,
        abstention=None,
    )
    try:
        gateway.upstreams.wait(20)
        answer = gateway.search("anything", k=1)
    finally:
        gateway.close()
    said = json.dumps(answer) + caplog.text
    assert "remote" in answer["unavailable"]
    assert "s3cret" not in said and "127.0.0.1" in said
    # the library's own error and the routes' provenance: the URL without userinfo and query
    router = weather_router("http://127.0.0.1:9")
    with pytest.raises(Exception) as caught:
        router.add_mcp_server(url, provider="remote", timeout=5)
    assert "s3cret" not in str(caught.value) and "/mcp" in str(caught.value)


def test_two_upstreams_with_one_provider_are_refused(tmp_path: Path) -> None:
    """Both loaded, and whichever connected first registered (trial B §2): random."""
    path = tmp_path / "gw.yaml"
    path.write_text(
        "mcp_servers:\n"
        "  - {provider: tools, command: [python, units.py]}\n"
        "  - {provider: other, url: 'http://127.0.0.1:9/mcp'}\n"
        "  - {provider: tools, command: [python, notes.py]}\n"
    )
    with pytest.raises(DocumentError) as error:
        load_config(path)
    message = str(error.value)
    assert error.value.code == "SR101" and f"{path}: mcp_servers[2].provider" in message
    assert "mcp_servers[0] (python units.py) and mcp_servers[2] (python notes.py)" in message
    assert "both have provider 'tools'" in message
    path.write_text("mcp_servers: [{provider: notes, command: [python, notes.py]}]\n")
    flag = ["serve", "--config", str(path), "--mcp-server", "notes=python other.py"]
    with pytest.raises(DocumentError, match=r"mcp_servers\[0\] \(python notes.py\) and"):
        _serve_config(build_parser().parse_args(flag))


def test_flags_add_to_the_config(tmp_path: Path) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text("allow: {write: [a/b/c]}\nsearch: {k: 3}\n")
    args = build_parser().parse_args(
        [
            "serve",
            "--config",
            str(path),
            "--openapi",
            "wx=spec.yaml",
            "--mcp-server",
            "notes=python notes.py --flag",
            "--allow-write",
            "notes/*",
            "--no-rerank",
            "-k",
            "4",
        ]
    )
    config = _serve_config(args)
    assert config.allow.write == ("a/b/c", "notes/*")
    assert config.openapi[0].provider == "wx" and config.openapi[0].source == "spec.yaml"
    assert config.mcp_servers[0].command == ["python", "notes.py", "--flag"]
    assert config.search.k == 4 and config.search.rerank is False
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--mcp-server", "no-equals-sign"])


def test_each_call_is_logged_with_its_route_outcome_and_time(
    gateway: Gateway, caplog: pytest.LogCaptureFixture
) -> None:
    """A call through the gateway left no trace in its log, a write it approved included
    (user trial P): each call is an INFO record (``serve --log-level info``) with the tool,
    its route and effect, how it ended and how long it took; never its arguments."""
    with caplog.at_level(logging.INFO, logger="schemarouter.serve.gateway"):
        gateway.call("weather__rest__get_forecast", {"city": "Lyon-secret-city", "days": 1})
        gateway.call("weather__rest__create_alert", {"body": {"city": "Nice", "message": "x"}})
        with pytest.raises(PolicyError):
            Gateway(gateway.router, GatewayConfig()).call(
                "weather__rest__create_alert", {"body": {"city": "Nice", "message": "x"}}
            )
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("call ")]
    assert len(said) == 3, said
    assert re.fullmatch(
        r"call weather__rest__get_forecast \(weather/rest/get_forecast, read\): ok in \d+ ms",
        said[0],
    )
    assert said[1].startswith(
        "call weather__rest__create_alert (weather/rest/create_alert, write): ok"
    )
    assert "PolicyError [SR500]" in said[2]
    assert "Lyon-secret-city" not in caplog.text


def test_serve_takes_a_log_level() -> None:
    args = build_parser().parse_args(["serve", "--log-level", "info"])
    assert args.log_level == "info"
    assert build_parser().parse_args(["serve"]).log_level == "warning"


ENV_SERVER = '''
import os
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
server = MCPServer("envcheck")
@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def db_password() -> str:
    """The database password this server was given, written backwards."""
    return os.environ.get("DB_PASSWORD", "<unset>")[::-1]
server.run()
'''


def test_an_upstreams_env_and_url_read_variables_of_the_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``env: {DB_PASSWORD: "${TRIALP_DB_PASSWORD}"}`` gave the upstream the text
    ``${TRIALP_DB_PASSWORD}`` as its password, without a word (user trial P): a secret could
    reach an upstream only written into the config file. ``${NAME}`` in an upstream's
    ``env`` values and ``url`` is read from the gateway's environment; an unset one is an
    error naming it and the key."""
    (tmp_path / "env_server.py").write_text(ENV_SERVER)
    upstream = {
        "provider": "envc",
        "command": [sys.executable, "env_server.py"],
        "cwd": ".",
        "env": {"DB_PASSWORD": "${TRIALP_DB_PASSWORD}"},
        "trusted": True,
    }
    http = {"provider": "web", "url": "http://127.0.0.1:9/mcp?token=${TRIALP_TOKEN}"}
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": [upstream, http]}))
    monkeypatch.setenv("TRIALP_DB_PASSWORD", "pw-from-the-environment")
    monkeypatch.setenv("TRIALP_TOKEN", "tok-from-the-environment")
    config = load_config(path)
    assert config.mcp_servers[1].url == "http://127.0.0.1:9/mcp?token=tok-from-the-environment"
    config = config.model_copy(update={"mcp_servers": config.mcp_servers[:1]})
    gateway = Gateway.from_config(
        config, encoder=HashingEncoder(), embedding_cache=None, abstention=None
    )
    try:
        # backwards: the value as written is an env secret the gateway redacts (trial X1)
        assert gateway.call("envc__mcp__db_password").output == {
            "result": "pw-from-the-environment"[::-1]
        }
    finally:
        gateway.close()
    monkeypatch.delenv("TRIALP_DB_PASSWORD")
    with pytest.raises(DocumentError, match=r"\$\{TRIALP_DB_PASSWORD\} is not set") as unset:
        load_config(path)
    assert "mcp_servers[0].env.DB_PASSWORD" in str(unset.value)


def test_a_doubled_dollar_writes_a_variable_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upstream whose password or URL holds the text ``${...}`` could not be configured:
    every ``${NAME}`` was read from the environment, an unset one refused (trial X3, low).
    ``$${NAME}`` is the text ``${NAME}``, beside a variable that is still read."""
    upstream = {
        "provider": "lit",
        "command": [sys.executable, "server.py"],
        "env": {"SECRET": "a$${HOME_TEXT}b", "KEY": "${TRIALX_KEY}-$${TRIALX_KEY}"},
    }
    http = {"provider": "web", "url": "http://127.0.0.1:9/mcp/$${tenant}?t=${TRIALX_KEY}"}
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": [upstream, http]}))
    monkeypatch.delenv("HOME_TEXT", raising=False)
    monkeypatch.setenv("TRIALX_KEY", "k1")
    config = load_config(path)
    assert config.mcp_servers[0].env == {"SECRET": "a${HOME_TEXT}b", "KEY": "k1-${TRIALX_KEY}"}
    assert config.mcp_servers[1].url == "http://127.0.0.1:9/mcp/${tenant}?t=k1"


def test_a_url_read_from_the_environment_is_refused_without_its_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """User trial X3: ``url: "${TRIALX3_URL}"`` whose value was no http(s) URL (a typo in
    the scheme) was refused with the value whole, credential included: "url
    'htps://user:s3cret-pw@host/mcp' must be an http(s) URL". It is named as written."""
    path = tmp_path / "gw.yaml"
    path.write_text(yaml.safe_dump({"mcp_servers": [{"provider": "w", "url": "${TRIALX3_URL}"}]}))
    monkeypatch.setenv("TRIALX3_URL", "htps://user:s3cret-pw@host/mcp?token=s3cret-tok")
    with pytest.raises(DocumentError, match=r"url '\$\{TRIALX3_URL\}' is no http") as refused:
        load_config(path)
    assert "s3cret" not in str(refused.value)
    assert "mcp_servers[0].url" in str(refused.value)


def test_a_k_flag_above_the_configs_max_k_is_refused(tmp_path: Path) -> None:
    """``search: {k: 30, max_k: 20}`` in the file is refused (every search would be cut to
    max_k), but ``serve -k 30`` with ``max_k: 20`` was taken as it was: each search answered
    20 tools with a note that "k=30 is above search.max_k=20" though the agent asked for no k
    (user trial P). The flag is checked as the file is."""
    path = tmp_path / "gw.yaml"
    path.write_text("search: {max_k: 20}\n")
    args = build_parser().parse_args(["serve", "--config", str(path), "-k", "30"])
    with pytest.raises(DocumentError, match=r"k \(30\) is above max_k \(20\)") as refused:
        _serve_config(args)
    assert "serve -k" in str(refused.value)
    args = build_parser().parse_args(["serve", "--config", str(path), "-k", "20"])
    assert _serve_config(args).search.k == 20


def test_a_configs_calls_section_bounds_each_call(tmp_path: Path) -> None:
    """An operator could not bound a slow REST call: the gateway passed no policy, so a
    stalled read held the agent three 30 s attempts (91 s) before it failed, where many MCP
    clients give up long before (user trial P). ``calls: {timeout, max_attempts,
    max_seconds}`` in the config bounds each attempt, the attempts of a read and the call's
    whole time."""
    import time

    from schemarouter.errors import InvocationError, SchemaRouterError

    from servers.loopback import Response, json_response

    def app(request: Any) -> Response:
        if request.path.startswith("/slow"):
            return Response(200, b"{}", {"Content-Type": "application/json"}, delay=5.0)
        return json_response({"ok": True})

    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    with LoopbackServer(app) as server:
        document = {
            "openapi": "3.0.3",
            "info": {"title": "orders", "version": "1"},
            "servers": [{"url": server.base_url}],
            "paths": {"/slow": {"get": {"operationId": "getSlowReport", "responses": ok}}},
        }
        (tmp_path / "orders.json").write_text(json.dumps(document))
        seconds = {}
        for name, calls in (
            ("attempts", "{timeout: 0.5, max_attempts: 2}"),
            ("budget", "{timeout: 0.5, max_seconds: 0.8}"),
        ):
            (tmp_path / f"{name}.yaml").write_text(
                f"openapi: [{{source: orders.json, provider: orders}}]\ncalls: {calls}\n"
            )
            config = load_config(tmp_path / f"{name}.yaml")
            gateway = Gateway.from_config(config, encoder=HashingEncoder(), embedding_cache=None)
            server.requests.clear()
            started = time.monotonic()
            with pytest.raises(SchemaRouterError) as caught:
                gateway.call("orders__rest__get_slow_report", {})
            seconds[name] = time.monotonic() - started
            gateway.close()
            if name == "attempts":
                assert isinstance(caught.value, InvocationError)
                assert "timed out after 0.5 s" in str(caught.value)
                assert "after 2 attempts" in str(caught.value)
                assert len(server.requests) == 2
            else:
                assert "time budget of 0.8 s spent" in str(caught.value)
    # unbounded, each would wait out the 5 s reply (twice for the attempts); the margins
    # are wide so that a loaded machine does not fail a bound that held
    assert seconds["attempts"] < 4.5 and seconds["budget"] < 4.5, seconds
