"""A request's Python-side work beside its encoding: BM25 and the router's query analysis run
on worker threads while the encoder's model call has released the GIL
(:mod:`schemarouter.index.workers`). The answers are the same as with everything on the
caller's thread; only where the work runs changes."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.contracts import Registration
from schemarouter.index import HashingEncoder, HybridIndex, workers
from schemarouter.index.encoders.dense import query_runner

from index_helpers import base_routes, make_route, registry_with

QUERIES = [
    "weather forecast temperature",
    "movie release date",
    "band gap of a material",
    "stock price in a currency",
    "서울 미세먼지",
]


class SplitEncoder(HashingEncoder):
    """An encoder that tokenizes first and runs its "model" later (as the ONNX ones do),
    and records the threads each step ran on."""

    def __init__(self) -> None:
        super().__init__(64)
        self.steps: list[tuple[str, int]] = []

    def query_runner(self, text: str) -> Callable[[], np.ndarray]:
        self.steps.append(("tokenize", threading.get_ident()))

        def run() -> np.ndarray:
            self.steps.append(("model", threading.get_ident()))
            return self.encode([text])[0]

        return run


def _hits(index: HybridIndex, query: str, **kwargs: object) -> list[tuple[str, float, float]]:
    return [
        (h.route_id, round(h.score, 9), round(h.dense_score, 9))
        for h in index.search(query, k=5, **kwargs)  # type: ignore[arg-type]
    ]


def test_bm25_runs_beside_the_encoding_and_the_hits_do_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if workers.cores() < 2:
        pytest.skip("one core: everything runs on the caller's thread")
    encoder = SplitEncoder()
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=encoder)
    lexical_threads: list[int] = []
    original = index._lexical_routes

    def recorded(*args: object, **kwargs: object) -> object:
        lexical_threads.append(threading.get_ident())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "_lexical_routes", recorded)
    me = threading.get_ident()
    for query in QUERIES:
        for mode in ("hybrid", "lexical", "dense"):
            monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", "0")
            lexical_threads.clear()
            alone = _hits(index, query, mode=mode)
            assert set(lexical_threads) <= {me}
            monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", "1")
            lexical_threads.clear()
            encoder.steps.clear()
            beside = _hits(index, query, mode=mode)
            assert beside == alone, (query, mode)
            if mode == "hybrid":  # BM25 on a worker; tokenizing and the model call here
                assert lexical_threads and me not in lexical_threads
                assert encoder.steps == [("tokenize", me), ("model", me)]
            elif mode == "lexical":
                assert lexical_threads == [me] and encoder.steps == []


def test_work_beside_a_search_runs_exactly_once_in_every_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=SplitEncoder())
    for background in ("0", "1"):
        monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", background)
        for mode in ("hybrid", "lexical", "dense"):
            for query, k in (("weather forecast", 5), ("", 5), ("   ", 5), ("weather", 0)):
                ran: list[int] = []
                done = threading.Event()

                def job(ran: list[int] = ran, done: threading.Event = done) -> None:
                    ran.append(threading.get_ident())
                    done.set()

                index.search(query, k=k, mode=mode, beside=job)  # type: ignore[arg-type]
                assert done.wait(10), (background, mode, query, k)
                assert len(ran) == 1, (background, mode, query, k)
                if background == "0":
                    assert ran == [threading.get_ident()]


def test_the_shipped_encoders_two_steps_give_its_vector() -> None:
    from schemarouter.index import default_encoder

    encoder = default_encoder()
    for text in ("band gap of silicon in eV", "translate this text into French " * 30):
        vector = query_runner(encoder, text)()
        assert vector.dtype == np.float32 and vector.shape == (encoder.dim,)
        assert np.array_equal(vector, np.asarray(encoder.encode([text])[0], dtype=np.float32))


def _search_in_child(index: HybridIndex, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put([h.route_id for h in index.search("weather forecast temperature", k=3)])


def test_a_forked_child_searches_with_worker_threads_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A parent's worker threads do not exist in a forked child (a pre-forking server that
    warmed the router up): the child's first search must not wait on them."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", "1")
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=SplitEncoder())
    expected = [h.route_id for h in index.search("weather forecast temperature", k=3)]
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_search_in_child, args=(index, out))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child's search hung on its parent's worker threads")
    assert child.exitcode == 0 and out.get(timeout=60) == expected


def test_a_route_registered_during_the_search_is_analysed_with_the_newer_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The query analysis starts before the search, on the registry as it was; where the
    registry changed meanwhile the router reads the newer one (the route the search found
    is emitted, and the provider the request names is known)."""
    router = SchemaRouter(
        registry=registry_with(base_routes()),
        encoder=HashingEncoder(64),
        embedding_cache=None,
        reranker=None,
        abstention=None,
    )
    index = router.index
    search = index.search
    late = make_route("acme", "rainfall", "Acme rainfall radar nowcast", {"rain_mm": "rain"})

    def register_then_search(query: str, **kwargs: object) -> object:
        if "acme" not in router.registry.snapshot().providers:
            router.registry.register(Registration(source="late", routes=(late,)))
        return search(query, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "search", register_then_search)
    result = router.retrieve("Acme rainfall radar nowcast", k=3)
    assert result.candidates[0].route_id == late.route_id
    assert "acme" in result.analysis.named_providers


