"""The training commands' shared scaffold: the command line recorded once, settings from
flags, the card written whole."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemarouter.training.command import (
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
