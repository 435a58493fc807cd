"""The training commands' shared scaffold: the command line recorded once, settings from
flags, the card written whole."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemarouter.errors import ArgumentError
from schemarouter.training.command import (
    RunOptions,
    add_budget_arguments,
    add_output_arguments,
    add_run_arguments,
    add_settings_arguments,
    run_command,
    settings_from_args,
    write_card,
)


def _arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    add_output_arguments(parser, out_help="model folder", work_help="work folder")
    add_run_arguments(parser, seed=3)
    return parser


def test_the_command_line_names_the_subcommand_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # through the console script: sys.argv holds the subcommand, the CLI hands on the rest
    monkeypatch.setattr(sys, "argv", ["schemarouter", "train-x", "--out", "m", "--seed", "4"])
    seen: list[argparse.Namespace] = []

    def run(args: argparse.Namespace, out: object) -> int:
        seen.append(args)
        return 0

    assert run_command("train-x", "d", _arguments, run, ["--out", "m", "--seed", "4"]) == 0
    assert seen[-1].command == "schemarouter train-x --out m --seed 4"
    # as `python -m schemarouter.training.X --out m`: the process's own arguments
    monkeypatch.setattr(sys, "argv", ["x.py", "--out", "m"])
    run_command("train-x", "d", _arguments, run, None)
    assert seen[-1].command == "schemarouter train-x --out m"
    assert (seen[-1].seed, seen[-1].resume, seen[-1].progress) == (3, True, True)


def test_run_options_read_the_run_flags(tmp_path: Path) -> None:
    parser = _arguments(argparse.ArgumentParser())
    add_budget_arguments(parser, checkpoint_steps=50)
    said: list[str] = []
    args = parser.parse_args(["--out", "m"])
    run = RunOptions.from_args(args, tmp_path, said.append)
    assert run == RunOptions(work=tmp_path, checkpoint_steps=50, log=said.append)
    assert (run.resume, run.max_minutes, run.progress) == (True, None, True)
    flags = ["--out", "m", "--max-minutes", "1.5", "--checkpoint-steps", "7"]
    args = parser.parse_args([*flags, "--no-resume", "--no-progress"])
    run = RunOptions.from_args(args, tmp_path, said.append)
    assert (run.resume, run.max_minutes, run.checkpoint_steps, run.progress) == (
        False,
        1.5,
        7,
        False,
    )
    run.log("x")
    assert said == ["x"]


@dataclass
class _Settings:
    seed: int = 0
    lr: float = 0.1
    layers: int = 2


def test_settings_take_the_flags_named_as_their_fields() -> None:
    args = argparse.Namespace(seed=7, lr=0.5, out="m")
    assert settings_from_args(_Settings, args) == _Settings(seed=7, lr=0.5, layers=2)


def test_the_card_is_written_whole(tmp_path: Path) -> None:
    write_card(tmp_path, {"name": "n", "text": "é"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.json"]
    text = (tmp_path / "card.json").read_text(encoding="utf-8")
    assert text == '{\n "name": "n",\n "text": "é"\n}\n'
    write_card(tmp_path, {"name": "m"}, indent=2)
    assert json.loads((tmp_path / "card.json").read_text(encoding="utf-8")) == {"name": "m"}


def test_settings_flags_take_their_type_and_default_from_the_settings() -> None:
    @dataclass
    class Knobs:
        max_leaf_nodes: int = 15
        learning_rate: float = 0.05
        head: str = "cls"

    parser = argparse.ArgumentParser()
    add_settings_arguments(parser, Knobs(), "learning_rate max_leaf_nodes")
    assert [a.option_strings for a in parser._actions[1:]] == [
        ["--learning-rate"],
        ["--max-leaf-nodes"],
    ]
    assert vars(parser.parse_args([])) == {"learning_rate": 0.05, "max_leaf_nodes": 15}
    parsed = parser.parse_args(["--max-leaf-nodes", "7", "--learning-rate", "1"])
    assert parsed.max_leaf_nodes == 7 and parsed.learning_rate == 1.0
    assert isinstance(parsed.learning_rate, float)
    with pytest.raises(SystemExit):
        parser.parse_args(["--max-leaf-nodes", "7.5"])


@pytest.mark.parametrize(
    "flag, value, says, setting",
    [
        ("--blend", "0", "in (0, 1]", {"blend": 0.0}),
        ("--blend", "1.5", "in (0, 1]", {"blend": 1.5}),
        ("--blend", "half", "in (0, 1]", {"blend": -1.0}),
        ("--action-weight", "-1", ">= 0", {"action_weight": -1.0}),
        ("--action-weight", "many", ">= 0", {"action_weight": -0.5}),
        ("--action-weight", "nan", ">= 0", {"action_weight": float("nan")}),
    ],
)
def test_train_ranking_refuses_a_blend_or_action_weight_out_of_range(
    flag: str,
    value: str,
    says: str,
    setting: dict[str, float],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from schemarouter.training.ranking import RankingSettings, ranking_main

    with pytest.raises(SystemExit) as stopped:
        ranking_main(["--out", str(tmp_path / "m"), flag, value])
    assert stopped.value.code == 2
    assert f"is not a number {says}" in capsys.readouterr().err
    with pytest.raises(ValueError, match=f"{next(iter(setting))} must be"):
        RankingSettings(**setting)


@pytest.mark.parametrize(
    "flag, value, says",
    [
        ("--window", "0", "'0' is not a whole number >= 5"),
        ("--window", "1", "'1' is not a whole number >= 5"),
        ("--window", "4", "'4' is not a whole number >= 5"),
        ("--max-iter", "0", "'0' is not a whole number >= 1"),
        ("--learning-rate", "0", "'0' is not a number > 0"),
        ("--learning-rate", "inf", "'inf' is not a number > 0"),
        ("--max-leaf-nodes", "1", "'1' is not a whole number >= 2"),
        ("--min-samples-leaf", "0", "'0' is not a whole number >= 1"),
        ("--seed", "-1", "'-1' is not a whole number in [0, 2**32)"),
        ("--synthetic", "-5", "'-5' is not a whole number >= 0"),
        ("--per-source", "-1", "'-1' is not a whole number >= 0"),
        ("--composed", "-2", "'-2' is not a whole number >= 0"),
        ("--distractors", "-1", "'-1' is not a whole number >= 0"),
        ("--distractors", "many", "'many' is not a whole number >= 0"),
        ("--dev", "nonsense", "invalid choice: 'nonsense'"),
        ("--dev", "tooltrain-train", "invalid choice: 'tooltrain-train'"),
    ],
)
def test_train_ranking_refuses_counts_and_tree_settings_out_of_range_before_any_work(
    flag: str, value: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from schemarouter.training.ranking import ranking_main

    out = tmp_path / "m"
    with pytest.raises(SystemExit) as stopped:
        ranking_main(["--out", str(out), "--work", str(tmp_path / "w"), flag, value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]  # argparse's usage, then one line
    assert last.startswith(f"schemarouter train-ranking: error: argument {flag}: {says}")
    assert not out.exists() and not (tmp_path / "w").exists()  # nothing built or written


@pytest.mark.parametrize(
    "setting",
    [
        {"window": 1},
        {"max_iter": 0},
        {"learning_rate": 0.0},
        {"max_leaf_nodes": 1},
        {"min_samples_leaf": 0},
        {"l2_regularization": -0.5},
        {"seed": -1},
    ],
)
def test_ranking_settings_refuse_values_the_trees_cannot_use(setting: dict[str, float]) -> None:
    from schemarouter.training.ranking import RankingSettings

    with pytest.raises(ValueError, match=f"{next(iter(setting))} must be"):
        RankingSettings(**setting)


def test_train_ranking_takes_the_smallest_valid_values(tmp_path: Path) -> None:
    from schemarouter.training.ranking import add_arguments

    parser = add_arguments(argparse.ArgumentParser())
    smallest = "--window 5 --max-iter 1 --max-leaf-nodes 2 --min-samples-leaf 1 --synthetic 0"
    args = parser.parse_args(["--out", "m", *smallest.split(), "--per-source", "0", "--dev"])
    assert (args.window, args.max_iter, args.max_leaf_nodes, args.synthetic) == (5, 1, 2, 0)
    assert args.dev == [] and isinstance(args.window, int)
    args = parser.parse_args(["--out", "m", "--dev", "bundled-dev", "write-intent"])
    assert args.dev == ["bundled-dev", "write-intent"]


@pytest.mark.parametrize(
    "error, says",
    [
        (FileNotFoundError("no tooltrain corpus at /x/tooltrain: pass --data"), "no tooltrain"),
        (ArgumentError("no shared data folder at /x", where="--data"), "[SR001] no shared data"),
    ],
)
def test_a_missing_or_bad_input_is_one_line_not_a_traceback(
    error: Exception, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: argparse.Namespace, out: object) -> int:
        raise error

    assert run_command("train-x", "d", _arguments, run, ["--out", "m"]) == 1
    assert capsys.readouterr().err == f"error: {error}\n" and says in str(error)


def test_a_card_names_the_installed_schemarouter_version() -> None:
    """Trial Z: every card written by train-reranker/-encoder said "schemarouter": "not
    installed", looking up a distribution named schemarouter (it is schemarouter-engine)."""
    from importlib.metadata import version

    from schemarouter.training.command import versions

    assert versions()["schemarouter"] == version("schemarouter-engine")
