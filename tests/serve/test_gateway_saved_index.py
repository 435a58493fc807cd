"""A gateway serving a saved index built from its own config, whose upstream MCP server
joins late or never (user trial H, finding F5).

The index holds the upstream's tools; the gateway opens it before the upstream has listed
them (or after the upstream failed). It used to refuse the index as built from another
registry: the warm-up thread died with a traceback, and with a dead upstream every search,
OpenAPI routes included, answered "[SR301] ... Rebuild it". The index is now brought to the registry (``sync``): the
missing upstream's tools are left out until it joins, and the answers say it is unavailable.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemarouter import SchemaRouter
from schemarouter.errors import ArgumentError, GateError, IndexBackendError, StaleIndexError
from schemarouter.index import HashingEncoder
from schemarouter.index.build import IndexFolder
from schemarouter.serve import Gateway, GatewayConfig, load_config
from schemarouter.serve.cli import _warm_up
from schemarouter.serve.config import McpServerSpec, SourceSpec
from schemarouter.serve.sources import build_router

from servers.user_api import weather_openapi

NOTES = Path(__file__).parents[1] / "mcp_servers" / "notes_server.py"
OPTIONS: dict[str, Any] = {"encoder": HashingEncoder(), "embedding_cache": None, "abstention": None}


def _config(folder: Path, command: list[str], *, index: bool, provider: str = "notes") -> Path:
    (folder / "weather.json").write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    config: dict[str, Any] = {
        "openapi": [{"source": "weather.json", "provider": "weather"}],
        "mcp_servers": [{"provider": provider, "command": command}],
        "allow": {"write": ["notes/mcp/search_notes"]},
        "search": {"rerank": False, "upstream_wait": 0},
    }
    if index:
        config["index"] = "index"
    path = folder / ("served.yaml" if index else "built.yaml")
    path.write_text(yaml.safe_dump(config))
    return path


def _build(folder: Path) -> list[str]:
    """The index of the config with its upstream connected, as `index build --config` does."""
    gateway = Gateway.from_config(
        load_config(_config(folder, [sys.executable, str(NOTES)], index=False)), **OPTIONS
    )
    try:
        gateway.router.build_index().save(folder / "index")
        return sorted(gateway.router.snapshot().route_ids())
    finally:
        gateway.close()


def _names(answer: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in answer["tools"]]


def test_a_dead_upstream_leaves_the_saved_index_serving_the_rest(tmp_path: Path) -> None:
    built = _build(tmp_path)
    assert "notes/mcp/search_notes" in built
    dead = [sys.executable, "-c", "import sys; sys.exit(3)"]
    gateway = Gateway.from_config(
        load_config(_config(tmp_path, dead, index=True)), background=True, **OPTIONS
    )
    try:
        assert gateway.upstreams.wait(30) and "notes" in gateway.upstreams.failed()
        gateway.router.build_index()  # what serve's warm-up does: no StaleIndexError
        answer = gateway.search("weather forecast", k=2)
    finally:
        gateway.close()
    assert _names(answer)[0] == "weather__rest__get_forecast"
    assert "notes" in answer["unavailable"]


def test_an_upstream_that_joins_after_the_index_opened_is_searchable(tmp_path: Path) -> None:
    _build(tmp_path)
    late = [
        sys.executable,
        "-c",
        f"import runpy, time; time.sleep(1.5); runpy.run_path({str(NOTES)!r}, run_name='__main__')",
    ]
    gateway = Gateway.from_config(
        load_config(_config(tmp_path, late, index=True)), background=True, **OPTIONS
    )
    try:
        assert gateway.upstreams.connecting() == ["notes"]
        index = gateway.router.build_index()  # opened before the upstream listed its tools
        assert "notes/mcp/search_notes" not in index.route_ids
        assert gateway.upstreams.wait(30) and not gateway.upstreams.failed()
        answer = gateway.search("search research notes", k=3)
    finally:
        gateway.close()
    assert "notes__mcp__search_notes" in _names(answer)
    assert "unavailable" not in answer


def test_an_index_that_does_not_open_is_one_line_at_warm_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """serve's warm-up thread used to die with a traceback; then it logged the failure, which
    was lost when it came before the server set up logging (trial K). It prints one line."""
    router = SchemaRouter(index=tmp_path / "missing", **OPTIONS)
    router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
    _warm_up(Gateway(router), False)
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("schemarouter serve: the index did not open: [SR302]")
    assert "missing" in line


def test_a_difference_outside_the_upstreams_is_still_a_stale_index(tmp_path: Path) -> None:
    """Only the upstream servers' tools may differ: an OpenAPI route that changed since
    the build is refused as stale, never silently embedded again."""
    _build(tmp_path)
    dead = [sys.executable, "-c", "import sys; sys.exit(3)"]
    config = _config(tmp_path, dead, index=True)
    changed = weather_openapi("http://127.0.0.1:9")
    changed["paths"]["/forecast"]["get"]["summary"] = "Tomorrow's weather, by the hour"
    (tmp_path / "weather.json").write_text(json.dumps(changed))
    gateway = Gateway.from_config(load_config(config), background=True, **OPTIONS)
    try:
        gateway.upstreams.wait(30)
        with pytest.raises(StaleIndexError) as stale:
            gateway.router.build_index()
    finally:
        gateway.close()
    assert "weather/rest/get_forecast" in stale.value.what and "not of notes" in stale.value.what


def test_a_milvus_index_of_a_gateway_with_upstreams_stays_a_milvus_uri(tmp_path: Path) -> None:
    """Wrapping every configured index for the upstreams turned ``milvus://`` into a
    folder path: "no index here (manifest.json is missing)" instead of Milvus's own error."""
    (tmp_path / "weather.json").write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    config = GatewayConfig(
        openapi=(SourceSpec(source=str(tmp_path / "weather.json"), provider="weather"),),
        mcp_servers=(McpServerSpec(provider="notes", command=["false"]),),
        index="milvus://127.0.0.1:9/routes",
    )
    router = build_router(config, servers=False, **OPTIONS)
    try:
        with pytest.raises(IndexBackendError, match="Milvus"):
            router.build_index()
    finally:
        router.close()
    with pytest.raises(ArgumentError, match="Milvus URI"):
        IndexFolder("milvus://127.0.0.1:9/routes")


