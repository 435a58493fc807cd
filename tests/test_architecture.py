"""The house stays one-way (docs/architecture.md): no room imports a room above it, except
the one documented lazy import; no two modules import each other in a loop; the engine
never imports ``training``; no module is past 600 lines (../shared/STYLE.md: split it).
Read from the installed package's source, nothing imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter.training.bench.imports import (
    EXCEPTIONS,
    circles,
    module_graph,
    package_root,
    room_graph,
    room_of,
)

GRAPH = module_graph(package_root())


def test_the_graph_reads_the_whole_package() -> None:
    rooms = {room_of(m) for m in GRAPH}
    assert {"registry/", "retrieval/", "planning/", "execution/", "index/", "router"} <= rooms
    assert "schemarouter.retrieval.fields" in GRAPH["schemarouter.retrieval.ranking"]


def test_no_room_imports_a_room_above_it_but_the_documented_one() -> None:
    assert circles(room_graph(GRAPH, exceptions=False)) == []
    assert circles(room_graph(GRAPH, inside_index=True)) == []
    # the exception is real (else drop it from EXCEPTIONS and the docs) and alone
    assert all(target in GRAPH[source] for source, target in EXCEPTIONS)
    for group in circles(room_graph(GRAPH)):  # a loop only through the exception
        assert {"retrieval/", "integrations/"} <= set(group)


def test_no_two_modules_import_each_other_in_a_loop() -> None:
    without = {m: {t for t in ts if (m, t) not in EXCEPTIONS} for m, ts in GRAPH.items()}
    assert circles(without) == []


def test_the_engine_never_imports_training() -> None:
    reaching = {
        m
        for m, targets in GRAPH.items()
        if room_of(m) != "training/" and any(room_of(t) == "training/" for t in targets)
    }
    assert reaching == set()


def test_the_drawn_graphs_in_the_docs_are_the_codes(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/architecture.md says its two graphs are what ``python -m
    schemarouter.training.bench.imports`` prints; they went stale after a move (trial D: no
    indexing or runtime rooms, 13 floors where there were 15). Each is checked whole."""
    from schemarouter.training.bench.imports import main

    doc = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()
    for argv in ([], ["--inside-index"]):
        assert main(argv) == 0
        drawn = capsys.readouterr().out.strip()
        assert drawn in doc, f"rerun `python -m schemarouter.training.bench.imports {argv}`"


def test_no_module_is_past_six_hundred_lines() -> None:
    """Past 600 lines a module is split (STYLE.md 7); helpers were told this test checked it
    before it did, and two modules had reached 609 and 606 lines at merges."""
    long = {
        str(path.relative_to(package_root())): n
        for path in package_root().rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
