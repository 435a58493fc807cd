"""An on-call team's stdio MCP server (tests/mcp_servers/deploys_server.py, which logs each
call; user trial 16) registered as ``oncall``, and what a request's plan sent it: the runner
of the planning tests of its deploys, scales, rollbacks and silences (importable: pytest puts
tests/ on sys.path)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp_serving import logged_calls, serving_mcp

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError

#: Every effect allowed, every change approved.
ALLOW: dict[str, Any] = {
    "allow_effects": ["read", "write", "destructive"],
    "approve": lambda *_: True,
}


@contextlib.contextmanager
def serving_deploys(log: Path) -> Iterator[SchemaRouter]:
    """A router over the server started to log its calls to ``log``; closed at the end."""
    with serving_mcp("deploys_server.py", "oncall", "DEPLOYS_LOG", log) as router:
        yield router


def received(
    router: SchemaRouter, log: Path, query: str, max_calls: int = 3
) -> list[tuple[str, dict[str, Any]]]:
    """The calls (tool, arguments) the server got for ``query``'s plan, every effect allowed
    and approved; a plan refused for its gaps sends nothing."""
    return logged_calls(router, log, query, max_calls, refused=ParameterValidationError)
