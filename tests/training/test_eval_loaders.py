"""Benchmark loaders: tiny inline copies of each format, and the real files where present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.training.datasets.beir import load_beir
from schemarouter.training.datasets.bundled import load_bundled_queries
from schemarouter.training.datasets.bundled_suite import load_bundled
from schemarouter.training.datasets.metatool import load_metatool_multi, load_metatool_single
from schemarouter.training.datasets.restbench import load_restbench, parse_call
from schemarouter.training.datasets.stabletoolbench import load_stabletoolbench, template_schema
from schemarouter.training.datasets.suite import hash_split, shared_data_dir

from helpers import write_beir


def router() -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=None)


def _api(
    tool: str, name: str, required: list[str], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "category_name": "Data",
        "tool_name": tool,
        "api_name": name,
        "api_description": f"{name} of {tool}",
        "required_parameters": [{"name": p, "type": "STRING", "description": p} for p in required],
        "optional_parameters": [{"name": p, "type": "NUMBER", "description": ""} for p in optional],
        "method": "GET",
        "template_response": {"name": "str", "items": [{"id": "int", "_list_length": 2}]},
    }


def write_g1(root: Path) -> None:
    folder = root / "stabletoolbench"
    folder.mkdir(parents=True)
    first = [_api("The Clique", "Songkick concert", ["id_conc"]), _api("the_clique", "Search", [])]
    second = [
        _api("The Clique", "Songkick concert", ["id_conc"]),
        _api("Weather", "Daily", ["city"], ["days"]),
    ]
    items = [
        {"query": "concert info", "query_id": 1, "api_list": first,
         "relevant APIs": [["The Clique", "Songkick concert"], ["the_clique", "Search"]]},
        {"query": "daily weather", "query_id": 2, "api_list": second,
         "relevant APIs": [["Weather", "Daily"], ["Nowhere", "Missing"]]},
    ]  # fmt: skip
    (folder / "G1_instruction.json").write_text(json.dumps(items), encoding="utf-8")


def test_stabletoolbench_registers_tools_as_mcp_with_an_explicit_route_map(tmp_path: Path) -> None:
    write_g1(tmp_path)
    r = router()
    bench = load_stabletoolbench(r, tmp_path, files=["G1_instruction"])
    snapshot = r.snapshot()
    # the union of api lists, each API once; one provider per tool, slugs made unique in order
    assert sorted(bench.route_keys.values()) == [
        ("The Clique", "Songkick concert"),
        ("Weather", "Daily"),
        ("the_clique", "Search"),
    ]
    assert set(snapshot.providers) == {"the_clique", "the_clique_2", "weather"}
    route = snapshot.routes["weather/mcp/daily"]
    assert route.access.kind.value == "mcp"
    assert {(p.name, p.required) for p in route.endpoint.parameters} == {
        ("city", True),
        ("days", False),
    }
    assert route.endpoint.output_fields == ()  # outputSchema is off by default
    first, second = bench.queries
    assert first.gold == ("the_clique/mcp/songkick_concert", "the_clique_2/mcp/search")
    assert first.needs == (
        frozenset({"the_clique/mcp/songkick_concert"}),
        frozenset({"the_clique_2/mcp/search"}),
    )
    assert (first.category, first.split) == ("instruction", hash_split("concert info"))
    assert second.gold == ("weather/mcp/daily",)
    assert bench.notes["gold_labels_not_in_catalog"] == 1
    # registering the same data twice gives the same ids
    again = load_stabletoolbench(router(), tmp_path, files=["G1_instruction"])
    assert again.route_keys == bench.route_keys


def test_stabletoolbench_output_schema_from_template(tmp_path: Path) -> None:
    write_g1(tmp_path)
    r = router()
    load_stabletoolbench(r, tmp_path, files=["G1_instruction"], output_schema=True)
    fields = r.snapshot().routes["weather/mcp/daily"].endpoint.output_fields
    assert {f.name for f in fields} >= {"name"}
    assert template_schema({"a": "int", "b": ["list of str with length 3"], "_list_length": 1}) == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
        },
    }


def write_metatool(root: Path) -> None:
    folder = root / "metatool"
    folder.mkdir(parents=True)
    plugins = {
        "WeatherTool": "Weather forecasts",
        "NewsTool": "Latest news",
        "timeport": "Time travel game",
    }
    (folder / "plugin_des.json").write_text(json.dumps(plugins), encoding="utf-8")
    rows = ["Query,Tool", "rain tomorrow?,WeatherTool", "headlines today,NewsTool",
            '"play a game, please",timeport', "forecast for Paris,WeatherTool", "odd one,Unknown"]  # fmt: skip
    (folder / "all_clean_data.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    multi = [{"query": "weather and news", "tool": ["WeatherTool", "NewsTool"]}]
    (folder / "multi_tool_query_golden.json").write_text(json.dumps(multi), encoding="utf-8")


def test_metatool_single_and_multi(tmp_path: Path) -> None:
    write_metatool(tmp_path)
    single = load_metatool_single(router(), tmp_path, sample=0)
    assert len(single.route_keys) == 3
    assert single.route_keys["weather_tool/mcp/weather_tool"] == "WeatherTool"
    assert [q.gold for q in single.queries][:2] == [
        ("weather_tool/mcp/weather_tool",),
        ("news_tool/mcp/news_tool",),
    ]
    assert single.queries[2].text == "play a game, please"
    assert single.notes["gold_tools_not_in_catalog"] == 1
    assert single.bm25 == {"k1": 0.9, "b": 0.4}
    sampled = [q.id for q in load_metatool_single(router(), tmp_path, sample=3, seed=1).queries]
    assert sampled == [
        q.id for q in load_metatool_single(router(), tmp_path, sample=3, seed=1).queries
    ]
    # 3 rows drawn, then rows whose tool is not in the catalog dropped (seed 1 draws one)
    assert len(sampled) == 2 and set(sampled) <= {q.id for q in single.queries}
    multi = load_metatool_multi(router(), tmp_path)
    (query,) = multi.queries
    assert len(query.needs) == 2 and query.category == "2 tools"


TMDB = {
    "openapi": "3.0.0",
    "info": {"title": "TMDB", "version": "3"},
    "servers": [{"url": "https://api.themoviedb.org/3"}],
    "paths": {
        "/search/person": {"get": {"operationId": "search-person", "summary": "Search people",
                                   "responses": {"200": {"description": "ok"}}}},
        "/person/{person_id}/movie_credits": {"get": {
            "summary": "Movie credits of a person",
            "parameters": [{"name": "person_id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok"}}}},
        "/movie/top_rated": {"get": {"summary": "Top rated movies",
                                     "responses": {"200": {"description": "ok"}}}},
    },
}  # fmt: skip


def test_restbench_gold_from_solution_calls(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A gold call matched by its path's shape, or left out as not in the catalog, is said on
    the log as well as in the notes (trial N: only results.json's notes told a reader that
    the figures score fewer or repaired gold calls)."""
    folder = tmp_path / "restbench"
    folder.mkdir()
    (folder / "tmdb_oas.json").write_text(json.dumps(TMDB), encoding="utf-8")
    queries = [
        {"query": "movies by Sofia Coppola",
         "solution": [" GET /search/person", "GET /person/{movie_id}/movie_credits "]},
        {"query": "unknown", "solution": ["GET /tv/latest"]},
    ]  # fmt: skip
    (folder / "tmdb_queries.json").write_text(json.dumps(queries), encoding="utf-8")
    r = router()
    bench = load_restbench(r, tmp_path)
    assert sorted(bench.route_keys.values()) == [
        ("GET", "/movie/top_rated"),
        ("GET", "/person/{person_id}/movie_credits"),
        ("GET", "/search/person"),
    ]
    (query,) = bench.queries
    keys = [bench.route_keys[g] for g in query.gold]
    assert keys == [("GET", "/search/person"), ("GET", "/person/{person_id}/movie_credits")]
    assert query.category == "2 calls"
    assert bench.notes["calls_matched_by_template_shape"] == [
        "GET /person/{movie_id}/movie_credits"
    ]
    assert bench.notes["calls_not_in_catalog"] == ["GET /tv/latest"]
    said = [r.getMessage() for r in caplog.records if r.name.endswith("restbench")]
    assert said == [
        "restbench: 1 gold call(s) matched by their path's shape (GET "
        "/person/{movie_id}/movie_credits), 1 not in the catalog and left out of the gold (GET "
        "/tv/latest); results.json notes list them"
    ]
    assert parse_call(" get /a/b ") == ("GET", "/a/b")