@pytest.mark.parametrize("how", ["config", "keyword"])
def test_an_upstream_named_unlike_its_provider_id_still_joins_the_saved_index(
    tmp_path: Path, how: str
) -> None:
    """``provider: Notes`` registers as ``notes``: the raw name was compared with the
    route ids, so a dead upstream made every search a stale index (trial K, finding 1).
    An index given as ``index=`` rather than in the config got no upstream handling at all
    (finding 8)."""
    _build(tmp_path)
    dead = [sys.executable, "-c", "import sys; sys.exit(3)"]
    config = load_config(_config(tmp_path, dead, index=how == "config", provider="Notes"))
    extra = {} if how == "config" else {"index": str(tmp_path / "index")}
    gateway = Gateway.from_config(config, background=True, **OPTIONS, **extra)
    try:
        gateway.upstreams.wait(30)
        answer = gateway.search("weather forecast", k=2)
    finally:
        gateway.close()
    assert _names(answer)[0] == "weather__rest__get_forecast"


def test_a_milvus_uri_in_a_config_file_is_no_path(tmp_path: Path) -> None:
    """``index: milvus+lite:///x/routes.db`` became ``<config folder>/milvus+lite:/x/...``."""
    path = tmp_path / "gw.yaml"
    for uri in ("milvus+lite:///srv/routes.db", "milvus://127.0.0.1:19530/routes"):
        path.write_text(yaml.safe_dump({"catalogs": ["c"], "index": uri}))
        assert load_config(path).index == uri
    path.write_text(yaml.safe_dump({"catalogs": ["c"], "index": "saved"}))
    assert load_config(path).index == str(tmp_path / "saved")


