"""A quoted value belongs to the part of the request that writes it (trial 16: "roll back
checkout to revision 11, then resolve incident INC-4 with note 'rolled back checkout'" sent
``rollback_deployment(name="rolled back checkout", revision=11)`` to a real MCP server: the
rollback's one open text parameter took the note quoted in the other part).

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError

SERVER = Path(__file__).parents[1] / "mcp_servers" / "deploys_server.py"
ALLOW: dict[str, Any] = {
    "allow_effects": ["read", "write", "destructive"],
    "approve": lambda *_: True,
}


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="oncall",
        trusted=True,
        env={"DEPLOYS_LOG": str(log)},
        timeout=60,
    )
    try:
        yield router, log
    finally:
        router.close()


def received(router: SchemaRouter, log: Path, query: str) -> list[tuple[str, dict[str, Any]]]:
    log.write_text("", encoding="utf-8")
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    with contextlib.suppress(ParameterValidationError):  # a refused plan sends nothing
        router.execute(plan, **ALLOW)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]


def test_a_quote_of_another_part_fills_no_parameter(deploys: tuple[SchemaRouter, Path]) -> None:
    router, log = deploys
    query = (
        "roll back checkout to revision 11, "
        "then resolve incident INC-4 with note 'rolled back checkout'"
    )
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    rollback = next(s for s in plan.steps if s.route_id == "oncall/mcp/rollback_deployment")
    assert rollback.arguments.get("name") != "rolled back checkout", rollback.arguments
    # the name is the word the rollback's verb is written before (tests/planning/
    # test_operator_verbs.py), the note the other part's
    assert received(router, log, query) == [
        ("rollback_deployment", {"name": "checkout", "revision": 11, "namespace": "prod"}),
        ("resolve_incident", {"id": "INC-4", "note": "rolled back checkout"}),
    ]


def test_a_quote_in_its_own_part_is_still_taken(deploys: tuple[SchemaRouter, Path]) -> None:
    router, log = deploys
    query = "resolve incident INC-4 with note 'bad push reverted', then list pods in prod"
    sent = received(router, log, query)
    assert ("resolve_incident", {"id": "INC-4", "note": "bad push reverted"}) in sent
