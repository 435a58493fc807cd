"""``schemarouter train-ranking`` end to end, on a few tooltrain requests: the card describes
the rows the trees were fitted on, whatever an earlier run left in the work folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter.training.ranking import ranking_main
from schemarouter.training.ranking_rows import WindowRows, cached_rows, load_rows

#: a run of seconds: two requests per source, no composed or synthetic ones, no distractors
SMALL = [
    "--per-source",
    "2",
    "--composed",
    "0",
    "--distractors",
    "0",
    "--synthetic",
    "0",
    "--max-iter",
    "2",
    "--min-samples-leaf",
    "1",
    "--no-progress",
]


def _train(out: Path, work: Path, *options: str) -> dict[str, Any]:
    """Run train-ranking into ``out`` (rows kept in ``work``); its card."""
    argv = ["--out", str(out), "--work", str(work), "--dev", *SMALL, *options]
    assert ranking_main(argv) == 0
    card: dict[str, Any] = json.loads((out / "card.json").read_text(encoding="utf-8"))
    return card


@pytest.mark.shared_data
def test_the_card_counts_the_cached_rows_not_what_a_stopped_run_drew(
    shared_data: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    first = _train(tmp_path / "a", work, "--data", str(shared_data))
    drawn = first["data"]["requests"]
    assert drawn["single_requests"] + drawn["composed_requests"] == first["data"]["windows"]
    # a run with other options, stopped once it had drawn its requests (before its rows were
    # saved), left what it drew in the work folder, as earlier versions wrote it
    stopped = {**drawn, "single_requests": 330, "routes": 9999}
    (work / "drawn.json").write_text(json.dumps(stopped), encoding="utf-8")
    again = _train(tmp_path / "b", work, "--data", str(shared_data))
    # the rows come from the cache: the card says what they were drawn from
    assert again["data"]["windows"] == first["data"]["windows"]
    assert again["data"]["requests"] == drawn
    assert again["model_sha256"] == first["model_sha256"]


def _rows(n: int, about: dict[str, Any]) -> WindowRows:
    return WindowRows(
        np.arange(n, dtype=float).reshape(n, 1),
        np.zeros(n),
        np.arange(n, dtype=np.int64),
        np.full(n, 2),
        [f"r{i}" for i in range(n)],
        [[frozenset([f"r{i}"])] for i in range(n)],
        [f"t:{i}" for i in range(n)],
        about,
    )


def test_rows_saved_halfway_are_built_again_not_read_under_the_old_key(tmp_path: Path) -> None:
    path = tmp_path / "train.npz"
    first = cached_rows(path, "A", lambda: _rows(3, {"requests": 3}))
    assert load_rows(path).about == {"requests": 3} and first.about == {"requests": 3}

    def stopped() -> WindowRows:  # its arrays are written, then the save stops
        return _rows(5, {"not json": object()})

    with pytest.raises(TypeError):
        cached_rows(path, "B", stopped)
    # run A again: the arrays on disk are B's, so they are not A's rows any more
    again = cached_rows(path, "A", lambda: _rows(3, {"requests": 3}))
    assert again.X.shape == (3, 1) and again.about == {"requests": 3}
    assert load_rows(path).X.shape == (3, 1)
