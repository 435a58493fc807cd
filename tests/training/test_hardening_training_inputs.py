"""``train-encoder --triplets`` and ``train-reranker --pairs`` on files that are not what they
say (issue #24, finding 18): each a one-line ``[SR101]`` error naming the file and the line,
never a Python traceback."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter.errors import DocumentError
from schemarouter.training.encoder_pairs import load_triplets
from schemarouter.training.pairs import load_pairs

TRIPLET = {"query": "q", "positive": "p", "negative": "n", "source": "s"}
PAIR = {"query": "q", "positive": "p", "negatives": ["a", "b"], "source": "s"}
MANIFEST = json.dumps({"manifest": {"config": {}}})
DEEP = "[" * 100_000 + "]" * 100_000

#: name -> (triplets file text, pairs file text, what the error says)
CASES = {
    "empty": ("", "", "is empty"),
    "blank lines": ("\n\n  \n", "\n\n", "is empty"),
    "garbage": ("\x00\x01garbage{", "garbage{", "not valid JSON"),
    "not utf-8": (b"\xff\xfe\x00".decode("latin-1"), b"\xff\xfe".decode("latin-1"), "not UTF-8"),
    "deep": (f"{MANIFEST}\n{DEEP}\n", f"{DEEP}\n", "nests deeper than"),
    "a list": (f"{MANIFEST}\n[1, 2]\n", "[1, 2]\n", "must be a JSON object, not list"),
    "wrong keys": (
        f"{MANIFEST}\n" + json.dumps({"anchor": "q", "positive": "p"}) + "\n",
        json.dumps({"q": "x", "positive": "p"}) + "\n",
        "has the wrong keys (missing",
    ),
    "extra key": (
        f"{MANIFEST}\n" + json.dumps({**TRIPLET, "label": 1}) + "\n",
        json.dumps({**PAIR, "label": 1}) + "\n",
        "unknown label",
    ),
    "wrong type": (
        f"{MANIFEST}\n" + json.dumps({**TRIPLET, "query": 5}) + "\n",
        json.dumps({**PAIR, "negatives": "a b"}) + "\n",
        "must be",
    ),
}


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    data = text.encode("latin-1") if name.startswith("raw") else text.encode("utf-8")
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_triplets_and_pairs_files_are_document_errors_with_the_line(
    case: str, tmp_path: Path
) -> None:
    triplets_text, pairs_text, message = CASES[case]
    raw = case == "not utf-8"
    triplets = _write(tmp_path, ("raw-" if raw else "") + "triplets.jsonl", triplets_text)
    pairs = _write(tmp_path, ("raw-" if raw else "") + "pairs.jsonl", pairs_text)
    for load, path in ((load_triplets, triplets), (load_pairs, pairs)):
        with pytest.raises(DocumentError, match=re.escape(message)) as caught:
            load(path)
        assert str(path) in str(caught.value)


def test_the_line_and_field_are_named(tmp_path: Path) -> None:
    good = json.dumps(TRIPLET)
    path = tmp_path / "t.jsonl"
    path.write_text(f"{MANIFEST}\n{good}\n\n{good}\n" + json.dumps({**TRIPLET, "negative": []}))
    with pytest.raises(DocumentError, match="field 'negative' must be str, not list") as caught:
        load_triplets(path)
    assert caught.value.where == f"{path}:5 negative"


def test_a_triplets_file_without_its_manifest_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(TRIPLET) + "\n")
    with pytest.raises(DocumentError, match=r'first line of a triplets file is \{"manifest"'):
        load_triplets(path)


def test_a_pairs_manifest_that_is_no_object_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(PAIR) + "\n")
    Path(f"{path}.manifest.json").write_text(DEEP)
    with pytest.raises(DocumentError, match="nests deeper"):
        load_pairs(path)
    Path(f"{path}.manifest.json").write_text("[]")
    with pytest.raises(DocumentError, match="must be a JSON object, not list"):
        load_pairs(path)


def test_good_files_still_load(tmp_path: Path) -> None:
    triplets = tmp_path / "t.jsonl"
    triplets.write_text(f"{MANIFEST}\n" + json.dumps(TRIPLET) + "\n")
    loaded, manifest = load_triplets(triplets)
    assert loaded[0].query == "q" and manifest == {"config": {}}
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(json.dumps({**PAIR, "fused": [0.5, -1, 0.0], "rank": 3}) + "\n")
    groups, manifest = load_pairs(pairs)
    assert groups[0].negatives == ["a", "b"] and groups[0].fused == [0.5, -1, 0.0]
    assert manifest == {}


@pytest.mark.parametrize("case", ["empty", "garbage", "wrong keys", "deep"])
@pytest.mark.parametrize("command", ["train-encoder", "train-reranker"])
def test_the_training_commands_answer_a_bad_file_with_one_line(
    command: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    triplets_text, pairs_text, message = CASES[case]
    if command == "train-encoder":
        path = _write(tmp_path, "triplets.jsonl", triplets_text)
        flag = ["--triplets", str(path), "--data", str(tmp_path / "no-data")]
    else:
        path = _write(tmp_path, "pairs.jsonl", pairs_text)
        flag = ["--pairs", str(path), "--no-progress"]
    argv = [command, *flag, "--out", str(tmp_path / "model"), "--work", str(tmp_path / "w")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("error: [SR101]") and message in err
    assert str(path) in err


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_given_as_training_data_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for load in (load_triplets, load_pairs):
        with pytest.raises(DocumentError, match="FIFO"):
            load(fifo)
