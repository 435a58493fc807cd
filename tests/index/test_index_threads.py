"""One index shared by threads: an update embeds its new texts without the index's lock, so
searches go on meanwhile (answering from the index before it); searches encode their
requests without it, side by side; a search that an update overtook reads the new tables
whole. The encoders below are the test encoder, slowed down at one step with an event or
a barrier, so each interleaving is certain rather than likely."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from schemarouter.contracts import Registration
from schemarouter.index import HashingEncoder, HybridIndex

from index_helpers import base_routes, make_route, registry_with

WAIT = 10.0


def _scores(index: HybridIndex, query: str, k: int = 50) -> dict[str, float]:
    return {h.route_id: round(h.score, 9) for h in index.search(query, k=k)}


def _in_thread(job: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``job()`` on a thread of its own; the list gets its answer (or its error)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(job())
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


class GatedEncoder(HashingEncoder):
    """Holds a document encoding whose texts mention ``marker`` until :attr:`release` is
    set (a registration's embedding that takes its time); other texts go through."""

    def __init__(self, marker: str) -> None:
        super().__init__(64)
        self.marker = marker
        self.entered = threading.Event()
        self.release = threading.Event()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if any(self.marker in t for t in texts):
            self.entered.set()
            if not self.release.wait(30):
                raise TimeoutError("never released")
        return super().encode(texts)


class QueryGateEncoder(HashingEncoder):
    """Splits a request's encoding in two (as the ONNX encoders do); the model step of a
    request in :attr:`held` waits for :attr:`release`, and each model step meets the others
    at :attr:`meeting` where one is set."""

    def __init__(self) -> None:
        super().__init__(64)
        self.held: set[str] = set()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.meeting: threading.Barrier | None = None

    def query_runner(self, text: str) -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            if self.meeting is not None:
                self.meeting.wait()
            if text in self.held:
                self.entered.set()
                if not self.release.wait(30):
                    raise TimeoutError("never released")
            return np.asarray(self.encode([text])[0], dtype=np.float32)

        return run


def test_a_search_runs_while_an_update_embeds_and_answers_from_the_index_before_it() -> None:
    """The trial's finding: every retrieve stalled for as long as a registration was being
    embedded (the update held the lock every search takes: 3.7 ms -> 3.6 s)."""
    encoder = GatedEncoder("nowcast")
    registry = registry_with(base_routes())
    index = HybridIndex.build(registry.snapshot(), encoder=encoder)
    query = "rainfall radar for a city"
    before = _scores(index, query)
    late = make_route(
        "acme", "rainfall", "Acme rainfall radar nowcast", {"rain_mm": "rain in millimetres"}
    )
    registry.register(Registration(source="late", routes=(late,)))
    updating, updated = _in_thread(lambda: index.apply(registry.snapshot()))
    try:
        assert encoder.entered.wait(WAIT)  # the update is embedding the new route now
        searching, answers = _in_thread(lambda: _scores(index, query))
        searching.join(WAIT)
        assert answers == [before]  # answered at once, from the index before the update
        assert index.registry_version == 1 and late.route_id not in index
    finally:
        encoder.release.set()
        updating.join(WAIT)
    assert len(updated) == 1 and not isinstance(updated[0], BaseException)
    assert index.registry_version == 2 and late.route_id in _scores(index, query)


def test_searches_encode_their_requests_side_by_side() -> None:
    """Two searches are inside their encoders at once (each waits there for the other): a
    search holds the index's lock only to read the tables."""
    encoder = QueryGateEncoder()
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=encoder)
    queries = ["weather forecast temperature", "movie release date"]
    alone = [_scores(index, q) for q in queries]
    encoder.meeting = threading.Barrier(len(queries), timeout=WAIT)
    started = [_in_thread(lambda q=q: _scores(index, q)) for q in queries]  # type: ignore[misc]
    for thread, _ in started:
        thread.join(2 * WAIT)
    assert [out for _, out in started] == [[a] for a in alone]


def test_a_search_an_update_overtook_reads_the_new_tables_whole() -> None:
    """An update swapped its tables in while a search was encoding (rows renumbered, a
    route gone, two new): the search answers as a fresh index of the new snapshot does."""
    encoder = QueryGateEncoder()
    routes = base_routes()
    registry = registry_with(routes)
    index = HybridIndex.build(registry.snapshot(), encoder=encoder)
    query = "weather forecast for a city with rain radar"
    encoder.held.add(query)
    searching, answers = _in_thread(lambda: _scores(index, query))
    try:
        assert encoder.entered.wait(WAIT)  # the search is encoding, the lock let go
        registry.remove(route_ids=[routes[0].route_id])
        registry.register(
            Registration(
                source="late",
                routes=(
                    make_route("acme", "radar", "Rain radar for a city", {"mm": "rain"}),
                    make_route("zeta", "forecast", "City weather forecast", {"t": "temp"}),
                ),
            )
        )
        updating, _ = _in_thread(lambda: index.apply(registry.snapshot()))
        updating.join(WAIT)
        assert not updating.is_alive()  # the update did not wait for the search
    finally:
        encoder.release.set()
        searching.join(WAIT)
    encoder.held.clear()
    fresh = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder(64))
    assert answers == [_scores(fresh, query)]
    assert routes[0].route_id not in answers[0] and "acme/rest/radar" in answers[0]


def test_an_update_that_compacts_keeps_the_vectors_its_new_routes_share_with_the_old() -> None:
    """600 of 1,100 routes replaced with their endpoint texts unchanged: their old vectors
    die with the old routes and the vector sets are compacted, yet the texts are not
    embedded again (looked up before the swap); the index searches as a fresh one."""
    n = 1100

    def routes(version: int, replaced: int) -> list:
        return [
            make_route(
                f"p{i}",
                "lookup",
                f"Lookup of record kind {i} in registry {i % 7}",
                {"value": f"value of kind {i}" + (f" v{version}" if i < replaced else "")},
            )
            for i in range(n)
        ]

    encoder = HashingEncoder(64)
    registry = registry_with(routes(1, 0))
    index = HybridIndex.build(registry.snapshot(), encoder=encoder)
    assert len(index._vectors[0]) == n
    registry.register(Registration(source="again", routes=tuple(routes(2, 600))), replace=True)
    stats = index.apply(registry.snapshot())
    assert stats.encoded == 600  # the new field texts only
    assert len(index._vectors[0]) == n and len(index._vectors[1]) == n  # compacted
    fresh = HybridIndex.build(registry.snapshot(), encoder=HashingEncoder(64))
    for query in ("lookup of record kind 12", "value of kind 700 v2", "registry 3 value"):
        assert _scores(index, query, k=n) == _scores(fresh, query, k=n)
