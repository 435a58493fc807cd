"""An update addressed by more than one id is no change either: "update issue 5 in
octocat/hello-world" on GitHub's ``PATCH /repos/{owner}/{repo}/issues/{issue_number}``, whose
JSON body (title, body, state) is optional, filled ``owner``, ``repo`` and ``issue_number``
and nothing else, and was sent: a PATCH with no body, an update of nothing the server answers
with success. The empty-update rule read an update's parameters as its changes but for an id
of the thing its name names, so ``owner`` and ``repo`` (required, no such id) made it no
update at all, and a route with a body was left to the body's rule, which only holds a
required body. Now the path parameters, and any required parameter named as an identifier,
address the entry; a JSON body is the change (``body.title|body.body|body.state``), and a
flag outside it (``?notify=true``) is none.

The server is real (loopback) and records every request it receives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from issues_api import UPDATE, serving_issues

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError

from helpers import WRITES
from servers.loopback import LoopbackServer

CHANGES = "body.title|body.body|body.state"
ALLOW: dict[str, Any] = {"allow_effects": WRITES, "approve": lambda *_: True}


@pytest.fixture(scope="module")
def github() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with serving_issues(notify=True) as served:
        yield served


def test_an_update_addressed_by_its_path_with_no_change_is_not_sent(
    github: tuple[SchemaRouter, LoopbackServer],
) -> None:
    router, server = github
    plan = router.plan(
        PlanRequest(query="update issue 5 in octocat/hello-world", allowed_effects=WRITES)
    )
    assert plan.route_ids == (UPDATE,)
    step = plan.steps[0]
    assert step.arguments == {"owner": "octocat", "repo": "hello-world", "issue_number": 5}
    assert plan.missing_arguments == {UPDATE: (CHANGES,)}
    said = [w for w in plan.warnings if "changes nothing" in w]
    assert said and "{'body': {'title': ...}}" in said[0], plan.warnings
    server.requests.clear()
    with pytest.raises(ParameterValidationError, match="changes nothing"):
        router.execute(plan, **ALLOW)
    # a flag outside the body is no change either; an empty body is none
    for given in ({"notify": True}, {"body": {}}):
        with pytest.raises(ParameterValidationError, match="changes nothing"):
            router.execute(plan.with_arguments(UPDATE, given), **ALLOW)
    assert server.requests == []
    # a property of the body given: sent, nothing missing any more
    given = plan.with_arguments(UPDATE, {"body": {"title": "Crash on start"}})
    assert given.missing_arguments == {}
    router.execute(given, **ALLOW)
    assert [(r.method, r.path, json.loads(r.body)) for r in server.requests] == [
        ("PATCH", "/repos/octocat/hello-world/issues/5", {"title": "Crash on start"})
    ]


@pytest.mark.parametrize(
    "query",
    [
        "Update issue 5 in octocat/hello-world: close it",
        # no route closes by name: the update whose state can be "closed" does (helper
        # `bodies`: the read ``GET .../issues/5`` was planned, ranked first)
        "close issue 5 in octocat/hello-world",
    ],
)
def test_an_update_the_request_fills_is_sent(
    github: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    router, server = github
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == (UPDATE,) and plan.missing_arguments == {}
    assert not [w for w in plan.warnings if "changes nothing" in w]
    server.requests.clear()
    router.execute(plan, **ALLOW)
    assert [(r.method, r.path, json.loads(r.body)) for r in server.requests] == [
        ("PATCH", "/repos/octocat/hello-world/issues/5", {"state": "closed"})
    ]