class _BrokenAnalyzer:
    def analyze(self, query: str, snapshot: object) -> object:
        raise RuntimeError(f"cannot analyse {query!r}")


class _BrokenEncoder(SplitEncoder):
    def query_runner(self, text: str) -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            raise RuntimeError("the model call failed")

        return run


def test_an_error_beside_the_search_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """An analyzer or encoder that fails on a worker thread fails the caller's retrieve with
    its own error, on both paths."""
    for background in ("0", "1"):
        monkeypatch.setenv("SCHEMAROUTER_BACKGROUND", background)
        router = SchemaRouter(
            registry=registry_with(base_routes()),
            encoder=HashingEncoder(64),
            embedding_cache=None,
            reranker=None,
            analyzer=_BrokenAnalyzer(),  # type: ignore[arg-type]
        )
        with pytest.raises(RuntimeError, match="cannot analyse 'weather forecast'"):
            router.retrieve("weather forecast", k=3)
        index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=_BrokenEncoder())
        with pytest.raises(RuntimeError, match="the model call failed"):
            index.search("weather forecast", k=3)


def test_a_rescore_of_the_request_just_searched_reuses_its_vector() -> None:
    """The identifier lifts rescore producers for the request the index just searched: its
    vector and BM25 scores are reused (same values as computed afresh), another text's are
    computed."""
    encoder = SplitEncoder()
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=encoder)
    ids = [h.route_id for h in index.search("weather forecast temperature", k=5)]
    encoded = encoder.texts_encoded
    scored: list[object] = []
    original = index._lexical.scores
    index._lexical.scores = lambda tokens: scored.append(tokens) or original(tokens)  # type: ignore[method-assign]
    reused = index.rescore_parts("weather forecast temperature", ids)
    assert encoder.texts_encoded == encoded and scored == []
    index.endpoint_similarity("weather forecast temperature", ids)  # reuses it too
    assert encoder.texts_encoded == encoded
    index.rescore_parts("band gap of a material", ids)
    assert encoder.texts_encoded == encoded + 1 and len(scored) == 1
    fresh = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=SplitEncoder())
    again = fresh.rescore_parts("weather forecast temperature", ids)
    assert np.allclose(reused[0], again[0]) and np.allclose(reused[1], again[1])


def test_a_rescore_after_the_index_changed_reads_the_new_documents() -> None:
    registry = registry_with(base_routes())
    index = HybridIndex.build(registry.snapshot(), encoder=SplitEncoder())
    query = "rainfall radar nowcast"
    index.search(query, k=5)
    late = make_route("acme", "rainfall", "Acme rainfall radar nowcast", {"rain_mm": "rain"})
    registry.register(Registration(source="late", routes=(late,)))
    index.apply(registry.snapshot())
    ids = [late.route_id, "weather/rest/forecast"]
    fresh = HybridIndex.build(registry.snapshot(), encoder=SplitEncoder())
    for mine, theirs in zip(
        index.rescore_parts(query, ids), fresh.rescore_parts(query, ids), strict=True
    ):
        assert np.allclose(mine, theirs)
