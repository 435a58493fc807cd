"""One failure changes nothing, and misuse gets typed errors (issue #15): a registration
whose index update fails is undone; an embedding cache that cannot be written costs only
its cache; a saved index is read only through its manifest; a query with a lone surrogate
is normalized; every public entry point answers bad arguments with a SchemaRouterError
(a hypothesis test). Each test is a row of docs/faults.md."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemarouter import ExecutionState, PlanRequest, SchemaRouter, load_catalog
from schemarouter.errors import (
    ArgumentError,
    CorruptIndexError,
    RegistrationError,
    SchemaRouterError,
)
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.index import EmbeddingCache, HashingEncoder, HybridIndex, store

from helpers import TINY_CATALOG

EXTRA_CATALOG = """\
schemarouter_catalog: 1
providers:
  - id: weather
    display_name: Weather Service
    access:
      - id: rest
        kind: http
        base_url: https://weather.example.org
        endpoints:
          - id: forecast
            name: forecast
            operation: {method: GET, path: /forecast}
            description: DESCRIPTION
            output_fields:
              - {name: temperature, path: temperature, json_schema: {type: number}}
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


class FailingEncoder(HashingEncoder):
    """A real encoder that breaks on one text (as an ONNX session can on odd input)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if any("EXPLODE" in text for text in texts):
            raise RuntimeError("the encoder failed on this batch")
        return super().encode(texts)


# -- 4: registration and the index update happen together, or neither ------------------------


def test_a_failing_index_update_registers_nothing(tmp_path: Path) -> None:
    router = SchemaRouter(encoder=FailingEncoder(), embedding_cache=None, abstention=None)
    router.add_catalog(_write(tmp_path, "tiny.yaml", TINY_CATALOG))
    before = router.retrieve("band gap of silicon", k=2)  # builds the index
    version = router.registry.version
    bad = _write(tmp_path, "bad.yaml", EXTRA_CATALOG.replace("DESCRIPTION", "EXPLODE now"))
    with pytest.raises(RegistrationError, match="updating the index failed") as caught:
        router.add_catalog(bad)
    assert "RuntimeError" in str(caught.value) and str(bad) in str(caught.value)
    assert router.registry.version == version
    assert "weather/rest/forecast" not in router.snapshot()
    assert not router.is_bound("weather/rest/forecast")
    after = router.retrieve("band gap of silicon", k=2)
    assert [c.route_id for c in after.candidates] == [c.route_id for c in before.candidates]
    good = _write(tmp_path, "good.yaml", EXTRA_CATALOG.replace("DESCRIPTION", "Forecasts."))
    router.add_catalog(good)
    assert router.retrieve("weather forecast", k=1).candidates[0].route_id == (
        "weather/rest/forecast"
    )


def test_a_cache_that_cannot_be_written_costs_only_the_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The review's case: the cache folder for the model becomes a file, so the next write
    raises FileExistsError during add_catalog. The vectors were computed: the route is
    registered, indexed and retrievable, and a warning says the cache was skipped."""
    cache = EmbeddingCache(tmp_path / "cache")
    encoder = HashingEncoder()
    router = SchemaRouter(encoder=encoder, embedding_cache=cache, abstention=None)
    router.add_catalog(_write(tmp_path, "tiny.yaml", TINY_CATALOG))
    router.retrieve("band gap", k=1)  # builds the index, writes the cache
    folder = cache._folder(encoder.identity)
    shutil.rmtree(folder)
    folder.write_text("not a folder", encoding="utf-8")
    caplog.set_level(logging.WARNING)
    good = _write(tmp_path, "good.yaml", EXTRA_CATALOG.replace("DESCRIPTION", "Forecasts."))
    router.add_catalog(good)
    assert "weather/rest/forecast" in router.snapshot() and router.is_bound("weather/rest/forecast")
    top = router.retrieve("weather forecast", k=1).candidates[0]
    assert top.route_id == "weather/rest/forecast"
    assert any("not written" in r.getMessage() for r in caplog.records)


# -- 17: a saved index is read through its manifest only ------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> tuple[SchemaRouter, Path]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_catalog(_write(tmp_path, "tiny.yaml", TINY_CATALOG))
    path = tmp_path / "index"
    router.index.save(path)
    return router, path


