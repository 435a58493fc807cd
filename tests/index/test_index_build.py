"""Batch rebuild from catalog files, the catalog generator, and import hygiene."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.index import HashingEncoder, HybridIndex, build_index
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.registry import Registry

INDEX_DIR = Path(__file__).resolve().parents[2] / "index"


def test_build_index_from_catalog_files(tiny_catalog: Path, tmp_path: Path) -> None:
    report = build_index(
        [tiny_catalog],
        tmp_path / "out",
        progress=True,
        workers=2,
        encoder=HashingEncoder(),
        cache=tmp_path / "cache",
    )
    assert report.routes >= 2 and report.documents > report.routes
    assert report.texts_embedded > 0 and report.texts_from_cache == 0
    assert (tmp_path / "out" / "manifest.json").exists()
    registry = Registry()
    registry.register(load_catalog(tiny_catalog))
    index = HybridIndex.load(tmp_path / "out", registry.snapshot())
    assert index.registry_fingerprint == report.registry_fingerprint
    assert index.search("band gap", k=1)[0].route_id.startswith("matproj/")
    again = build_index(
        [tiny_catalog],
        tmp_path / "out",
        progress=False,
        encoder=HashingEncoder(),
        cache=tmp_path / "cache",
    )
    assert again.texts_embedded == 0 and again.texts_from_cache == report.texts_embedded
    with pytest.raises(ValueError):
        build_index([tiny_catalog], tmp_path / "x", workers=0, encoder=HashingEncoder())


@pytest.mark.shared_data
def test_synthetic_catalogs_are_deterministic_and_loadable(
    shared_data: Path, tmp_path: Path
) -> None:
    from schemarouter.training.datasets.recombined import (
        catalog_document,
        load_pool,
        synth_providers,
    )

    pool = load_pool(shared_data)
    first = synth_providers(300, seed=3, pool=pool)
    second = synth_providers(300, seed=3, pool=pool)
    routes = [r for p in first for r in p.routes()]
    assert len(routes) == 300
    assert [r.fingerprint for r in routes] == [r.fingerprint for p in second for r in p.routes()]
    other = [r.fingerprint for p in synth_providers(300, seed=4, pool=pool) for r in p.routes()]
    assert other != [r.fingerprint for r in routes]
    assert len({r.provider.display_name for r in routes}) == len(first)
    file = tmp_path / "synth.json"
    file.write_text(json.dumps(catalog_document(first, name="t")), encoding="utf-8")
    registration = load_catalog(file)
    assert len(registration.routes) == 300
    assert "lorem" not in file.read_text(encoding="utf-8").lower()


def test_a_generated_catalog_leaves_out_a_source_key_it_cannot_address(tmp_path: Path) -> None:
    """G1 answers with keys such as "Chg." (a dot at the end): the 10,000-route catalog of
    ``schemarouter eval`` carried its path 'data.X.*.Chg.', which load_catalog refuses as a
    typo, and the eval stopped there."""
    from schemarouter.contracts import (
        AccessKind,
        AccessPath,
        Endpoint,
        Operation,
        OutputField,
        Provider,
    )
    from schemarouter.training.datasets.recombined import SynthProvider, catalog_document

    endpoint = Endpoint(
        id="quotes",
        name="quotes",
        operation=Operation(tool="quotes"),
        description="Futures market quotes",
        output_fields=(
            OutputField(name="Last", path="data.Quotes.*.Last"),
            OutputField(name="Chg.", path="data.Quotes.*.Chg."),
        ),
    )
    provider = SynthProvider(
        Provider(id="eurex", display_name="Eurex Quotes"),
        AccessPath(id="mcp", kind=AccessKind.MCP),
        [endpoint],
    )
    file = tmp_path / "synth.json"
    file.write_text(json.dumps(catalog_document([provider], name="t")), encoding="utf-8")
    (route,) = load_catalog(file).routes
    assert [item.path for item in route.endpoint.output_fields] == ["data.Quotes.*.Last"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_index_never_imports_the_router_or_training() -> None:
    for path in INDEX_DIR.rglob("*.py"):
        for name in _imports(path):
            assert not name.startswith(("schemarouter.router", "schemarouter.training")), path


def test_index_modules_load_no_heavy_library_at_import() -> None:
    modules = [
        ".".join(("schemarouter.index", *p.relative_to(INDEX_DIR).with_suffix("").parts))
        for p in INDEX_DIR.rglob("*.py")
        if p.stem[0] != "_"
    ]
    heavy = ("torch", "transformers", "sentence_transformers", "faiss", "onnxruntime", "rank_bm25")
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
