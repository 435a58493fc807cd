"""The ranking stage's rows from catalogs like a user's: the spare catalogs leave out every
document and server an evaluation set registers, and the rows of several sources concatenate
without mixing their requests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.training.datasets.spare_catalogs import (
    SPARE_OF,
    evaluation_sources,
    spare_requests,
    spare_sources,
)
from schemarouter.training.datasets.write_intent import (
    WRITE_INTENT_SETS,
    set_sources,
    write_intent_path,
)
from schemarouter.training.ranking_rows import WindowRows, recall_at

from helpers import BUNDLED_CATALOG


def _set_sources() -> dict[str, tuple[set[str], set[str]]]:
    """The documents and servers of each set the spare catalogs leave out, read from its own
    file."""
    out = {}
    for which in SPARE_OF:
        documents, servers = set_sources(json.loads(write_intent_path(which).read_text("utf-8")))
        out[which] = (set(documents), set(servers))
    return out


def test_evaluation_sources_hold_every_packaged_set_s_sources() -> None:
    documents, servers = evaluation_sources()
    for which, (docs, names) in _set_sources().items():
        assert docs and docs <= documents, which
        assert which == "heldout" or (names and names <= servers), which


@pytest.mark.shared_data
def test_no_spare_source_is_registered_by_any_evaluation_set(shared_data: Path) -> None:
    documents, servers = spare_sources(shared_data)
    assert len(documents) >= 50 and len(servers) >= 10
    for which, (docs, names) in _set_sources().items():
        assert not docs & set(documents), which
        assert not names & set(servers), which
    # the spare documents and the evaluated ones are the whole folder, nothing else
    every = {p.name for p in (shared_data / "openapi-permissive").glob("*.json")}
    evaluated = set().union(*(docs for docs, _ in _set_sources().values()))
    assert set(documents) == every - evaluated


@pytest.mark.shared_data
def test_the_spare_catalogs_stay_those_the_shipped_model_was_trained_on(shared_data: Path) -> None:
    """dev2 was written after the shipped ranking model's rows were drawn from eight spare
    documents; it must not shrink the spare set, or `train-ranking --synthetic` no longer
    draws the rows the shipped card records."""
    assert set(SPARE_OF) | {"dev2"} == set(WRITE_INTENT_SETS)
    card = json.loads((Path(__file__).parents[2] / "models/ranking/card.json").read_text())
    documents, servers = spare_sources(shared_data)
    recorded = json.dumps(card["data"])
    assert all(name in recorded for name in documents), "a spare document the card lacks"
    assert len(documents) == 72 and len(servers) == 14


def test_spare_requests_are_drawn_with_a_seed_and_name_registered_routes() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_catalog(BUNDLED_CATALOG)
    first = spare_requests(router, 20)
    assert len(first) == 20 and len({q.id for q in first}) == 20
    assert [q.text for q in first] == [q.text for q in spare_requests(router, 20)]
    registered = set(router.snapshot().route_ids())
    assert all(q.gold and set(q.gold) <= registered for q in first)
    assert all(q.needs == tuple(frozenset([g]) for g in q.gold) for q in first)
    assert len(spare_requests(router, 10**6)) <= len(registered)  # one written per route


def _rows(windows: list[list[int]], name: str) -> WindowRows:
    """Rows of one feature (fusion's order), one window per request, 1 marking its gold."""
    labels = [y for window in windows for y in window]
    group = np.array([g for g, window in enumerate(windows) for _ in window], dtype=np.int64)
    ids = [f"{name}{g}-{i}" for g, window in enumerate(windows) for i in range(len(window))]
    gold = [ids[k] for k, y in enumerate(labels) if y]
    return WindowRows(
        np.array([[-float(i)] for window in windows for i in range(len(window))]),
        np.array(labels, dtype=float),
        group,
        np.full(len(ids), 2),
        ids,
        [[frozenset([g])] for g in gold],
        [f"{name}:{g}" for g in range(len(windows))],
    )


def test_rows_of_several_sources_concatenate_request_by_request() -> None:
    a = _rows([[0, 1, 0], [1, 0]], "a")
    b = _rows([[0, 0, 0, 0, 0, 0, 1]], "b")
    both = WindowRows.concat([a, b])
    assert both.X.shape == (12, 1) and both.group.tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 2]
    assert both.names == ["a:0", "a:1", "b:0"] and len(both.needs) == 3
    # each request's window keeps its own gold: fusion's order finds a's two and misses b's
    assert recall_at(both, None, k=5) == pytest.approx(2 / 3)