def test_an_unlisted_faiss_file_is_never_read(saved: tuple[SchemaRouter, Path]) -> None:
    """Random bytes as ``endpoint_hnsw.faiss`` beside the listed files (a small index has
    no HNSW graph): ignored, where they were once fed to FAISS (an untyped RuntimeError)."""
    router, path = saved
    (generation,) = path.glob("gen-*")
    manifest = json.loads((path / "manifest.json").read_text())
    assert f"{generation.name}/endpoint_hnsw.faiss" not in manifest["files"]
    (generation / "endpoint_hnsw.faiss").write_bytes(os.urandom(4096))
    loaded = HybridIndex.load(path, router.snapshot(), encoder=HashingEncoder())
    assert loaded.search("band gap", k=1)[0].route_id == "matproj/rest/summary"


def _forge(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    edit(manifest)
    manifest["checksum"] = store._manifest_checksum(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_a_forged_manifest_cannot_point_outside_its_generation(
    saved: tuple[SchemaRouter, Path], tmp_path: Path
) -> None:
    router, path = saved
    outside = _write(tmp_path, "secret.txt", "not an index file")
    digest = store._sha256(outside)

    def point_outside(manifest: dict[str, Any]) -> None:
        manifest["files"][str(outside)] = {"sha256": digest, "bytes": outside.stat().st_size}

    _forge(path, point_outside)
    with pytest.raises(CorruptIndexError, match="not a file of generation"):
        HybridIndex.load(path, router.snapshot(), encoder=HashingEncoder())


def test_a_required_file_missing_from_the_manifest_is_corrupt(
    saved: tuple[SchemaRouter, Path],
) -> None:
    router, path = saved

    def drop_vocabulary(manifest: dict[str, Any]) -> None:
        name = next(n for n in manifest["files"] if n.endswith("lexical_vocab.json"))
        del manifest["files"][name]

    _forge(path, drop_vocabulary)
    with pytest.raises(CorruptIndexError, match=r"not listed in manifest\.json"):
        HybridIndex.load(path, router.snapshot(), encoder=HashingEncoder())


# -- 18: a lone surrogate in a query ---------------------------------------------------------

SURROGATE_QUERY = "band gap of silicon \ud800"


@pytest.fixture(scope="module")
def shipped_router(tmp_path_factory: pytest.TempPathFactory) -> SchemaRouter:
    """The embedded defaults (ONNX MiniLM, shipped reranker): their tokenizer refuses a
    string that is not Unicode, which is where the untyped TypeError came from."""
    folder = tmp_path_factory.mktemp("shipped")
    router = SchemaRouter(embedding_cache=None)
    router.add_catalog(_write(folder, "tiny.yaml", TINY_CATALOG))
    return router


def test_a_lone_surrogate_is_normalized_in_retrieve_plan_and_retrieve_executable(
    shipped_router: SchemaRouter,
) -> None:
    for result in (
        shipped_router.retrieve(SURROGATE_QUERY),
        shipped_router.retrieve_executable(SURROGATE_QUERY),
        asyncio.run(shipped_router.aretrieve(SURROGATE_QUERY)),
    ):
        assert result.query == "band gap of silicon \ufffd"
        json.loads(result.model_dump_json())
    plan = shipped_router.plan(SURROGATE_QUERY)
    assert plan.request.query == "band gap of silicon \ufffd"
    json.loads(plan.model_dump_json())
    plan = shipped_router.plan(PlanRequest(query=SURROGATE_QUERY))
    json.loads(plan.model_dump_json())


# -- Also: every public entry point answers misuse with a SchemaRouterError ------------------


def _sample(x: int) -> float:
    """A sample measurement.

    :param x: which sample
    """
    return float(x)


_TEXT = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "S", "Z", "Cc", "Cs"]), max_size=40
).filter(lambda t: not t.lower().startswith(("http:", "https:")))
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.just(10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    _TEXT,
    st.sampled_from(["", ".", "..", "\0", "a\0b", "x" * 5000, "../../etc/passwd", "read"]),
    st.binary(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.lists(_TEXT, max_size=3),
    st.dictionaries(_TEXT, st.integers(), max_size=3),
    st.just(object()),
    st.just(float("nan")),
)


def _calls(
    router: SchemaRouter, folder: Path
) -> dict[str, tuple[Callable[..., Any], dict[str, Any]]]:
    """method name -> (the call, valid keyword arguments to spoil one at a time)."""
    plan = router.plan("band gap of silicon")
    mcp_tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    oas = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}
    state = ExecutionState()

    def execute(**kwargs: Any) -> Any:
        return router.execute(**kwargs)

    return {
        "retrieve": (router.retrieve, {"query": "band gap", "k": 2, "rerank": True}),
        "aretrieve": (
            lambda **kw: asyncio.run(router.aretrieve(**kw)),
            {"query": "band gap", "k": 2, "rerank": True},
        ),
        "retrieve_executable": (
            router.retrieve_executable,
            {"query": "band gap", "k": 2, "state": state},
        ),
        "retrieve_state_aware": (
            router.retrieve_state_aware,
            {"query": "band gap", "k": 2, "state": state},
        ),
        "reretrieve_state_aware": (
            router.reretrieve_state_aware,
            {"query": "band gap", "k": 2, "state": state},
        ),
        "plan": (router.plan, {"request": "band gap", "max_calls": 1, "projection": None}),
        "add_callable": (
            router.add_callable,
            {
                "fn": _sample,
                "provider": "lab",
                "effect": "read",
                "license": "MIT",
                "source_type": "experimental",
                "replace": True,
            },
        ),
        "add_catalog": (router.add_catalog, {"path": folder / "tiny.yaml", "replace": True}),
        "add_openapi": (
            router.add_openapi,
            {
                "document": oas,
                "provider": "things",
                "base_url": "https://things.example.org",
                "access_id": "rest",
                "effect_overrides": {},
                "trusted": False,
                "replace": True,
            },
        ),
        "add_mcp_tools": (
            router.add_mcp_tools,
            {"tools": [mcp_tool], "provider": "tools", "server": "srv", "replace": True},
        ),
        "remove_provider": (router.remove_provider, {"provider": "cod"}),
        "bind": (router.bind, {"route_id": "cod/rest/result", "invoker": _sample}),
        "mark_unhealthy": (router.mark_unhealthy, {"route_id": "cod/rest/result", "cooldown": 1}),
        "execute": (
            execute,
            {
                "plan": plan,
                "credentials": MappingCredentials({}),  # the route's key is missing: no call
                "allow_effects": ["read"],
                "partial": False,
                "policy": None,
                "budget": None,
            },
        ),
        "diff": (router.diff, {"registration": load_catalog(folder / "tiny.yaml")}),
        "inspect": (router.inspect, {"text_or_html": "GET /things returns things"}),
    }


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    """An empty folder as the working directory, so a junk path names nothing real."""
    folder = Path(tempfile.mkdtemp())
    _write(folder, "tiny.yaml", TINY_CATALOG)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(cwd)
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_public_entry_points_raise_only_schemarouter_errors(
    data: st.DataObject, workdir: Path
) -> None:
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_catalog(workdir / "tiny.yaml")
    calls = _calls(router, workdir)
    name = data.draw(st.sampled_from(sorted(calls)), label="method")
    call, kwargs = calls[name]
    spoiled = data.draw(st.sampled_from(sorted(kwargs)), label="argument")
    kwargs = {**kwargs, spoiled: data.draw(JUNK, label="value")}
    with contextlib.suppress(SchemaRouterError):  # anything else fails the test
        call(**kwargs)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda r: r.retrieve(None), "query must be a str"),
        (lambda r: r.retrieve("band gap", k="5"), "k must be an int"),
        (lambda r: r.retrieve("band gap", k=0), "k must be an int of at least 1"),
        (lambda r: r.plan(None), "request must be"),
        (lambda r: r.plan("band gap", max_calls="2"), "max_calls"),
        (
            lambda r: r.add_callable(_sample, provider="lab", source_type="measured"),
            "source_type must be one of",
        ),
        (lambda r: r.add_callable(_sample, provider="lab", effect="harmless"), "effect must"),
        (lambda r: r.add_catalog(None), "path must be a path"),
        (lambda r: r.execute(None), "plan must be"),
        (
            lambda r: r.execute(r.plan("band gap"), allow_effects=["sometimes"]),
            "allow_effects must be one of",
        ),
        (lambda r: r.retrieve_state_aware("band gap", state={}), "state must be"),
    ],
)
def test_ordinary_misuse_is_an_argument_error(
    call: Callable[[SchemaRouter], Any], match: str, tmp_path: Path
) -> None:
    """The review's cases, each an ArgumentError (also a TypeError and a ValueError, for
    code that catches those) naming the argument."""
    router = SchemaRouter(
        encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
    )
    router.add_catalog(_write(tmp_path, "tiny.yaml", TINY_CATALOG))
    with pytest.raises(ArgumentError, match=match) as caught:
        call(router)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_a_provider_name_with_a_lone_surrogate_is_read_as_text() -> None:
    """Found by the property test above (this stop): ``add_mcp_tools(..., provider="Ø\\ud800")``
    raised UnicodeEncodeError from the provider id's digest. The lone surrogate is U+FFFD, as
    in every other text reaching the models."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    router.add_mcp_tools([{"name": "t", "inputSchema": {"type": "object"}}], provider="Ø\ud800")
    (provider,) = router.snapshot().providers.values()
    assert provider.display_name == "Ø\ufffd" and provider.id.startswith("p_")
