"""Quiet by default: the library logs and never prints (issue #25).

A failed call, a document warning and a registration print nothing to stderr unless the
user configures logging (the package's top logger has a ``NullHandler``, so logging's last
resort never fires); a document's warnings are collected on its registration and logged
once per document, not once per operation.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder

_DOC: dict[str, Any] = {
    "openapi": "3.0.0",
    "info": {"title": "things", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],  # the discard port: nothing listens
    "paths": {
        f"/things{i}/{{id}}": {
            "get": {
                "operationId": f"getThing{i}",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "id", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
        for i in range(3)
    },
}

_SCRIPT = """
import json, sys
{prelude}
from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
doc = json.loads(sys.argv[1])
router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
change = router.add_openapi(doc, provider="things")
assert len(change.warnings) == 3, change.warnings
try:
    router.call("things/rest/get_thing0", {{"id": "1"}})
except Exception as exc:
    assert type(exc).__name__ == "InvocationError", exc
router.retrieve("thing 7", k=2)
"""


def _run(prelude: str = "") -> subprocess.CompletedProcess[str]:
    import json

    return subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(prelude=prelude), json.dumps(_DOC)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_nothing_reaches_stderr_unless_logging_is_configured() -> None:
    quiet = _run()
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    # the same run with logging configured shows the records the library did emit
    loud = _run(
        textwrap.dedent("""
        import logging
        logging.basicConfig(level=logging.WARNING, format="%(name)s %(message)s")
        """)
    )
    assert loud.returncode == 0, loud.stderr
    assert "get_thing0 failed" in loud.stderr
    assert loud.stderr.count("in two locations") == 1  # one record for the document


def test_document_warnings_are_on_the_registration_once_per_document(
    caplog: pytest.LogCaptureFixture,
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    with caplog.at_level(logging.WARNING, logger="schemarouter"):
        change = router.add_openapi(_DOC, provider="things")
    assert change.warnings == tuple(
        f"paths./things{i}/{{id}}.get: declares 'id' in two locations (path and query); "
        "kept the one in path"
        for i in range(3)
    )
    records = [r for r in caplog.records if r.name.startswith("schemarouter.adapters")]
    assert len(records) == 1
    assert "3 warnings" in records[0].getMessage()
