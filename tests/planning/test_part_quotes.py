"""A quoted value belongs to the part of the request that writes it (trial 16: "roll back
checkout to revision 11, then resolve incident INC-4 with note 'rolled back checkout'" sent
``rollback_deployment(name="rolled back checkout", revision=11)`` to a real MCP server: the
rollback's one open text parameter took the note quoted in the other part).

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from deploys_serving import received, serving_deploys

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


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
