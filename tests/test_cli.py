"""The schemarouter command: version, catalog validate / show / semantics / schema."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from schemarouter import __version__
from schemarouter.cli import main
from schemarouter.registry.catalog import catalog_json_schema
from schemarouter.retrieval.rerank import Reranker

REPO = Path(__file__).resolve().parents[1]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"schemarouter {__version__}"


def test_console_script_is_installed() -> None:
    out = subprocess.run(
        [Path(sys.executable).parent / "schemarouter", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert __version__ in out.stdout


def test_validate_ok_and_error(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "validate", str(tiny_catalog)]) == 0
    assert capsys.readouterr().out.strip() == "ok: 2 providers, 2 routes, 5 output fields"
    bad = tmp_path / "bad.yaml"
    bad.write_text(tiny_catalog.read_text("utf-8").replace("unit: eV,", "unit: eVz,"), "utf-8")
    assert main(["catalog", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: [SR103] unknown unit 'eVz'")
    assert str(bad) in err and "output_fields[1]" in err


def test_show_reads_like_a_summary(tiny_catalog: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "show", str(tiny_catalog)]) == 0
    out = capsys.readouterr().out
    assert "2 providers, 2 routes, 5 output fields, 3 semantic ids" in out
    assert "Materials Project  [matproj]  calculated data, license CC-BY-4.0" in out
    assert "GET /materials/summary/  matproj/rest/summary" in out
    assert re.search(r"k_vrh +mechanical.bulk_modulus +GPa -> Pa\n", out)
    assert "MP_API_KEY (header X-API-KEY)" in out


def test_semantics_markdown(tiny_catalog: Path, tmp_path: Path) -> None:
    out = tmp_path / "SEMANTICS.md"
    assert main(["catalog", "semantics", str(tiny_catalog), "--out", str(out)]) == 0
    text = out.read_text("utf-8")
    assert "| `mechanical.bulk_modulus` |" in text
    assert "`matproj/rest/summary` : `k_vrh` | GPa -> Pa | calculated |" in text


def test_an_out_path_that_cannot_be_written_is_one_line(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing folder or a folder given as --out printed a traceback (a user trial)."""
    for argv in (
        ["catalog", "semantics", str(tiny_catalog), "--out", str(tmp_path / "no" / "S.md")],
        ["catalog", "schema", "--out", str(tmp_path)],
    ):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: [SR001] cannot write ") and "Traceback" not in err
        assert err.count("\n") == 1


def test_committed_catalog_schema_is_current() -> None:
    committed = json.loads(
        (REPO / "engine" / "registry" / "catalog.schema.json").read_text("utf-8")
    )
    assert committed == catalog_json_schema(), (
        "engine/registry/catalog.schema.json is stale: run "
        "`schemarouter catalog schema --out engine/registry/catalog.schema.json`"
    )


