"""``schemarouter train-ranking`` end to end, on a few tooltrain requests: the card describes
the rows the trees were fitted on, whatever an earlier run left in the work folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter import indexing as indexing_module
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
]


def _train(out: Path, work: Path, *options: str) -> dict[str, Any]:
    """Run train-ranking into ``out`` (rows kept in ``work``); its card."""
    argv = ["--out", str(out), "--work", str(work), "--dev", *SMALL, "--no-progress", *options]
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


@pytest.mark.parametrize(
    "layout, says",
    [
        (None, "no shared data folder at {data} (at --data). Pass --data"),
        ([], "{data} lacks tooltrain (the training requests), openapi-permissive (for"),
        (
            ["tooltrain"],
            "{data} lacks openapi-permissive (for --synthetic and --dev write-intent), "
            "mcp/livemcp_tools.json (for --synthetic and --dev write-intent) (at --data)",
        ),
        (["tooltrain", "openapi-permissive", "mcp"], "lacks mcp/livemcp_tools.json (for"),
    ],
)
def test_missing_shared_data_is_named_in_one_line_before_any_rows_are_built(
    layout: list[str] | None, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    if layout is not None:
        data.mkdir()
        for part in layout:
            (data / part).mkdir()
    work, out = tmp_path / "work", tmp_path / "m"
    argv = ["--out", str(out), "--work", str(work), "--data", str(data), "--synthetic", "50"]
    assert ranking_main([*argv, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: [SR001] ") and err.count("\n") == 1  # one line, no traceback
    assert says.format(data=data) in err
    if layout:  # a folder with the training requests: the flags that need the rest are named
        assert "or run without them: --synthetic 0 and --dev without write-intent" in err
    assert not work.exists() and not out.exists()  # refused before any work


def test_a_shared_data_variable_pointing_nowhere_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCHEMAROUTER_SHARED_DATA", str(tmp_path / "nowhere"))
    argv = ["--out", str(tmp_path / "m"), "--work", str(tmp_path / "w"), "--synthetic", "0"]
    assert ranking_main([*argv, "--dev", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: [SR001] no shared data folder at {tmp_path / 'nowhere'} "
        "(at SCHEMAROUTER_SHARED_DATA). Pass --data (the shared data folder, with tooltrain/, "
        "openapi-permissive/ and mcp/livemcp_tools.json) or set SCHEMAROUTER_SHARED_DATA\n"
    )


@pytest.mark.shared_data
def test_without_development_sets_the_card_says_nothing_was_measured(
    shared_data: Path, tmp_path: Path
) -> None:
    card = _train(tmp_path / "m", tmp_path / "work", "--data", str(shared_data))
    assert card["development"] == {}
    assert card["router_default"] == {
        "on": False,
        "why": "no development set was measured (--dev named none), so nothing shows it beats "
        "fusion",
    }
    assert "does not beat fusion" not in json.dumps(card)


def test_on_and_off_together_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--out", str(tmp_path / "m"), "--on", "beats everything", "--off", "loses on TMDB"]
    with pytest.raises(SystemExit) as stopped:
        ranking_main(argv)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        last == "schemarouter train-ranking: error: argument --off: not allowed with argument --on"
    )
    assert not (tmp_path / "m").exists()


@pytest.mark.shared_data
def test_the_card_says_its_development_figures_leave_the_action_weight_out(
    shared_data: Path, tmp_path: Path
) -> None:
    work, data = tmp_path / "work", ["--data", str(shared_data), "--blend", "0.6"]
    cards = [
        _train(tmp_path / f"m{w}", work, *data, "--dev", "bundled-dev", "--action-weight", w)
        for w in ("0", "1000")
    ]
    # rows-level figures: the same for any action weight, and the card says how they were read
    assert cards[0]["development"] == cards[1]["development"]
    assert cards[1]["development"]["bundled-dev"]["requests"] > 0
    assert cards[1]["settings"]["action_weight"] == 1000
    measured = cards[1]["development_measured"]
    assert "without settings.action_weight" in measured and "settings.blend" in measured
    assert "bench.ranking_blend --model FOLDER" in measured


@pytest.mark.shared_data
@pytest.mark.parametrize("progress", [False, True])
def test_no_progress_silences_the_bars_of_the_routers_it_builds(
    progress: bool,
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the training router's few dozen routes count as a large catalog, and the logger is at
    # INFO (as train-ranking sets it): a router left to itself draws its index's bars
    monkeypatch.setattr(indexing_module, "PROGRESS_MIN_ROUTES", 2)
    caplog.set_level(logging.INFO, logger="schemarouter")
    argv = ["--out", str(tmp_path / "m"), "--work", str(tmp_path / "w"), "--dev", *SMALL]
    assert (
        ranking_main([*argv, "--data", str(shared_data), *([] if progress else ["--no-progress"])])
        == 0
    )
    err = capsys.readouterr().err
    assert ("documents" in err) is progress  # the router's index build
    assert ("windows train" in err) is progress  # the rows' own bar
