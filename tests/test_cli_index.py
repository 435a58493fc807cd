"""``schemarouter index build`` and ``--index`` where an operator deploys (user trial H)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schemarouter.cli import main


def test_an_empty_index_or_out_path_is_refused(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--index "$INDEX_DIR"`` with the variable unset was ignored: exit 0, the whole index
    built in process, not a word."""
    for argv in (
        ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", ""],
        ["index", "build", str(tiny_catalog), "--out", "", "--quiet"],
        ["serve", "--catalog", str(tiny_catalog), "--index", ""],
    ):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert "an empty path (is the variable that names it unset?)" in err


def test_a_worker_count_below_one_is_a_usage_error(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--workers 0`` ended in a ValueError traceback (a user trial)."""
    with pytest.raises(SystemExit) as caught:
        main(["index", "build", str(tiny_catalog), "--out", str(tmp_path / "i"), "--workers", "0"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--workers: must be at least 1, got 0" in err and "Traceback" not in err


def test_milvus_flags_with_the_in_process_backend_are_named(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--rebuild`` and ``--uri`` were ignored without a word."""
    out = tmp_path / "index"
    argv = ["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]
    assert main([*argv, "--rebuild", "--uri", "milvus://h:1/n"]) == 0
    err = capsys.readouterr().err
    assert (
        "warning: --uri and --rebuild only apply to --backend milvus; ignored for the in-process "
        "index" in err
    )
    assert (out / "manifest.json").is_file()
    assert main(argv) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_killed_builds_leftovers_do_not_block_the_retry(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The retry was refused: "[SR300] the folder is not empty and holds no index"."""
    out = tmp_path / "index"
    (out / ".tmp-gen-78552c7aaee3").mkdir(parents=True)
    (out / ".tmp-gen-78552c7aaee3" / "routes.json").write_text("{")
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 0
    assert "indexed 2 routes" in capsys.readouterr().out
    assert not list(out.glob(".tmp-*"))
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    assert main(argv) == 0


def test_retrieve_sync_brings_a_saved_index_to_the_sources_given(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index saved from a catalog, then a retrieve with one more document: stale without
    a way out on the command line (a user trial); ``--sync`` embeds the new routes in memory
    and leaves the saved files as they were."""
    import json

    from helpers import openapi_document

    out = tmp_path / "index"
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 0
    extra = tmp_path / "tides.json"
    ok = {"200": {"description": "high and low tides"}}
    extra.write_text(
        json.dumps(
            openapi_document(
                "Tides", {"/tides": {"get": {"operationId": "getTides", "responses": ok}}}
            )
        )
    )
    saved = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    argv = ["retrieve", "high and low tides", "--catalog", str(tiny_catalog)]
    argv += ["--openapi", str(extra), "--index", str(out)]
    capsys.readouterr()
    assert main(argv) != 0
    refused = capsys.readouterr().err
    assert "tides/rest/get_tides" in refused  # named as the difference
    # the way out in the command line's terms, not the library's keyword (trial O §8)
    assert "pass --sync to bring it to these sources" in refused
    assert "IndexFolder(" not in refused and "sync=True" not in refused
    assert main([*argv, "--sync"]) == 0
    synced = capsys.readouterr()
    assert "tides/rest/get_tides" in synced.out
    # what the sync brought over, and that the saved files stay behind (trial T2, low)
    assert "note: the index at" in synced.err and "tides/rest/get_tides" in synced.err
    assert f"`schemarouter index build SOURCES --out {out}` saves it" in synced.err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == saved
    assert main([*argv[:-2], "--sync"]) == 2  # without --index
    assert "--sync goes with --index DIR" in capsys.readouterr().err


def test_a_cli_built_index_loads_where_python_registers_the_same_provider_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``index build --mcp-tools Weather__Desk=FILE`` slugified the provider's display name
    (``weather_desk``) where ``add_mcp_tools(..., provider="Weather__Desk")`` keeps it, so
    a replica registering the same listing was refused as stale (user trial O)."""
    import json

    from schemarouter import SchemaRouter

    listing = {
        "tools": [
            {
                "name": "forecast",
                "description": "Weather forecast for a city",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ]
    }
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(listing))
    out = tmp_path / "index"
    argv = ["index", "build", "--mcp-tools", f"Weather__Desk={tools}", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    capsys.readouterr()
    router = SchemaRouter(index=str(out), reranker=None)
    try:
        router.add_mcp_tools(listing, provider="Weather__Desk")
        route = router.snapshot().route("weather_desk/mcp/forecast")
        assert route.provider.display_name == "Weather__Desk"
        assert router.retrieve("weather forecast", k=1).route_ids == ("weather_desk/mcp/forecast",)
    finally:
        router.close()


@pytest.mark.parametrize(
    "uri",
    [
        "milvus+lte:///tmp/x.db",
        "mivlus://127.0.0.1:19530/routes",
        "milvus+http://127.0.0.1:19530/routes",
        "milvus:/oops",
        "milvus+lite:/tmp/x.db",
    ],
)
def test_a_misspelt_milvus_uri_is_an_argument_error(
    uri: str, tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/scale.md: "A URI of none of these forms is an ArgumentError naming it"; each of
    these was read as an index folder ("no index here (manifest.json is missing)", a slash
    lost) or, with index build, as a Milvus Lite path ("Check that the Milvus server is up")
    (user trial O)."""
    from schemarouter.errors import ArgumentError
    from schemarouter.index.build import IndexFolder, open_index
    from schemarouter.registry.registry import Registry

    for call in (lambda: open_index(uri, Registry().snapshot()), lambda: IndexFolder(uri)):
        with pytest.raises(ArgumentError) as caught:
            call()
        assert f"Milvus URI {uri!r}" in str(caught.value)
        assert "milvus+lite:///PATH/routes.db" in str(caught.value.hint)
    for argv in (
        ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", uri],
        ["index", "build", str(tiny_catalog), "--backend", "milvus", "--uri", uri, "--quiet"],
    ):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "[SR001] not a milvus:// URI" in err and uri in err
    assert not Path("/tmp/x.db").exists()


def test_an_existing_folder_written_like_a_uri_is_still_a_folder(
    tiny_catalog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder ``idx:v2/`` (a scheme-like name that exists) stays an index folder."""
    monkeypatch.chdir(tmp_path)
    assert main(["index", "build", str(tiny_catalog), "--out", "idx:v2/", "--quiet"]) == 0
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", "idx:v2/"]
    assert main(argv) == 0


def test_a_folder_that_does_not_exist_is_named_and_workers_has_help(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--index /no/such/dir`` said "no index here (manifest.json is missing)"; ``index
    build --help`` listed ``--workers`` without a word (user trial O)."""
    missing = tmp_path / "no" / "such"
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(missing)]
    assert main(argv) == 1
    assert "no index here: the folder does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["index", "build", "--help"])
    assert "threads for embedding" in capsys.readouterr().out


def test_an_index_of_another_encoder_is_not_sent_round_in_sync(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial Z: an index saved in Python with a team's own encoder (`train-encoder`), loaded
    by `retrieve --index DIR`, was refused with "... or pass --sync", and with --sync
    refused again with the same advice; the command line takes no other encoder."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    class TeamEncoder(HashingEncoder):
        @property
        def identity(self) -> str:
            return "team-encoder:0123456789ab:seq=128"

    out = tmp_path / "index"
    router = SchemaRouter(encoder=TeamEncoder(), reranker=None, abstention=None)
    try:
        router.add_catalog(tiny_catalog)
        router.build_index()
        router.index.save(out)
    finally:
        router.close()
    argv = ["retrieve", "anything", "--catalog", str(tiny_catalog), "--index", str(out)]
    for extra in ([], ["--sync"]):
        capsys.readouterr()
        assert main([*argv, *extra]) != 0
        said = capsys.readouterr().err
        assert "[SR301] the index was embedded with 'team-encoder" in said
        assert "pass --sync" not in said
        assert "SchemaRouter(index=DIR, encoder=FOLDER)" in said


def test_an_index_loaded_with_another_encoder_folder_is_not_sent_round_in_sync(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial U3: an index built with one encoder, loaded by `retrieve --index DIR --encoder
    FOLDER` with another (a `train-encoder` folder), was refused with "Rebuild it (`index
    build SOURCES --out DIR`), or pass --sync": --sync was refused again the same way, and
    the rebuild named no --encoder. It says to load it with the encoder it was built with."""
    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    from helpers import REPO

    out = tmp_path / "index"
    router = SchemaRouter(encoder=HashingEncoder(384), reranker=None, abstention=None)
    try:
        router.add_catalog(tiny_catalog)
        router.build_index()
        router.index.save(out)
    finally:
        router.close()
    encoder = str(REPO / "models" / "encoder")
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    for extra in ([], ["--sync"]):
        capsys.readouterr()
        assert main([*argv, "--encoder", encoder, *extra]) != 0
        said = capsys.readouterr().err
        assert "[SR301] the index was embedded with 'hashing-v1:dim=384', not " in said
        assert "pass --sync" not in said
        assert "Load it with the encoder it was built with" in said
        assert f"--out {out}`, with the same --encoder" in said


def test_a_trained_encoder_and_ranking_folder_serve_the_command_line(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial Z: a folder `train-encoder` or `train-ranking` wrote could be used from Python
    only: `index build` and `retrieve` took no --encoder, `retrieve` no --ranking. The
    shipped folders (what those commands write) serve here; a wrong folder is refused
    before anything is embedded, naming it."""
    from helpers import REPO

    encoder, ranking = REPO / "models" / "encoder", REPO / "models" / "ranking"
    out = tmp_path / "index"
    build = ["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]
    assert main([*build, "--encoder", str(encoder)]) == 0
    capsys.readouterr()
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    assert main([*argv, "--encoder", str(encoder), "--ranking", str(ranking), "--json"]) == 0
    assert "cod/rest/result" in capsys.readouterr().out
    missing = tmp_path / "no-such-encoder"
    for command in (build, argv):
        assert main([*command, "--encoder", str(missing)]) != 0
        assert str(missing) in capsys.readouterr().err


def test_index_build_shows_each_sources_registration_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial L: CI built the index of a few hundred documents with `index build`; one had an
    operationId two operations share, and its later route was registered as `..._2`
    without a word (the warnings the Python API returns were dropped), so labels and
    allow-lists written against the document's own ids missed it. Each warning now goes to
    stderr with its source, and a count closes them."""
    import json

    item = {"type": "object", "properties": {"id": {"type": "string"}}}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": item}}}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Inventory", "version": "1"},
        "servers": [{"url": "https://inventory.example.com"}],
        "paths": {
            "/items": {"get": {"operationId": "getItem", "summary": "List items", "responses": ok}},
            "/items/{id}": {
                "get": {
                    "operationId": "getItem",  # copy-pasted: the spec wants it unique
                    "summary": "One item by id",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": ok,
                }
            },
        },
    }
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps(document))
    argv = ["index", "build", "--openapi", str(path), "--out", str(tmp_path / "i"), "--quiet"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "indexed 2 routes" in out
    (line,) = [line for line in err.splitlines() if "operationId" in line]
    assert line.startswith(f"warning: {path}: paths./items/{{id}}.get.operationId")
    assert "registered as 'get_item_2'" in line
    assert "1 registration warning in 1 source" in err


def test_index_build_tells_many_warnings_a_few_of_each_kind_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial X2: a folder of 1,488 documents printed 6,013 warning lines at the end of a
    build, mostly the same few notices document after document, so the one that mattered
    (a numbered provider id) was lost among them. Past 50, each kind is shown three times
    and the rest counted with the sources they are in; --all-warnings prints every one."""
    import json

    ok = {"200": {"description": "ok"}}
    paths = {f"/items{i}": {"get": {"operationId": "getItem", "responses": ok}} for i in range(60)}
    documents = []
    for name in ("inventory", "warehouse"):
        document = {
            "openapi": "3.0.3",
            "info": {"title": name.title(), "version": "1"},
            "servers": [{"url": f"https://{name}.example.com"}],
            "paths": paths,
        }
        documents.append(tmp_path / f"{name}.json")
        documents[-1].write_text(json.dumps(document))
    sources = [arg for path in documents for arg in ("--openapi", str(path))]
    argv = ["index", "build", *sources, "--out", str(tmp_path / "i"), "--quiet"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    shared = [line for line in err.splitlines() if "operationId 'getItem'" in line]
    assert len(shared) == 3, err
    assert all(line.startswith(f"warning: {documents[0]}: paths./items") for line in shared)
    (rest,) = [line for line in err.splitlines() if "more like" in line]
    assert rest.startswith("warning: ... and 115 more like")
    assert rest.endswith("(in 2 sources)")
    assert "118 registration warnings in 2 sources" in err
    assert "--all-warnings" in err

    assert main([*argv, "--all-warnings"]) == 0
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if "operationId 'getItem'" in line]) == 118
    assert "more like" not in err and "--all-warnings" not in err


def test_an_index_refused_for_another_base_url_says_how_to_build_it_with_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial C (low): a service registers its document with ``add_openapi(FILE,
    base_url=URL)``; ``index build --openapi FILE`` has no base URL to give, so the index was
    refused with every route's "access path" changed and the hint "Rebuild it (`schemarouter
    index build`)", which builds the same index again. The hint now says how: a --config
    file's ``openapi`` entry with ``base_url``, and that index loads."""
    import json

    from schemarouter import SchemaRouter
    from schemarouter.errors import StaleIndexError

    answer = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "paths": {
            "/status": {
                "get": {
                    "operationId": "getStatus",
                    "summary": "Shop status",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": answer}},
                        }
                    },
                }
            }
        },
    }
    spec = tmp_path / "shop.json"
    spec.write_text(json.dumps(document))
    base_url = "http://127.0.0.1:9/v1"
    out = tmp_path / "index"
    assert main(["index", "build", "--openapi", str(spec), "--out", str(out), "--quiet"]) == 0

    def load() -> tuple[str, ...]:
        router = SchemaRouter(index=str(out), reranker=None)
        try:
            router.add_openapi(str(spec), base_url=base_url)
            return router.retrieve("shop status", k=1).route_ids
        finally:
            router.close()

    with pytest.raises(StaleIndexError) as refused:
        load()
    assert "shop/rest/get_status: access path" in str(refused.value)
    assert "--config" in refused.value.hint and "base_url" in refused.value.hint
    config = tmp_path / "shop.yaml"
    config.write_text(f"openapi:\n  - {{source: shop.json, base_url: '{base_url}'}}\n")
    assert main(["index", "build", "--config", str(config), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert load() == ("shop/rest/get_status",)


def _cli(*argv: str) -> Any:
    """``schemarouter ARGV`` in a fresh process (its stderr as a user's terminal gets it: no
    logging set up by pytest), as a ``subprocess.CompletedProcess``."""
    import subprocess
    import sys

    command = "import sys; from schemarouter.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", command, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_retrieve_says_on_stderr_that_an_older_index_turns_the_verdict_off(
    tiny_catalog: Path, tmp_path: Path
) -> None:
    """Upgrade trial V: an index an earlier release built (its default encoder was the
    packaged MiniLM; here the hashing encoder, which this installation also has, stands for
    it) loaded in `retrieve --index DIR` with the old encoder and no calibrated verdict: a
    request about the weather, flagged off-catalog against a rebuilt index, came back
    unflagged, and not a word on stderr (the library's warnings went to its NullHandler).
    The command shows the library's warnings on stderr."""

    from schemarouter import SchemaRouter
    from schemarouter.index import HashingEncoder

    out = tmp_path / "index"
    router = SchemaRouter(encoder=HashingEncoder(384), reranker=None, abstention=None)
    try:
        router.add_catalog(tiny_catalog)
        router.build_index(progress=False)
        router.index.save(out)
    finally:
        router.close()
    argv = ["retrieve", "weather forecast for Paris tomorrow", "--catalog", str(tiny_catalog)]
    run = _cli(*argv, "--index", str(out), "--no-progress")
    assert run.returncode == 0, run.stderr
    assert "flagged" not in run.stdout  # the verdict is off: the reason must be on stderr
    assert "warning: the index at" in run.stderr
    assert "embedded with 'hashing-v1:dim=384', not the default encoder" in run.stderr
    assert "no calibrated verdict on requests" in run.stderr
    assert "Traceback" not in run.stderr


def test_retrieve_does_not_offer_sync_for_an_index_another_version_wrote(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Upgrade trial V: an index of another version's format or settings is refused; --sync
    reads the same files and is refused the same way, so the command names a rebuild and the
    version, not --sync."""
    import json

    from schemarouter.index import store

    out = tmp_path / "index"
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["settings"]["hnsw_future_codec"] = "pq4"
    manifest["schemarouter_version"] = "9.0.0"
    manifest["checksum"] = store._manifest_checksum(manifest)
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    for extra in ([], ["--sync"]):
        assert main([*argv, *extra]) == 1
        said = capsys.readouterr().err
        assert "[SR301]" in said and "another version of SchemaRouter (9.0.0" in said
        assert f"schemarouter index build SOURCES --out {out}" in said
        assert "--sync" not in said and "Traceback" not in said


def test_an_encoder_folder_whose_model_was_replaced_builds_nothing_from_the_cache(
    tiny_catalog: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Upgrade trial V: a team's encoder folder got another model.onnx and kept its card
    (the card's sha256 is the encoder's identity, the embedding cache's key): `index build
    --encoder DIR` took every vector from the cache the old model had filled, "0 texts
    embedded", exit 0, and only `retrieve` found that the model was another. The model file
    is checked against its card before cached vectors are used."""
    import shutil

    from helpers import REPO

    monkeypatch.setenv("SCHEMAROUTER_CACHE", str(tmp_path / "cache"))
    encoder = tmp_path / "encoder"
    shutil.copytree(REPO / "models" / "encoder", encoder)
    build = ["index", "build", str(tiny_catalog), "--encoder", str(encoder), "--quiet"]
    assert main([*build, "--out", str(tmp_path / "before")]) == 0  # fills the cache
    shutil.copyfile(REPO / "models" / "reranker" / "model.onnx", encoder / "model.onnx")
    capsys.readouterr()
    assert main([*build, "--out", str(tmp_path / "after")]) == 1
    said = capsys.readouterr().err
    assert "[SR700] the encoder model's sha256 is " in said and "its card says" in said
    assert f"(at {encoder / 'model.onnx'})" in said
    assert not (tmp_path / "after" / "manifest.json").exists()


def test_index_build_says_a_documents_warning_once(tmp_path: Path) -> None:
    """The command prints each source's registration warnings itself; the library's
    warnings it shows on stderr (upgrade trial V) leave out the adapters' summary of the
    same warnings, which said each one a second time."""
    import json

    document = {
        "openapi": "3.0.0",
        "info": {"title": "things", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/things/{id}": {
                "get": {
                    "operationId": "getThing",
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {"name": "id", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    spec = tmp_path / "things.json"
    spec.write_text(json.dumps(document))
    argv = ["index", "build", "--openapi", str(spec), "--out", str(tmp_path / "index"), "--quiet"]
    run = _cli(*argv)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("declares 'id' in two locations") == 1, run.stderr


def test_a_missing_or_damaged_index_folder_names_the_command_that_builds_it(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial T2 (low): ``retrieve --index`` on a folder not built yet said "Build one with
    `schemarouter index build` or HybridIndex.save" (a Python call), and on a damaged one
    "Rebuild the index", with no command."""
    out = tmp_path / "index"
    argv = ["retrieve", "cell volume", "--catalog", str(tiny_catalog), "--index", str(out)]
    build = f"`schemarouter index build SOURCES --out {out}`"
    assert main(argv) != 0
    said = capsys.readouterr().err
    assert "no index here" in said and build in said, said
    assert "HybridIndex.save" not in said
    assert main(["index", "build", str(tiny_catalog), "--out", str(out), "--quiet"]) == 0
    manifest = out / "manifest.json"
    manifest.write_text(manifest.read_text()[:40])  # cut short
    capsys.readouterr()
    assert main(argv) != 0
    said = capsys.readouterr().err
    assert "[SR302]" in said and build in said, said


def test_index_build_without_out_names_the_configs_index_folder(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial T2 (low): ``index build --config gateway.yaml`` whose config says ``index: DIR``
    answered only "needs --out DIR", leaving the operator to work out the folder (relative to
    the config file, easy to get wrong from another folder)."""
    config = tmp_path / "deploy" / "gateway.yaml"
    config.parent.mkdir()
    config.write_text(f"catalogs: [{tiny_catalog}]\nindex: state/index\n")
    assert main(["index", "build", "--config", str(config), "--quiet"]) == 2
    said = capsys.readouterr().err
    folder = config.parent / "state" / "index"
    assert "needs --out DIR" in said and f"--out {folder} builds the one serve loads" in said
