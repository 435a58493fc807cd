"""A user's stdio MCP server from tests/mcp_servers/ that logs each call (one JSON line per
call: its tool and arguments), registered beside Python callables, and what a request's
plan sent it: the runner the planning tests of the users' trials share (importable: pytest
puts tests/ on sys.path)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import SchemaRouterError

SERVERS = Path(__file__).parent / "mcp_servers"


@contextlib.contextmanager
def serving_mcp(
    script: str,
    provider: str,
    log_variable: str,
    log: Path,
    callables: Sequence[Callable[..., Any]] = (),
) -> Iterator[SchemaRouter]:
    """A router (the packaged encoder) over ``SERVERS / script``, trusted, registered as
    ``provider`` and told to log its calls to ``log`` (the environment variable
    ``log_variable``), with ``callables`` beside it (provider ``team``, writes); closed (the
    server stopped) at the end."""
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_mcp_server(
        [sys.executable, str(SERVERS / script)],
        provider=provider,
        trusted=True,
        env={log_variable: str(log)},
        timeout=60,
    )
    if callables:
        router.add_callable(list(callables), provider="team", effect="write")
    try:
        yield router
    finally:
        router.close()


def logged_calls(
    router: SchemaRouter,
    log: Path,
    query: str,
    max_calls: int = 3,
    *,
    refused: type[Exception] = SchemaRouterError,
) -> list[tuple[str, dict[str, Any]]]:
    """The calls (tool, arguments) logged for ``query``'s plan, every effect allowed and every
    change approved; a plan ``execute`` refuses (``refused``) sends nothing."""
    log.write_text("", encoding="utf-8")
    plan = router.plan(
        PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=max_calls
    )
    with contextlib.suppress(refused):
        router.execute(plan, allow_effects=list(Effect), approve=lambda *_: True)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]
