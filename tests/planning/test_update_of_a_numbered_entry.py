"""An update of an issue by its number is an update of one entry, through an MCP tool or a
Python callable as through OpenAPI.

``update_issue(owner, repo, issue_number, title=None, body=None, state=None)`` asked "update
issue 5 in octocat/hello-world" left ``issue_number`` open (no path template places it after
``/issues``, and ``issue_number`` is no ``<thing>_id``; the plan warned that no step takes
issue id 5), and was no update of one entry to the empty-update rule: ``owner`` and ``repo``
read as required settings. So once the number was given (``Plan.with_arguments``), an update
of nothing was sent. Now a parameter that numbers a thing's entries takes the id the request
gives after that thing, and is the entry's id; a required parameter that takes an identifier
or a repository's owner or name (by its value kind) addresses the entry. The update of
nothing is held back as on the OpenAPI route, and "close issue 5 in octocat/hello-world"
sends ``state="closed"``.

The callable is real and records its calls; the MCP server is real
(tests/mcp_servers/issues_server.py over stdio) and logs each call it receives."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

from helpers import WRITES

SERVER = Path(__file__).parents[1] / "mcp_servers" / "issues_server.py"
ALLOW: dict[str, Any] = {"allow_effects": WRITES, "approve": lambda *_: True}
ADDRESS = {"owner": "octocat", "repo": "hello-world", "issue_number": 5}
NOTHING = {"title": None, "body": None, "state": None}
CALLS: list[tuple[str, dict[str, Any]]] = []


def update_issue(
    owner: str,
    repo: str,
    issue_number: int,
    title: str | None = None,
    body: str | None = None,
    state: Literal["open", "closed"] | None = None,
) -> dict[str, Any]:
    """Update an issue: its title, body or state."""
    arguments = {"title": title, "body": body, "state": state}
    CALLS.append(("update_issue", {"owner": owner, "repo": repo, "issue_number": issue_number,
                                   **arguments}))  # fmt: skip
    return {"number": issue_number}


def get_issue(owner: str, repo: str, issue_number: int) -> dict[str, Any]:
    """One issue of a repository by its number."""
    CALLS.append(("get_issue", {"owner": owner, "repo": repo, "issue_number": issue_number}))
    return {"number": issue_number}


@pytest.fixture(scope="module")
def callables() -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([update_issue], provider="gh", effect="write")
    router.add_callable([get_issue], provider="gh", effect="read")
    return router


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("issues") / "calls.jsonl"
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_mcp_server(
        [sys.executable, str(SERVER)],
        provider="gh",
        trusted=True,
        env={"ISSUES_LOG": str(log)},
        timeout=60,
    )
    try:
        yield router, log
    finally:
        router.close()


def _called(router: SchemaRouter, plan: Any) -> list[tuple[str, dict[str, Any]]]:
    CALLS.clear()
    router.execute(plan, **ALLOW)
    return list(CALLS)


def _received(router: SchemaRouter, log: Path, plan: Any) -> list[tuple[str, dict[str, Any]]]:
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    lines = log.read_text(encoding="utf-8").splitlines()
    return [(c["tool"], c["arguments"]) for c in map(json.loads, lines)]


def _held(router: SchemaRouter, route: str) -> Any:
    """The plan of "update issue 5 in octocat/hello-world": the address bound, the changes
    missing and said, and execution refused, even with the number given again by hand."""
    plan = router.plan(
        PlanRequest(query="update issue 5 in octocat/hello-world", allowed_effects=WRITES)
    )
    assert plan.route_ids == (route,)
    assert plan.steps[0].arguments == ADDRESS
    assert plan.missing_arguments == {route: ("title|body|state",)}
    assert any("changes nothing" in w for w in plan.warnings), plan.warnings
    for given in (plan, plan.with_arguments(route, {"issue_number": 5})):
        with pytest.raises(ParameterValidationError, match="changes nothing"):
            router.execute(given, **ALLOW)
    return plan


def test_a_callable_update_of_nothing_is_held(callables: SchemaRouter) -> None:
    CALLS.clear()
    plan = _held(callables, "gh/python/update_issue")
    assert CALLS == []
    given = plan.with_arguments(0, {"title": "Fix crash"})
    assert _called(callables, given) == [
        ("update_issue", {**ADDRESS, **NOTHING, "title": "Fix crash"})
    ]


def test_an_mcp_update_of_nothing_is_held(mcp: tuple[SchemaRouter, Path]) -> None:
    router, log = mcp
    log.write_text("", encoding="utf-8")
    plan = _held(router, "gh/mcp/update_issue")
    assert log.read_text(encoding="utf-8") == ""
    given = plan.with_arguments(0, {"state": "closed"})
    assert _received(router, log, given) == [
        ("update_issue", {**ADDRESS, **NOTHING, "state": "closed"})
    ]


CHANGES = [
    ("close issue 5 in octocat/hello-world", {"state": "closed"}),
    ("update issue 5 in octocat/hello-world, set title to Fix crash", {"title": "Fix crash"}),
    ("set the title of issue 5 in octocat/hello-world to Fix crash", {"title": "Fix crash"}),
    ("update issue 5 in octocat/hello-world, change its state to closed", {"state": "closed"}),
    ("rename issue 5 in octocat/hello-world to 'Fix crash'", {"title": "Fix crash"}),
]


@pytest.mark.parametrize(("query", "changes"), CHANGES)
def test_a_callable_update_sends_what_the_request_sets(
    callables: SchemaRouter, query: str, changes: dict[str, str]
) -> None:
    plan = callables.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, (plan.steps, plan.warnings)
    assert _called(callables, plan) == [("update_issue", {**ADDRESS, **NOTHING, **changes})]


@pytest.mark.parametrize(("query", "changes"), CHANGES)
def test_an_mcp_update_sends_what_the_request_sets(
    mcp: tuple[SchemaRouter, Path], query: str, changes: dict[str, str]
) -> None:
    router, log = mcp
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.missing_arguments == {}, (plan.steps, plan.warnings)
    assert _received(router, log, plan) == [("update_issue", {**ADDRESS, **NOTHING, **changes})]


def test_a_read_takes_the_number_too(callables: SchemaRouter) -> None:
    plan = callables.plan(PlanRequest(query="show issue 5 in octocat/hello-world"))
    assert plan.route_ids == ("gh/python/get_issue",) and plan.missing_arguments == {}
    assert _called(callables, plan) == [("get_issue", ADDRESS)]
