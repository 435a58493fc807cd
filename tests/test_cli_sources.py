"""The CLI as a new user meets it: retrieve over their own OpenAPI document (file or URL) and
MCP tool listing, clean errors for a bad ``-k``, and ``catalog validate`` that lists every
problem with a hint that names a command (not a path that exists only in a checkout)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter.registry.catalog import catalog_problems

from helpers import TINY_CATALOG
from servers.loopback import LoopbackServer, json_response
from servers.user_api import weather_openapi

TOOLS = {
    "tools": [
        {
            "name": "search_issues",
            "description": "Search GitHub issues and pull requests by keywords.",
            "inputSchema": {
                "type": "object",
                "properties": {"q": {"type": "string", "description": "Search words"}},
                "required": ["q"],
            },
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "create_issue",
            "description": "Open a new GitHub issue in a repository.",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        },
    ]
}


@pytest.fixture(scope="module")
def spec_server() -> Iterator[LoopbackServer]:
    document = weather_openapi("http://127.0.0.1:9")
    with LoopbackServer(lambda request: json_response(document)) as server:
        yield server


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    (tmp_path / "weather.json").write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    (tmp_path / "github_tools.json").write_text(json.dumps(TOOLS))
    return tmp_path


def test_retrieve_over_an_openapi_file_and_an_mcp_listing(
    sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "retrieve",
        "daily weather forecast for a city",
        "-k",
        "2",
        "--openapi",
        str(sources / "weather.json"),
        "--mcp-tools",
        f"github={sources / 'github_tools.json'}",
        "--json",
    ]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["candidates"][0]["route_id"] == "weather/rest/get_forecast"
    assert main([*argv[:-1], "--tools", "anthropic"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert tools[0]["name"] == "weather__rest__get_forecast" and "input_schema" in tools[0]
    assert (
        main(
            [
                "retrieve",
                "search github issues",
                "-k",
                "1",
                "--mcp-tools",
                f"github={sources / 'github_tools.json'}",
                "--json",
            ]
        )
        == 0
    )
    found = json.loads(capsys.readouterr().out)["candidates"][0]
    assert found["route_id"] == "github/mcp/search_issues"
    assert found["effect"] == "write"  # a recorded listing is untrusted


def test_retrieve_over_an_openapi_url(
    spec_server: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{spec_server.base_url}/openapi.json"
    assert (
        main(["retrieve", "weather station by id", "-k", "1", "--openapi", f"wx={url}", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["candidates"][0]["route_id"] == "wx/rest/get_station"


@pytest.mark.parametrize(
    ("k", "message"), [("0", "at least 1, got 0"), ("-3", "at least 1"), ("two", "whole number")]
)
def test_a_bad_k_is_a_clean_error(k: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["retrieve", "band gap", "-k", k])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument -k: must be {message}" in err or message in err
    assert "Traceback" not in err


def test_bad_sources_are_clean_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retrieve", "x", "--openapi", str(tmp_path / "missing.yaml")]) == 1
    assert "error: [SR101]" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["retrieve", "x", "--openapi", "NAME="],
        ["retrieve", "x", "--openapi", ""],
        ["retrieve", "x", "--mcp-tools", "x="],
        ["index", "build", "--out", "unused", "--openapi", "wx="],
    ],
)
def test_a_source_without_a_file_is_a_clean_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """These ended in a raw pydantic ValidationError traceback (trial A §4)."""
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: [SR101] no file or URL given (at source ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_validate_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "a.yaml").write_text(
        TINY_CATALOG.replace("unit: eV,", "unit: eVz,").replace("license: CC0-1.0", "licence: x")
    )
    (folder / "b.yaml").write_text("schemarouter_catalog: 1\nproviders: [{id: cod}]\n: : :\n")
    (folder / "c.yaml").write_text(
        "schemarouter_catalog: 1\nproviders:\n  - id: BAD ID\n    display_name: x\n    access: []\n"
    )
    problems = catalog_problems(folder)
    assert len(problems) >= 4
    assert main(["catalog", "validate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "[SR103] unknown unit 'eVz'" in err  # a.yaml, an endpoint
    assert "licence" in err and "unknown key" in err  # a.yaml, the other provider
    assert str(folder / "b.yaml") in err  # a YAML syntax error
    c_problems = [line for line in err.splitlines() if str(folder / "c.yaml") in line]
    assert len(c_problems) == 2  # the id's pattern and the empty access list, both
    assert f"{len(problems)} problems found" in err
    assert "schemarouter catalog schema" in err  # the hint names a command
    assert "engine/registry/catalog.schema.json" not in err


def test_validate_still_passes_a_good_catalog(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_CATALOG)
    assert catalog_problems(path) == []


def test_index_build_takes_every_source_and_retrieve_loads_it(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``index build`` over an OpenAPI document, an MCP listing and a gateway config, as
    ``retrieve`` registers them: the saved index loads (a stale one would be refused)."""
    config = tmp_path / "gateway.yaml"
    config.write_text(
        f"mcp_tools: [{{source: {sources / 'github_tools.json'}, provider: github}}]\n"
    )
    out = tmp_path / "index"
    argv = ["--openapi", str(sources / "weather.json"), "--config", str(config)]
    assert main(["index", "build", *argv, "--out", str(out), "--quiet", "--no-cache"]) == 0
    assert "indexed 6 routes" in capsys.readouterr().out  # 4 operations, 2 tools
    query = ["retrieve", "daily weather forecast for a city", "-k", "1", "--json"]
    assert main([*query, *argv, "--index", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"][0]["route_id"] == (
        "weather/rest/get_forecast"
    )
    assert main(["index", "build", "--out", str(out)]) == 2
    assert "nothing to index" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["index", "build", "{weather}", "--out", "{tmp}/x"],
            "this is an OpenAPI document, not a SchemaRouter catalog",
        ),
        (["retrieve", "q", "--catalog", "{tools}"], "this is an MCP tools/list result"),
        (["retrieve", "q", "--openapi", "{catalog}"], "this is a SchemaRouter catalog, not an"),
        (["retrieve", "q", "--mcp-tools", "{weather}"], "this is an OpenAPI document, not an MCP"),
        (["retrieve", "q", "--config", "{weather}"], "an OpenAPI document, not a gateway config"),
        (["catalog", "validate", "{tools}"], "this is an MCP tools/list result, not a"),
    ],
)
def test_a_file_of_another_kind_names_its_kind_and_flag(
    argv: list[str], message: str, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (sources / "catalog.yaml").write_text(TINY_CATALOG)
    paths = {
        "weather": str(sources / "weather.json"),
        "tools": str(sources / "github_tools.json"),
        "catalog": str(sources / "catalog.yaml"),
        "tmp": str(sources),
    }
    assert main([a.format(**paths) for a in argv]) == 1
    err = capsys.readouterr().err
    assert message in err, err
    flag = {"OpenAPI": "--openapi", "MCP": "--mcp-tools", "SchemaRouter": "--catalog"}
    kind = message.split("this is ")[-1].split()[1] if "this is" in message else "OpenAPI"
    assert f"Pass it with {flag[kind]}" in err
    assert "required key is missing" not in err


def test_a_provider_name_the_api_takes_is_taken_before_an_existing_file(
    sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--mcp-tools 八字_mcp=FILE`` (the file exists) said "cannot read the file: No such
    file or directory (at 八字_mcp=FILE)": only ``[A-Za-z0-9_.-]+`` was read as a provider
    (user trial O). It registers as ``add_mcp_tools(..., provider="八字_mcp")`` does; a file
    whose own name has an ``=`` is still read as that file."""
    from schemarouter.serve.config import parse_source

    tools = sources / "github_tools.json"
    argv = ["retrieve", "search issues", "-k", "1", "--json"]
    assert main([*argv, "--mcp-tools", f"八字_mcp={tools}"]) == 0
    found = json.loads(capsys.readouterr().out)["candidates"][0]
    assert found["route_id"] == "mcp_8fac0448/mcp/search_issues"  # its own id: see provider_id
    assert parse_source(f"八字_mcp={tools}").provider == "八字_mcp"
    odd = sources / "a b=tools.json"
    odd.write_text(json.dumps(TOOLS))
    assert parse_source(str(odd)).provider is None and parse_source(str(odd)).source == str(odd)
    assert parse_source(f"My Desk={tools}").provider == "My Desk"


def test_routes_lists_the_ids_a_labelled_request_names(
    sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial Z: labelling requests for `train-* --requests` needs the route ids of one's own
    OpenAPI document, and `catalog show` takes catalogs only: the trial registered it in
    Python to list them. `schemarouter routes SOURCES` lists them as retrieve registers
    them."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    weather, tools = sources / "weather.json", sources / "github_tools.json"
    argv = ["routes", "--openapi", f"weather={weather}", "--mcp-tools", f"github={tools}"]
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, reranker=None)
    router.add_openapi(json.loads(weather.read_text()), provider="weather")
    router.add_mcp_tools(TOOLS, provider="github")
    assert [r["route_id"] for r in rows] == list(router.snapshot().routes)
    create = next(r for r in rows if r["route_id"] == "github/mcp/create_issue")
    assert create["effect"] == "write" and create["operation"] == "create_issue"
    assert main(argv) == 0
    out, err = capsys.readouterr()
    # an untrusted listing's readOnlyHint is a hint only: a write until trusted
    assert "github/mcp/search_issues  [write]  search_issues  Search GitHub issues" in out
    assert err.strip() == f"{len(rows)} routes"
    assert main(["routes"]) == 2
    assert "no sources" in capsys.readouterr().err


def test_a_document_given_twice_is_told_in_flags_not_keywords(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial L: a catalog of a few hundred documents listed one of them twice (a copy under
    another path), and the whole `index build` stopped with "Pass replace=True ...", a keyword
    the command line has no flag for. On the command line the hint says what to do there:
    list the document once, or give the copy a provider name of its own."""
    document = sources / "weather.json"
    copy = tmp_path / "weather-copy.json"
    copy.write_bytes(document.read_bytes())
    tools = sources / "github_tools.json"
    index = ["--out", str(tmp_path / "index"), "--quiet"]
    for argv in (
        ["routes", "--openapi", str(document), "--openapi", str(copy)],
        ["routes", "--openapi", str(document), "--openapi", str(document)],
        ["routes", "--mcp-tools", f"gh={tools}", "--mcp-tools", f"gh={tools}"],
        ["index", "build", "--openapi", str(document), "--openapi", str(copy), *index],
    ):
        assert main(argv) == 1
        said = capsys.readouterr().err
        assert "[SR104]" in said and "is already registered" in said
        assert "replace=True" not in said and "provider=" not in said
        assert "List each document once" in said and "--openapi NAME=FILE" in said
    assert not (tmp_path / "index").exists()  # refused before anything was written


def test_a_batch_build_names_every_bad_document_in_one_run(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial L: `index build` over 206 sources, 8 of them broken (a truncated upload, an
    empty file, a dangling $ref, a schema typo ...), stopped at the first and named only it:
    eight runs of the whole registration to find the eight. Every bad source is now named
    with its error, the good ones still register whole, and nothing is indexed (exit 1)."""
    good = sources / "weather.json"
    empty = tmp_path / "empty.json"
    empty.write_text("")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(good.read_text()[:200])
    dangling = tmp_path / "dangling.json"
    document = json.loads(good.read_text())
    document["info"]["title"] = "Dangling"
    operation = next(iter(next(iter(document["paths"].values())).values()))
    missing = {"schema": {"$ref": "#/components/schemas/Missing"}}  # a definition never added
    operation["responses"] = {
        "200": {"description": "ok", "content": {"application/json": missing}}
    }
    dangling.write_text(json.dumps(document))
    tools = sources / "github_tools.json"
    bad = [empty, truncated, dangling]
    flags = [f for path in (empty, good, truncated, dangling) for f in ("--openapi", str(path))]
    out = tmp_path / "index"
    for argv in (
        ["index", "build", *flags, "--mcp-tools", f"gh={tools}", "--out", str(out), "--quiet"],
        ["routes", *flags, "--mcp-tools", f"gh={tools}"],
    ):
        assert main(argv) == 1
        printed, said = capsys.readouterr()
        errors = [line for line in said.splitlines() if line.startswith("error: ")]
        assert len(errors) == 3
        for path, line in zip(bad, errors, strict=True):
            assert f"(at {path}" in line
        assert "3 of 5 sources could not be registered" in said
        assert printed == ""
    assert not out.exists()
    # with the bad ones left out, the same command builds
    flags = ["--openapi", str(good), "--mcp-tools", f"gh={tools}"]
    assert main(["index", "build", *flags, "--out", str(out), "--quiet"]) == 0
    assert "indexed" in capsys.readouterr().out


def test_routes_names_the_credentials_each_route_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An operator provisioning a catalog asks which routes need which credentials: `routes`
    said effect and operation only. Each row names the credentials (never a value) and
    where each travels; the text line says which it needs."""
    from servers.user_api import secured_weather_openapi

    path = tmp_path / "weather.json"
    path.write_text(json.dumps(secured_weather_openapi("http://127.0.0.1:9")))
    assert main(["routes", "--openapi", f"weather={path}", "--json"]) == 0
    rows = {r["route_id"]: r for r in json.loads(capsys.readouterr().out)}
    (station,) = [r for r in rows if "station" in r]
    assert rows[station]["credentials"] == [
        {"name": "WEATHER_API_KEY", "scheme": "api_key", "in": "query", "parameter": "appid"}
    ]
    assert rows[station]["credentials_optional"] is False
    assert all(r["credentials"] == [] for r in rows.values() if r["route_id"] != station)
    assert main(["routes", "--openapi", f"weather={path}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if "(needs WEATHER_API_KEY)" in line] == [
        line for line in lines if line.startswith(station)
    ]


def test_retrieve_json_escapes_what_a_terminal_acts_on_in_a_servers_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool listing is someone else's text: a C1 control (U+009B, CSI on some terminals) or
    a bidi override in a description reached the terminal raw through ``--json`` and
    ``--tools`` (trial Z2); now escaped, the same JSON, Korean kept."""
    hostile = {
        "tools": [
            {
                "name": "search_issues",
                "description": "Search issues \u009b2J\u202e 이슈 검색",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
        ]
    }
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps(hostile))
    argv = ["retrieve", "search issues", "-k", "1", "--mcp-tools", f"gh={listing}"]
    for extra in (["--json"], ["--tools", "anthropic"]):
        assert main([*argv, *extra]) == 0
        said = capsys.readouterr().out
        assert all(c.isprintable() or c == "\n" for c in said), ascii(said)
        assert "이슈 검색" in said
        # the same JSON: a reader gets the description back as written
        assert "\u009b2J\u202e 이슈" in json.dumps(json.loads(said), ensure_ascii=False)