def test_one_provider_id_given_as_a_string_is_one_id() -> None:
    assert IndexFolder("x", sync="notes").sync == ("notes",)
    assert IndexFolder("x", sync=["a", "b"]).sync == ("a", "b")


def test_calling_a_tool_of_a_dead_upstream_says_the_upstream_is_unavailable(
    tmp_path: Path,
) -> None:
    """call_tool and describe_tool said only "no registered tool is named ..." for a tool of
    an upstream that had failed (trial K, finding 6): a model retrying a known tool learned
    nothing."""
    dead = [sys.executable, "-c", "import sys; sys.exit(3)"]
    gateway = Gateway.from_config(
        load_config(_config(tmp_path, dead, index=False)), background=True, **OPTIONS
    )
    try:
        gateway.upstreams.wait(30)
        for ask in (gateway.describe, gateway.call):
            with pytest.raises(GateError) as unknown:
                ask("notes__mcp__search_notes")
            assert "no registered tool is named" in unknown.value.what
            assert "upstream notes is unavailable" in (unknown.value.hint or "")
            # trial G §3: another provider's name is not told the notes server's whole
            # reason, nor offered a tool of another server
            with pytest.raises(GateError) as other:
                ask("weathr__mcp__search_notes")
            assert other.value.hint is not None
            assert "upstream notes unavailable (why: unavailable in a search_tools answer)" in (
                other.value.hint
            )
            assert "Did you mean" not in other.value.hint
        assert gateway.describe("weather__rest__get_forecast")["route_id"]
    finally:
        gateway.close()


def test_an_embedding_cache_folder_is_an_embedding_cache(tmp_path: Path) -> None:
    """SchemaRouter(embedding_cache=FOLDER) was accepted, then the next registration failed
    with "'PosixPath' object has no attribute 'get'" (trial K, finding 9)."""
    router = SchemaRouter(encoder=HashingEncoder(), abstention=None, embedding_cache=tmp_path / "c")
    router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
    router.build_index()
    router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="other")
    assert len(router.retrieve("weather forecast", k=2).candidates) == 2
    assert any((tmp_path / "c").iterdir())


def test_a_calibrated_verdict_lost_to_another_encoder_is_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An index embedded by another encoder than the shipped calibration's was served with
    no verdict on any request and only an INFO line, which serve never shows (trial K,
    finding 5)."""
    from schemarouter.retrieval import ranking

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
    key = "abstention:the model was calibrated for the encoder"
    ranking._SAID.difference_update({k for k in ranking._SAID if k.startswith(key)})
    with caplog.at_level("INFO", logger="schemarouter"):
        found = router.retrieve("book a flight to Tokyo", k=2)
    assert found.confidence is None
    (record,) = [r for r in caplog.records if "no calibrated verdict" in r.getMessage()]
    assert record.levelname == "WARNING" and "hashing" in record.getMessage()


def test_a_trained_encoders_lost_verdict_gives_no_advice_that_cannot_be_followed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Trial U3: with my `train-encoder` folder every retrieve warned "no calibrated verdict
    ...: the model was calibrated for the encoder '...fe83...', not '...853e...' (fit a model
    with `python -m schemarouter.training.abstention` and pass it as abstention=)": that
    command fits on the public sets with the shipped encoder only (it takes no encoder), and
    the command line takes no abstention=. The warning says what is lost and that no command
    fits a verdict for another encoder; "no abstention model" keeps its advice."""
    from schemarouter.retrieval import ranking

    ranking._SAID.difference_update({k for k in ranking._SAID if k.startswith("abstention:")})
    with caplog.at_level("INFO", logger="schemarouter"):
        for abstention in ("shipped", None):
            router = SchemaRouter(
                encoder=HashingEncoder(),
                embedding_cache=None,
                **({} if abstention else {"abstention": None}),
            )
            router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
            assert router.retrieve("weather forecast for Paris", k=2).confidence is None
    lost, absent = [
        r.getMessage() for r in caplog.records if "no calibrated verdict" in r.getMessage()
    ]
    assert "calibrated for the encoder" in lost and "training.abstention" not in lost
    assert "no command fits one for it; the ranking is not affected" in lost
    assert (
        "no abstention model (fit one with `python -m schemarouter.training.abstention`" in absent
    )