def test_beir_loader(tmp_path: Path) -> None:
    r = router()
    bench = load_beir(r, write_beir(tmp_path / "toolset"))
    assert sorted(bench.route_keys.values()) == ["d1", "d2", "d3", "d4"]
    names = {r.endpoint.name for r in r.snapshot().routes.values()}
    assert names == {"weather_forecast", "stock_quote", "stock_quote [d3]", "d4"}
    assert [q.id for q in bench.queries] == ["q1", "q2"]  # q3 has no relevant document
    q2 = bench.queries[1]
    assert [bench.route_keys[g] for g in q2.gold] == ["d2", "d3"]  # by score
    assert len(q2.needs) == 2


def test_bundled_suite_uses_the_packaged_split() -> None:
    r = router()
    bench = load_bundled(r, split="dev")
    labelled = load_bundled_queries(split="dev")
    assert [q.id for q in bench.queries] == [q.id for q in labelled]
    for q, raw in zip(bench.queries, labelled, strict=True):
        assert q.gold == raw.gold_routes
        if raw.category == "cross_source":
            assert len(q.needs) == len(raw.gold_routes) and not q.alternatives
        elif raw.gold_routes:
            assert q.needs == (frozenset(raw.gold_routes),) and q.alternatives
        else:
            assert q.negative and q.needs == ()


def test_shared_data_dir_prefers_the_argument_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SCHEMAROUTER_SHARED_DATA", str(tmp_path))
    assert shared_data_dir() == tmp_path
    assert shared_data_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("SCHEMAROUTER_SHARED_DATA")
    assert shared_data_dir().parts[-2:] == ("shared", "data")


@pytest.mark.shared_data
def test_real_benchmarks_register_in_full(shared_data: Path) -> None:
    g1 = load_stabletoolbench(router(), shared_data)
    assert (len(g1.route_keys), len(g1.queries)) == (1673, 474)
    assert g1.notes["gold_labels_not_in_catalog"] == 0
    single = load_metatool_single(router(), shared_data, sample=50)
    assert (len(single.route_keys), len(single.queries)) == (199, 50)
    assert single.notes["rows_in_file"] == 20614
    assert len(load_metatool_multi(router(), shared_data).queries) == 497
    tmdb = load_restbench(router(), shared_data)
    assert (len(tmdb.route_keys), len(tmdb.queries)) == (54, 100)
    assert tmdb.notes["calls_not_in_catalog"] == []
