"""An on-call team's stdio MCP server (tests/mcp_servers/deploys_server.py, which logs each
call; user trial 16) registered as ``oncall``, and what a request's plan sent it: the runner
of the planning tests of its deploys, scales, rollbacks and silences (importable: pytest puts
tests/ on sys.path)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError

SERVER = Path(__file__).parent / "mcp_servers" / "deploys_server.py"
#: Every effect allowed, every change approved.
ALLOW: dict[str, Any] = {
    "allow_effects": ["read", "write", "destructive"],
    "approve": lambda *_: True,
}


@contextlib.contextmanager
def serving_deploys(log: Path) -> Iterator[SchemaRouter]:
    """A router (the packaged encoder) over the server started to log its calls to ``log``;
    closed (the server stopped) at the end."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="oncall",
        trusted=True,
        env={"DEPLOYS_LOG": str(log)},
        timeout=60,
    )
    try:
        yield router
    finally:
        router.close()


def received(
    router: SchemaRouter, log: Path, query: str, max_calls: int = 3
) -> list[tuple[str, dict[str, Any]]]:
    """The calls (tool, arguments) the server got for ``query``'s plan, every effect allowed
    and approved; a plan refused for its gaps sends nothing."""
    log.write_text("", encoding="utf-8")
    asked = PlanRequest(query=query, allowed_effects=frozenset(Effect))
    plan = router.plan(asked, max_calls=max_calls)
    with contextlib.suppress(ParameterValidationError):
        router.execute(plan, **ALLOW)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]
