"""The end-to-end example the README points to runs, offline, and shows what it promises."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "execute_local.py"


def test_execute_local_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "plan: materials_project/rest/summary_search" in out
    assert "[160.0] GPa -> [160000000000.0] Pa  [pressure]" in out
    assert "provenance: calculated, materials_project; license CC-BY-4.0" in out
    assert "_fields=material_id%2Cformula_pretty%2Cband_gap%2Cbulk_modulus" in out
    assert "demo-key-not-a-secret" not in out
