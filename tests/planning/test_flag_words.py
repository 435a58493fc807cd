"""A flag is turned off in words only where the request says so once and plainly (trial 16,
R03: "deploy payments v2.3.1 for real" was sent to a real stdio MCP server as a dry run, the
``dry_run`` default; the trial kept it so rather than risk a double negation). Now "for real",
"not a dry run", "no dry run", "skip the dry run", "actually deploy" send ``dry_run=false``; a
double negation ("don't skip the dry run"), a question, a request that reads both ways or one
that does not mention a dry run never does.

The server is real: tests/mcp_servers/deploys_server.py over stdio, which logs each call
with the arguments it received (its ``dry_run`` defaults to ``true``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploys_serving import serving_deploys

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.planning.flag_words import stated_flag

SENT = {"service": "payments", "version": "v2.3.1", "namespace": "prod"}

#: Said once and plainly: the deploy is real.
TURNED_OFF = [
    "deploy payments v2.3.1 for real",
    "deploy payments v2.3.1, not a dry run",
    "deploy payments v2.3.1, no dry run",
    "deploy payments v2.3.1 with no dry run",
    "deploy payments v2.3.1 without a dry run",
    "deploy payments v2.3.1 without running a dry run",
    "skip the dry run and deploy payments v2.3.1",
    "deploy payments v2.3.1, skipping the dry run",
    "actually deploy payments v2.3.1",
    "really deploy payments v2.3.1",
    "deploy payments v2.3.1 with dry_run=false",
    "deploy payments v2.3.1, dry run off",
    "deploy payments v2.3.1 with the dry run disabled",
    "deploy payments v2.3.1, no dry-run",
    "deploy payments v2.3.1, this is not a dry run",
    "this isn't a dry run, deploy payments v2.3.1",
    "do not do a dry run, deploy payments v2.3.1",
    "deploy payments v2.3.1 for real, no dry run",
]
#: A double negation, a dry run asked, a question, both ways, or no word of it: never off.
KEPT = [
    "deploy payments v2.3.1",
    "do a dry run of deploying payments v2.3.1",
    "deploy payments v2.3.1 as a dry-run",
    "deploy payments v2.3.1, dry run first",
    "deploy payments v2.3.1 and don't skip the dry run",
    "deploy payments v2.3.1, never skip the dry run",
    "deploy payments v2.3.1 but do not skip the dry run",
    "deploy payments v2.3.1 without skipping the dry run",
    "deploy payments v2.3.1, we cannot skip the dry run",
    "deploy payments v2.3.1 but avoid skipping the dry run",
    "deploy payments v2.3.1 and only skip the dry run if told so",
    "don't deploy payments v2.3.1 without a dry run",
    "deploy payments v2.3.1, not for real",
    "don't actually deploy payments v2.3.1",
    "deploy payments v2.3.1 for real?",
    "do a dry run of payments v2.3.1, then deploy it for real",
    "deploy payments v2.3.1, no dry run, don't restart anything",
    "no, do a dry run of deploying payments v2.3.1",
    "actually, do a dry run of deploying payments v2.3.1",
    "deploy payments v2.3.1, dry run: yes",
    # "actually" / "really" before no verb of change, "for real" inside a phrase (the merge's
    # review: each turned the dry run off)
    "I really need a preview of deploying payments v2.3.1",
    "I actually want to see what deploying payments v2.3.1 would do",
    "deploy payments v2.3.1 to the canary for real users to try",
]


@pytest.fixture(scope="module")
def deploys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("deploys") / "calls.jsonl"
    with serving_deploys(log) as router:
        yield router, log


def received(router: SchemaRouter, log: Path, query: str) -> list[tuple[str, dict[str, Any]]]:
    """What the server was sent for ``query``; a plan refused for its gaps sends nothing."""
    log.write_text("", encoding="utf-8")
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    if plan.steps and not plan.missing_arguments:
        router.execute(plan, allow_effects=["write"], approve=lambda *_: True)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]


@pytest.mark.parametrize("query", TURNED_OFF)
def test_a_real_deploy_said_once_is_sent_for_real(
    deploys: tuple[SchemaRouter, Path], query: str
) -> None:
    assert received(*deploys, query) == [("deploy", {**SENT, "dry_run": False})]
    assert stated_flag("dry_run", query) is False


@pytest.mark.parametrize("query", KEPT)
def test_a_dry_run_is_never_turned_off_in_doubt(
    deploys: tuple[SchemaRouter, Path], query: str
) -> None:
    for tool, arguments in received(*deploys, query):
        assert (tool, arguments.get("dry_run")) == ("deploy", True), query
    assert stated_flag("dry_run", query) is not False
    assert stated_flag("dryRun", query) is not False


def test_a_request_that_says_nothing_of_it_keeps_the_default(
    deploys: tuple[SchemaRouter, Path],
) -> None:
    assert received(*deploys, "deploy payments v2.3.1") == [("deploy", {**SENT, "dry_run": True})]
    assert stated_flag("dry_run", "deploy payments v2.3.1") is None
    # "for real" names no flag but a simulation's: a force flag is not turned off by it
    assert stated_flag("force", "delete pod worker-3 for real") is None
    assert stated_flag("force", "delete pod worker-3 without force") is False
    assert stated_flag("force", "don't delete pod worker-3 without force") is None
