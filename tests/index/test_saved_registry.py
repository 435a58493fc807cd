"""A saved index carries the registry it was built from (``registry.json.gz`` in its
generation, listed in the manifest): a serving process starts from the folder alone
(``SchemaRouter.from_index``, ``SchemaRouter(index=DIR)`` with nothing registered), HTTP
routes execute as registered from their document, Python callables say how to bind them
again, and a damaged or missing registry says what to do."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from schemarouter import MappingCredentials, SchemaRouter, bundled_catalog
from schemarouter.errors import CorruptIndexError, IndexStoreError, PolicyError
from schemarouter.fingerprint import fingerprint
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer
from servers.user_api import FORECAST, STATION, secured_weather_openapi, weather_openapi

MODELS: dict[str, Any] = {"abstention": None, "reranker": None, "ranking": None}


def router_of(**options: Any) -> SchemaRouter:
    return SchemaRouter(encoder=HashingEncoder(64), embedding_cache=None, **MODELS, **options)


def saved(router: SchemaRouter, folder: Path) -> Path:
    router.build_index()
    router.index.save(folder)
    return folder


def manifest(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
    return data


def registry_file(folder: Path) -> Path:
    return folder / manifest(folder)["generation"] / "registry.json.gz"


def rewrite_manifest(folder: Path, data: dict[str, Any]) -> None:
    data["checksum"] = fingerprint({k: v for k, v in data.items() if k != "checksum"})
    (folder / "manifest.json").write_text(json.dumps(data))


def started(folder: Path) -> SchemaRouter:
    return SchemaRouter.from_index(
        folder, encoder=HashingEncoder(64), embedding_cache=None, **MODELS
    )


def test_the_saved_index_lists_its_registry_and_starts_from_the_folder_alone(
    tmp_path: Path,
) -> None:
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    listed = manifest(folder)["files"]
    name = f"{manifest(folder)['generation']}/registry.json.gz"
    assert name in listed and listed[name]["sha256"]
    # zcat reads it: the registry, then a provider a line
    head, *lines = gzip.decompress(registry_file(folder).read_bytes()).splitlines()
    assert json.loads(head)["catalog"]["schemarouter_catalog"] == 1
    assert len(lines) == len({r.provider.id for r in router.snapshot()})
    assert all(json.loads(line)["provider"]["access"] for line in lines)
    restarted = started(folder)
    assert restarted.snapshot().fingerprint == router.snapshot().fingerprint
    assert dict(restarted.snapshot().intents) == dict(router.snapshot().intents)
    route = next(iter(router.snapshot()))
    assert restarted.snapshot().routes[route.route_id].source == route.source  # provenance kept
    query = "band gap of GaN"
    assert restarted.retrieve(query, k=5).route_ids == router.retrieve(query, k=5).route_ids
    assert restarted.plan(query).steps == router.plan(query).steps
    # nothing registered: the index's registry is registered on first use
    lazy = router_of(index=folder)
    assert lazy.retrieve(query, k=5).route_ids == router.retrieve(query, k=5).route_ids
    assert len(lazy.snapshot()) == len(router.snapshot())


def test_sources_given_with_the_index_are_registered_and_checked_as_before(
    tmp_path: Path, tiny_catalog: Path
) -> None:
    from schemarouter.errors import StaleIndexError

    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    given = router_of(index=folder)
    given.add_catalog(bundled_catalog())
    assert given.retrieve("band gap of GaN", k=3).route_ids
    other = router_of(index=folder)
    other.add_catalog(tiny_catalog)  # not what the index was built from: stale, as ever
    with pytest.raises(StaleIndexError):
        other.build_index()


def test_a_damaged_registry_file_is_corrupt_and_names_the_file(tmp_path: Path) -> None:
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    file = registry_file(folder)
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit flipped
    file.write_bytes(bytes(data))
    with pytest.raises(CorruptIndexError, match=r"registry\.json\.gz") as info:
        started(folder)
    assert "schemarouter index build" in str(info.value.hint)
    assert str(file) in str(info.value.where)


@pytest.mark.parametrize("change", [b"more bytes", None])
def test_a_registry_file_of_another_size_says_so_not_that_it_passes_a_limit(
    tmp_path: Path, change: bytes | None
) -> None:
    """A generation folder copied in from another build (trial Y3) held a larger
    ``registry.json.gz``: the refusal said "the file has 1590342 bytes, more than the limit
    of 1503278", as if a limit were to raise, not that the file is not the manifest's."""
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    file = registry_file(folder)
    data = file.read_bytes()
    file.write_bytes(data + change if change is not None else data[: len(data) // 2])
    with pytest.raises(CorruptIndexError) as info:
        started(folder)
    said = str(info.value)
    assert f"has {file.stat().st_size} bytes, the manifest says {len(data)}" in said
    assert "limit" not in said
    assert str(file) in str(info.value.where)
    assert "schemarouter index build" in str(info.value.hint)


def test_a_registry_that_gives_other_routes_is_corrupt(tmp_path: Path, tiny_catalog: Path) -> None:
    """Hashes made to match (an edited folder): the routes it registers must still be the
    index's, and the file a saved registry."""
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    other = router_of()
    other.add_catalog(tiny_catalog)
    saved(other, tmp_path / "other")
    file = registry_file(folder)
    file.write_bytes(registry_file(tmp_path / "other").read_bytes())
    data = manifest(folder)
    name = f"{data['generation']}/registry.json.gz"
    data["files"][name] = {
        "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
        "bytes": file.stat().st_size,
    }
    rewrite_manifest(folder, data)
    with pytest.raises(CorruptIndexError, match="another fingerprint"):
        started(folder)
    file.write_bytes(b'{"not": "gzip"}')
    data["files"][name] = {
        "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
        "bytes": file.stat().st_size,
    }
    rewrite_manifest(folder, data)
    with pytest.raises(CorruptIndexError, match="not a saved registry of this format"):
        started(folder)


def test_an_index_saved_without_a_registry_says_so_and_loads_with_its_sources(
    tmp_path: Path,
) -> None:
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    data = manifest(folder)  # as an older version wrote it: no registry.json
    name = f"{data['generation']}/registry.json.gz"
    del data["files"][name]
    (folder / name).unlink()
    rewrite_manifest(folder, data)
    with pytest.raises(IndexStoreError, match="holds no registry") as info:
        started(folder)
    assert "Give the sources" in str(info.value.hint)
    with pytest.raises(IndexStoreError, match="holds no registry"):
        router_of(index=folder).retrieve("band gap", k=3)
    given = router_of(index=folder)
    given.add_catalog(bundled_catalog())
    assert given.retrieve("band gap of GaN", k=3).route_ids


def test_restored_http_routes_execute_with_credentials_from_the_environment(
    weather: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    router = router_of()
    router.add_openapi(secured_weather_openapi(weather.base_url), provider="weather")
    folder = saved(router, tmp_path / "index")
    restarted = started(folder)
    assert restarted.is_bound(FORECAST) and restarted.is_bound(STATION)
    assert restarted.binding(FORECAST).base_url == weather.base_url
    assert restarted.call(FORECAST, {"city": "Paris"}).output["city"] == "Paris"
    monkeypatch.setenv("WEATHER_API_KEY", "k-9")
    assert restarted.call(STATION, {"station_id": "LFPG"}).ok
    assert weather.requests[-1].query["appid"] == ["k-9"]
    keys = MappingCredentials({"WEATHER_API_KEY": "k-10"})
    plan = restarted.plan("daily weather forecast for a city")
    assert plan.steps[0].route_id == FORECAST
    plan = plan.with_arguments(FORECAST, {"city": "Nice"})
    assert restarted.execute(plan, credentials=keys).complete
    assert weather.requests[-1].query["city"] == ["Nice"]


def forecast(city: str, days: int = 3) -> dict[str, Any]:
    """Daily weather forecast for a city."""
    return {"city": city, "days": days}


def test_restored_callables_plan_but_say_how_to_bind_the_function_again(
    weather: LoopbackServer, tmp_path: Path
) -> None:
    router = router_of()
    router.add_callable(forecast, provider="local")
    router.add_openapi(weather_openapi(weather.base_url), provider="weather")
    folder = saved(router, tmp_path / "index")
    restarted = started(folder)
    route = "local/python/forecast"
    assert route in restarted.snapshot() and not restarted.is_bound(route)
    assert route in restarted.retrieve("daily forecast for a city", k=5).route_ids
    with pytest.raises(PolicyError, match="not bound") as info:
        restarted.call(route, {"city": "Oslo"})
    assert "add_callable(fn, provider='local', replace=True)" in str(info.value.hint)
    restarted.add_callable(forecast, provider="local", replace=True)  # re-attached
    assert restarted.call(route, {"city": "Oslo"}).output == {"city": "Oslo", "days": 3}
    assert restarted.snapshot().fingerprint == router.snapshot().fingerprint


def test_restored_callables_left_out_of_an_executable_retrieval_say_how_to_bind_them(
    tmp_path: Path,
) -> None:
    """Trial X3: ``retrieve_executable`` on a restored router said of its functions "register
    them with a base URL, bind one (router.bind) or connect their server (add_mcp_server)",
    none of which binds a Python function."""
    router = router_of()
    router.add_callable(forecast, provider="local")
    restarted = started(saved(router, tmp_path / "index"))
    found = restarted.retrieve_executable("daily forecast for a city", k=5)
    assert found.route_ids == ()
    assert "router.add_callable(fn, provider='local', replace=True)" in found.blocked
    restarted.add_callable(forecast, provider="local", replace=True)
    assert restarted.retrieve_executable("daily forecast for a city", k=5).route_ids


def test_restored_mcp_tools_say_how_to_connect_their_server_again(tmp_path: Path) -> None:
    tools = {
        "tools": [
            {
                "name": "search_notes",
                "description": "Search the notes by a word",
                "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
            }
        ]
    }
    router = router_of()
    router.add_mcp_tools(tools, provider="notes")
    restarted = started(saved(router, tmp_path / "index"))
    (route,) = restarted.snapshot().route_ids()
    with pytest.raises(PolicyError, match="not bound") as info:
        restarted.call(route, {"word": "x"}, allow_effects=["read", "write"])
    assert "add_mcp_server(SERVER, provider='notes', replace=True)" in str(info.value.hint)


def test_a_provider_line_that_is_no_json_is_corrupt_naming_its_line(tmp_path: Path) -> None:
    """Each line is read alone: an error in a provider's line was told as "line 1" of
    the file, and a route without saved fingerprints by its id alone (trial W1)."""
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    file = registry_file(folder)
    lines = gzip.decompress(file.read_bytes()).splitlines()
    lines[2] = b"provider: {not json}"
    file.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    data = manifest(folder)
    data["files"][f"{data['generation']}/registry.json.gz"] = {
        "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
        "bytes": file.stat().st_size,
    }
    rewrite_manifest(folder, data)
    with pytest.raises(CorruptIndexError, match=r"format: line 3: Invalid JSON: .* column 1"):
        started(folder)


def _edited(folder: Path, change: Any) -> None:
    """``folder``'s registry with ``change`` made to each endpoint (an edited folder: the
    hashes and the manifest made to match, the saved fingerprints kept)."""
    file = registry_file(folder)
    head, *lines = (json.loads(x) for x in gzip.decompress(file.read_bytes()).splitlines())
    for line in lines:
        for access in line["provider"]["access"]:
            for endpoint in access["endpoints"]:
                change(endpoint)
    text = b"".join(json.dumps(x).encode() + b"\n" for x in (head, *lines))
    file.write_bytes(gzip.compress(text))
    data = manifest(folder)
    data["files"][f"{data['generation']}/registry.json.gz"] = {
        "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
        "bytes": file.stat().st_size,
    }
    rewrite_manifest(folder, data)


def _schema_of_five(endpoint: dict[str, Any]) -> None:
    for parameter in endpoint["parameters"]:
        parameter["json_schema"] = {"type": 5}
        endpoint["input_schema"]["properties"][parameter["name"]] = {"type": 5}


def _credential_carrier(endpoint: dict[str, Any]) -> None:
    endpoint["parameters"].append(
        {"name": "appid", "location": "query", "json_schema": {"type": "string"}}
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_schema_of_five, "line 2: invalid JSON Schema"),
        (_credential_carrier, "line 2: parameter 'appid' is where the credential travels"),
    ],
)
def test_a_restored_route_is_checked_as_a_catalogs_endpoint(
    weather: LoopbackServer, tmp_path: Path, change: Any, said: str
) -> None:
    """A route a catalog would refuse is refused from the file too: a schema of
    ``{"type": 5}`` raised TypeError from every plan ranking the route (trial W1)."""
    router = router_of()
    router.add_openapi(secured_weather_openapi(weather.base_url), provider="weather")
    folder = saved(router, tmp_path / "index")
    _edited(folder, change)
    with pytest.raises(CorruptIndexError, match=said):
        started(folder).plan("daily weather forecast for a city")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_registry_file_that_is_no_regular_file_is_corrupt_at_once(
    tmp_path: Path, kind: str
) -> None:
    """A FIFO at registry.json.gz waited for a writer for ever, and a link to /dev/zero
    would have been read until memory ran out (trial W1); the manifest is read so already."""
    router = router_of()
    router.add_catalog(bundled_catalog())
    folder = saved(router, tmp_path / "index")
    file = registry_file(folder)
    file.unlink()
    if kind == "fifo":
        os.mkfifo(file)
    else:
        file.symlink_to("/dev/zero")
    with pytest.raises(CorruptIndexError, match=r"cannot be read: .*not a regular file"):
        started(folder)