def test_catalog_schema_validates_the_tiny_catalog(tiny_catalog: Path) -> None:
    import jsonschema

    from schemarouter.registry.catalog import read_structured_file

    jsonschema.validate(read_structured_file(tiny_catalog), catalog_json_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schemarouter_catalog": 1, "extra": 1}, catalog_json_schema())


def test_retrieve_prints_a_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retrieve", "band gap of GaN from the Materials Project", "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert " 1. materials_project/" in out
    assert "license CC-BY-4.0" in out and "band_gap  eV  functional: PBE" in out
    assert main(["retrieve", "band gap and bulk modulus of GaN", "-k", "3"]) == 0
    out = capsys.readouterr().out
    shipped = Reranker.shipped()
    if shipped is not None and not shipped.off_by_default:  # both scores: the reranker's order
        assert "reranked)" in out and re.search(r"fused \d\.\d{3}, rerank [+-]\d", out)
    else:
        assert "fusion order)" in out
        assert "reranking is off" not in out  # a fact of the process, logged once, not printed
    assert main(["retrieve", "molecular weight of aspirin", "-k", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 2 and len(data["candidates"]) == 2
    assert all("route_id" in c and "output_fields" in c for c in data["candidates"])


def test_retrieve_chooses_the_reranker(capsys: pytest.CaptureFixture[str]) -> None:
    if Reranker.shipped() is None:
        pytest.skip("no shipped reranker in this checkout")
    query = "band gap and bulk modulus of GaN"
    assert main(["retrieve", query, "-k", "3", "--reranker", "shipped"]) == 0
    out = capsys.readouterr().out
    assert "reranked)" in out and re.search(r"fused \d\.\d{3}, rerank [+-]\d", out)
    assert main(["retrieve", query, "-k", "3", "--reranker", "none"]) == 0
    out = capsys.readouterr().out
    assert "fusion order)" in out and "the shipped reranker" not in out
    assert main(["retrieve", query, "-k", "3", "--reranker", "/nonexistent/model"]) != 0
    assert "/nonexistent/model" in capsys.readouterr().err


def test_an_empty_answer_promises_no_routes(
    tiny_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty request printed "flagged: ...; the best routes follow", then none (a user
    trial)."""
    assert main(["retrieve", "", "--catalog", str(tiny_catalog)]) == 0
    out = capsys.readouterr().out
    assert "flagged: the request is empty" in out
    assert "routes follow" not in out


def test_show_names_a_fields_own_license(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A field licensed apart from its provider (CC-BY-NC-4.0 under a CC-BY-4.0 provider)
    showed only the provider's license (a user trial)."""
    doc = yaml.safe_load(tiny_catalog.read_text("utf-8"))
    field = doc["providers"][0]["access"][0]["endpoints"][0]["output_fields"][1]
    field["license"] = "CC-BY-NC-4.0"
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    assert main(["catalog", "show", str(path)]) == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if field["name"] in line]
    assert any("license CC-BY-NC-4.0" in line for line in shown)


def test_index_build_then_retrieve_from_it(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "index"
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "indexed 2 routes" in said
    # its time counts the registering too (trial X2: 1,275 s said of a 29 min build whose
    # first 7.5 min registered 1,488 documents)
    assert re.search(r"[\d.]+ s registering 1 source \+ [\d.]+ s indexing, peak RSS", said)
    assert (out / "manifest.json").is_file()
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"][0]["route_id"] == "cod/rest/result"
    # the index was built from this catalog: another catalog is refused as stale
    other = tmp_path / "other.yaml"
    other.write_text(tiny_catalog.read_text("utf-8").replace("Summary properties", "Other"))
    assert main(["retrieve", "cell volume", "--catalog", str(other), "--index", str(out)]) == 1
    assert "SR301" in capsys.readouterr().err


def test_index_build_refuses_a_folder_it_cannot_write_before_building(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under a file: a NotADirectoryError traceback after the whole build (a user trial)."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    for out in (a_file / "index", a_file):
        assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 1
        err = capsys.readouterr().err
        assert "SR300" in err and "Traceback" not in err
    # --no-progress draws no bars (it was read only as --quiet)
    out = tmp_path / "index"
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--no-progress"]) == 0
    assert "it/s" not in capsys.readouterr().err
    # a file given as the index to read: said to be a file, not "manifest.json is missing"
    assert main(["retrieve", "x", "--catalog", str(tiny_catalog), "--index", str(a_file)]) == 1
    assert "an index is a folder, and this is a file" in capsys.readouterr().err


def test_retrieve_says_the_ranking_stage_ordered_the_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Trial U3 (low): ``retrieve --ranking DIR`` printed "fusion order" though the learned
    ranking stage had ordered the list."""
    ranking = Path(__file__).resolve().parents[1] / "models" / "ranking"
    if not (ranking / "card.json").is_file():
        pytest.skip("no shipped ranking model in this checkout")
    query = "band gap and bulk modulus of GaN"
    args = ["retrieve", query, "-k", "3", "--reranker", "none"]
    assert main([*args, "--ranking", str(ranking)]) == 0
    assert "ranking stage)" in capsys.readouterr().out
    assert main([*args, "--ranking", "none"]) == 0
    assert "fusion order)" in capsys.readouterr().out
