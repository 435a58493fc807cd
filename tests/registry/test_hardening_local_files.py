"""Local documents under the same cap as fetched ones (issue #24, finding 19).

``catalog validate /dev/zero``, ``retrieve --openapi /dev/zero`` and a gateway config listing
``/dev/zero`` ended in a ``MemoryError`` traceback; a 1.2 GB file was read whole; a FIFO
blocked forever. Every local read now opens without blocking, reads only a regular file and
at most :data:`~schemarouter.registry.parsing.DEFAULT_MAX_DOCUMENT_BYTES`."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.cli import main
from schemarouter.errors import DocumentError
from schemarouter.index import HashingEncoder
from schemarouter.registry.catalog import load_catalog
from schemarouter.registry.parsing import DEFAULT_MAX_DOCUMENT_BYTES, load_document
from schemarouter.serve import load_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")


def _within(seconds: float, action: Callable[[], Any]) -> BaseException | None:
    """What ``action`` raised, or a failure where it did not return in ``seconds`` (a read
    of a FIFO without a writer never returns)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"still reading after {seconds} s")
    return outcome[0]


def _hostile_files(folder: Path) -> dict[str, Path]:
    fifo = folder / "pipe.yaml"
    os.mkfifo(fifo)
    link = folder / "zero.json"
    link.symlink_to("/dev/zero")
    big = folder / "big.json"  # sparse: costs no disk, reads as zeros
    with open(big, "wb") as handle:
        handle.truncate(DEFAULT_MAX_DOCUMENT_BYTES + 1)
    return {"device": Path("/dev/zero"), "fifo": fifo, "symlink": link, "big": big}


MESSAGES = {
    "device": "character device, not a regular file",
    "fifo": "FIFO (named pipe), not a regular file",
    "symlink": "character device, not a regular file",
    "big": f"more than the limit of {DEFAULT_MAX_DOCUMENT_BYTES}",
    "folder": "a folder, not a regular file",
}


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink", "big"])
def test_local_documents_are_capped_and_only_regular_files_are_read(
    kind: str, tmp_path: Path
) -> None:
    path = _hostile_files(tmp_path)[kind]
    readers: dict[str, Callable[[], Any]] = {
        "catalog": lambda: load_catalog(path),
        "openapi": lambda: load_document(path),
        "add_openapi": lambda: SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None
        ).add_openapi(str(path), provider="p"),
        "gateway config": lambda: load_config(path),
    }
    for name, reader in readers.items():
        error = _within(60, reader)
        assert isinstance(error, DocumentError), (name, error)
        assert MESSAGES[kind] in str(error) and str(path) in str(error), (name, str(error))


def test_a_folder_given_as_a_document_is_a_document_error(tmp_path: Path) -> None:
    error = _within(60, lambda: load_document(tmp_path))
    assert isinstance(error, DocumentError) and MESSAGES["folder"] in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "openapi: 3.1.0\ninfo: {title: Tiny, version: '1'}\npaths: {}\n",
        '{"openapi": "3.1.0", "info": {"title": "Tiny", "version": "1"}, "paths": {}}',
        "swagger: '2.0'",
        "info:\n  title: Tiny\n" * 400,  # past a file name's length
    ],
)
def test_document_text_given_as_a_path_is_told_to_be_passed_parsed(
    text: str, tmp_path: Path
) -> None:
    """Text read from a config service and passed as the document read "cannot read the
    file: File name too long" or "No such file or directory" (trial N §10)."""
    with pytest.raises(DocumentError) as caught:
        SchemaRouter(encoder=HashingEncoder(), embedding_cache=None).add_openapi(text)
    assert "looks like document text" in str(caught.value)
    assert "yaml.safe_load(text)" in str(caught.value.hint)
    # a file whose name starts so is still a file
    named = tmp_path / "{odd}.json"
    named.write_text(json.dumps({"openapi": "3.1.0", "info": {}, "paths": {}}), "utf-8")
    assert load_document(str(named)).data["openapi"] == "3.1.0"


def test_a_file_that_grows_while_it_is_read_stops_at_the_cap(tmp_path: Path) -> None:
    """The size is checked on the open file and again while reading: a smaller cap here
    stands for the default one."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"openapi": "3.0.3", "x": "y" * 5000}))
    with pytest.raises(DocumentError, match="more than the limit of 1000"):
        load_document(path, max_bytes=1000)


@pytest.mark.parametrize(
    "argv",
    [
        ["catalog", "validate", "{path}"],
        ["retrieve", "--openapi", "{path}", "weather"],
        ["retrieve", "--mcp-tools", "{path}", "weather"],
        ["serve", "--config", "{path}"],
    ],
)
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_the_cli_answers_a_device_or_a_fifo_with_one_line(
    argv: list[str], kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hostile_files(tmp_path)[kind]
    args = [a.replace("{path}", str(path)) for a in argv]
    codes: list[int] = []
    assert _within(60, lambda: codes.append(main(args))) is None
    err = capsys.readouterr().err
    assert codes == [1], err
    assert "Traceback" not in err and "[SR101]" in err and MESSAGES[kind] in err


def test_a_catalog_file_past_the_cap_is_told_to_become_a_folder(tmp_path: Path) -> None:
    big = tmp_path / "catalog.json"  # sparse: 100,000 routes in one file are about 105 MB
    with open(big, "wb") as handle:
        handle.truncate(DEFAULT_MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(DocumentError) as caught:
        load_catalog(big)
    assert "Split the catalog into several files in one folder" in caught.value.hint
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None)
    with pytest.raises(DocumentError, match="Split the catalog"):
        router.add_catalog(big)
    assert len(router.snapshot()) == 0  # nothing half-registered
    # an OpenAPI document past the cap keeps the general hint (it can be passed as data)
    with pytest.raises(DocumentError, match="load it yourself and pass the data"):
        load_document(big)
