"""A nightly folder with one malformed document (user trial W4): ``index build`` and
``serve`` refuse the whole run by default, naming it; ``--skip-invalid`` (the config's
``skip_invalid: true``) leaves it out with a warning naming it and why, and indexes or
serves the others. Before, there was no such choice."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.serve.config import GatewayConfig, SourceSpec
from schemarouter.serve.sources import build_router

from helpers import openapi_document


def nightly(folder: Path) -> Path:
    folder.mkdir()
    ok = {"200": {"description": "high and low tides"}}
    tides = openapi_document(
        "Tides", {"/tides": {"get": {"operationId": "getTides", "responses": ok}}}
    )
    (folder / "tides.json").write_text(json.dumps(tides))
    (folder / "broken.json").write_text('{"openapi": "3.0.3", "info": {')
    return folder


def test_index_build_skip_invalid_leaves_the_malformed_document_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = nightly(tmp_path / "night"), tmp_path / "index"
    argv = ["index", "build", "--openapi", str(folder), "--out", str(out), "--quiet"]
    assert main(argv) == 1
    assert "nothing was indexed" in capsys.readouterr().err and not out.exists()
    assert main([*argv, "--skip-invalid"]) == 0
    said = capsys.readouterr()
    assert "warning: left out (--skip-invalid): [SR101] invalid JSON" in said.err
    assert "broken.json" in said.err and "1 of 2 sources could not be registered" in said.err
    assert "indexed 1 route" in said.out
    assert main(["retrieve", "high and low tides", "--index", str(out)]) == 0
    assert "tides/rest/get_tides" in capsys.readouterr().out


def test_serve_skip_invalid_registers_the_others_and_logs_the_one_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = nightly(tmp_path / "night")
    config = GatewayConfig(openapi=(SourceSpec(source=str(folder)),))
    options = {"encoder": HashingEncoder(), "embedding_cache": None, "abstention": None}
    with pytest.raises(DocumentError, match=r"broken\.json"):
        build_router(config, **options)
    skipping = config.model_copy(update={"skip_invalid": True})
    with caplog.at_level(logging.WARNING, logger="schemarouter.serve.sources"):
        router = build_router(skipping, **options)
    try:
        assert sorted(router.snapshot().route_ids()) == ["tides/rest/get_tides"]
    finally:
        router.close()
    assert "skip_invalid:" in caplog.text and "broken.json left out: [SR101]" in caplog.text


def test_the_document_left_out_is_in_the_manifest_index_info_and_readyz(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, a source ``--skip-invalid`` left out was in that night's build log only: the
    folder, ``/readyz`` and the CLI said nothing of a night that lost a document (trial X4)."""
    from schemarouter.serve.gateway import Gateway
    from schemarouter.serve.generation import open_index
    from schemarouter.serve.probes import readiness

    folder, out = nightly(tmp_path / "night"), tmp_path / "index"
    argv = ["index", "build", "--openapi", str(folder), "--out", str(out), "--quiet"]
    assert main([*argv, "--skip-invalid"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    [entry] = manifest["left_out"]
    assert entry["source"] == str(folder / "broken.json") and entry["code"] == "SR101"
    assert entry["error"].startswith("[SR101] invalid JSON") and "broken.json" in entry["error"]
    capsys.readouterr()
    assert main(["index", "info", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"generation {manifest['generation']}" in said and "1 routes" in said
    assert "left out (--skip-invalid): 1" in said
    assert f"{folder / 'broken.json'}: [SR101] invalid JSON" in said
    assert main(["index", "info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["left_out"] == manifest["left_out"]
    config = GatewayConfig.model_validate(
        {"index": str(out), "search": {"rerank": False}, "models": {"ranking": "none"}}
    )
    gateway = Gateway.from_config(config)
    try:
        open_index(gateway)
        ready, body = readiness(gateway)
    finally:
        gateway.close()
    assert ready and body["index"]["left_out"] == 1
    assert "broken" not in json.dumps(body)  # counts only: the probes name nothing
    (folder / "broken.json").unlink()
    assert main(argv) == 0  # the next night, nothing left out
    assert "left_out" not in json.loads((out / "manifest.json").read_text())
    capsys.readouterr()
    assert main(["index", "info", str(out)]) == 0
    assert "left out (--skip-invalid): 0" in capsys.readouterr().out


def test_a_source_left_out_keeps_no_credential_of_its_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A document fetched with a key in its URL's query, or a service with a user and
    password in its URL, that ``--skip-invalid`` left out was written into the manifest as
    given, and ``index info`` printed the key and the password (trial V3; the error beside it
    already named the URL without them)."""
    from tests.servers.loopback import LoopbackServer, Request, Response

    def broken(request: Request) -> Response:
        body = b'{"openapi": "3.0.3", "info": {'
        return Response(200, body, {"Content-Type": "application/json"})

    key, password = "sk-live-9f8e7d6c5b4a3f2e", "hunter2-Passw0rd"
    folder, out = nightly(tmp_path / "night"), tmp_path / "index"
    with LoopbackServer(broken) as server:
        host = server.base_url.split("://", 1)[1]
        argv = ["index", "build", "--openapi", str(folder / "tides.json"), "--quiet"]
        argv += ["--openapi", f"shop={server.base_url}/openapi.json?api_key={key}"]
        argv += ["--optimade", f"mp=http://lab:{password}@{host}/v1", "--out", str(out)]
        assert main([*argv, "--skip-invalid"]) == 0
    capsys.readouterr()
    written = (out / "manifest.json").read_text()
    sources = [entry["source"] for entry in json.loads(written)["left_out"]]
    assert sources == [f"{server.base_url}/openapi.json", f"http://{host}/v1"], sources
    for argv in (["index", "info", str(out)], ["index", "info", str(out), "--json"]):
        assert main(argv) == 0
        said = capsys.readouterr().out
        assert f"{server.base_url}/openapi.json" in said
        assert key not in said and password not in said, said
    assert key not in written and password not in written


def test_serve_logs_a_source_left_out_without_the_key_in_its_url(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``serve --skip-invalid`` logged "skip_invalid: http://.../openapi.json?api_key=sk-...
    left out" (trial V3)."""
    from tests.servers.loopback import LoopbackServer, Request, Response

    def broken(request: Request) -> Response:
        return Response(
            200, b'{"openapi": "3.0.3", "info": {', {"Content-Type": "application/json"}
        )

    key = "sk-live-9f8e7d6c5b4a3f2e"
    folder = nightly(tmp_path / "night")
    options = {"encoder": HashingEncoder(), "embedding_cache": None, "abstention": None}
    with LoopbackServer(broken) as server:
        url = f"{server.base_url}/openapi.json"
        sources = (
            SourceSpec(source=str(folder / "tides.json")),
            SourceSpec(source=f"{url}?api_key={key}"),
        )
        config = GatewayConfig(openapi=sources, skip_invalid=True)
        with caplog.at_level(logging.WARNING, logger="schemarouter.serve.sources"):
            build_router(config, **options).close()
    assert f"skip_invalid: {url} left out: [SR101]" in caplog.text, caplog.text
    assert key not in caplog.text