def test_a_stale_index_behind_the_gateway_names_no_python_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial T2: a gateway whose OpenAPI document changed since its index was built answered
    every search_tools with "... or load it with sync=True (SchemaRouter(index=IndexFolder(
    path, sync=True))) to bring it to this registry", a Python call neither the agent nor
    serve's operator can make, and serve's stderr line said the same. The agent now reads
    that the operator must rebuild the index; the operator, the command that does it."""
    from schemarouter.serve.gateway import error_text

    (tmp_path / "weather.json").write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    config = tmp_path / "gateway.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "openapi": [{"source": "weather.json", "provider": "weather"}],
                "search": {"rerank": False},
                "index": "index",
            }
        )
    )
    router = build_router(load_config(config), index=None, **OPTIONS)
    router.build_index().save(tmp_path / "index")
    router.close()
    changed = weather_openapi("http://127.0.0.1:9")
    changed["paths"]["/forecast"]["get"]["summary"] = "Tomorrow's weather, by the hour"
    (tmp_path / "weather.json").write_text(json.dumps(changed))

    gateway = Gateway.from_config(load_config(config), background=True, **OPTIONS)
    try:
        _warm_up(gateway, False)
        with pytest.raises(StaleIndexError) as stale:
            gateway.search("weather forecast", k=2)
    finally:
        gateway.close()
    agent = error_text(stale.value, gateway.router.snapshot())
    assert "weather/rest/get_forecast" in agent
    assert "SchemaRouter(" not in agent and "sync=True" not in agent
    assert "the gateway's operator rebuilds its index" in agent
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("schemarouter serve: the index did not open: [SR301]")
    assert "SchemaRouter(" not in line and "sync=True" not in line
    assert f"schemarouter index build --config CONFIG --out {tmp_path / 'index'}" in line


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_a_missing_or_damaged_index_behind_the_gateway_names_no_python_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """Trial T2: a gateway whose config names an index not built yet answered every
    search_tools with "[SR302] no index here: the folder does not exist (...). Build one with
    `schemarouter index build` or HybridIndex.save", a Python call, and a damaged one with
    "Rebuild the index", an instruction only the operator can follow. The agent now reads
    that the operator must (re)build it; serve's operator, the command that builds it."""
    from schemarouter.errors import CorruptIndexError
    from schemarouter.serve.gateway import error_text

    (tmp_path / "weather.json").write_text(json.dumps(weather_openapi("http://127.0.0.1:9")))
    config = tmp_path / "gateway.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "openapi": [{"source": "weather.json", "provider": "weather"}],
                "search": {"rerank": False},
                "index": "index",
            }
        )
    )
    if damage == "truncated":
        router = build_router(load_config(config), index=None, **OPTIONS)
        router.build_index().save(tmp_path / "index")
        router.close()
        (routes,) = (tmp_path / "index").glob("gen-*/routes.json")
        os.truncate(routes, 10)
    gateway = Gateway.from_config(load_config(config), background=True, **OPTIONS)
    try:
        _warm_up(gateway, False)
        with pytest.raises(CorruptIndexError) as broken:
            gateway.search("weather forecast", k=2)
    finally:
        gateway.close()
    agent = error_text(broken.value, gateway.router.snapshot())
    assert "HybridIndex" not in agent and "Rebuild the index" not in agent
    assert "the gateway's operator" in agent and "builds its index" in agent
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("schemarouter serve: the index did not open: [SR302]")
    assert "HybridIndex" not in line
    if damage == "missing":
        assert f"schemarouter index build --config CONFIG --out {tmp_path / 'index'}" in line
