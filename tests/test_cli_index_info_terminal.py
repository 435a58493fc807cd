"""``schemarouter index info`` reads a manifest someone else wrote (a nightly build, a
folder shared between replicas): what it prints goes to an operator's terminal (trial Y1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter.index.store import _manifest_checksum

from helpers import openapi_document


def _built(tmp_path: Path, broken_name: str) -> Path:
    folder, out = tmp_path / "night", tmp_path / "index"
    folder.mkdir()
    ok = {"200": {"description": "high and low tides"}}
    tides = openapi_document(
        "Tides", {"/tides": {"get": {"operationId": "getTides", "responses": ok}}}
    )
    (folder / "tides.json").write_text(json.dumps(tides))
    (folder / broken_name).write_text('{"openapi": "3.0.3", "info": {')
    argv = ["index", "build", "--openapi", str(folder), "--out", str(out), "--quiet"]
    assert main([*argv, "--skip-invalid"]) == 0
    return out


def test_a_left_out_file_name_with_an_escape_sequence_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _built(tmp_path, "\x1b[2J\x1b]0;ok\x07all-clear.json")
    capsys.readouterr()
    assert main(["index", "info", str(out)]) == 0
    said = capsys.readouterr().out
    assert "\x1b" not in said and "\x07" not in said
    assert "\\x1b[2J\\x1b]0;ok\\x07all-clear.json: [SR101] invalid JSON" in said


@pytest.mark.parametrize(
    "change",
    [
        {"left_out": "night/broken.json"},
        {"left_out": {"source": "night/broken.json"}},
        {"left_out": ["night/broken.json"]},
        {"counts": [1]},
    ],
)
def test_a_manifest_no_build_writes_is_refused_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object]
) -> None:
    out = _built(tmp_path, "broken.json")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.update(change)
    manifest["checksum"] = _manifest_checksum(manifest)  # as anyone who writes the folder can
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    for extra in ([], ["--json"]):
        assert main(["index", "info", str(out), *extra]) == 1
        said = capsys.readouterr()
        assert "left_out are not what index build writes" in said.err
        assert "Traceback" not in said.err and said.out == ""


def test_the_json_output_escapes_what_a_terminal_acts_on_and_keeps_korean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A C1 control (U+009B, CSI on some terminals), a bidi override (U+202E) or a tag
    character passed through ``--json`` raw, where the text output escaped them (trial Z2)."""
    name = "\u009b2J\u202egnp.\U000e0041야간-백업.json"
    out = _built(tmp_path, name)
    capsys.readouterr()
    assert main(["index", "info", str(out), "--json"]) == 0
    said = capsys.readouterr().out
    assert all(c.isprintable() or c == "\n" for c in said), ascii(said)
    assert "야간-백업.json" in said  # Korean stays readable
    (entry,) = json.loads(said)["left_out"]
    assert name in entry["source"]  # the same JSON: a reader gets the name back
