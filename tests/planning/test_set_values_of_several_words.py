"""A change takes a value of several unquoted words, and one set in a later clause.

"update issue 5 in octocat/hello-world, set title to Fix crash" on GitHub's ``PATCH
/repos/{owner}/{repo}/issues/{issue_number}`` (optional JSON body: title, body, state) was
held back as an update of nothing: the verb-of-setting match that opened at "update" ran past
the comma to "title to", was passed over as another clause's, and hid the one opening at
"set"; and a value of one unquoted word was all a setting took ("to Fix crash" gave none,
"set the title of issue 5 in octocat/hello-world to Fix crash" too), while "rename ... to Fix
crash" sent ``title="Fix"``. Now the clause after the last join is read from its own verb,
and an unquoted value runs to the end of its clause (a stop, a comma, "and", "then",
"please") where nothing else can be meant: it opens with a capital, and holds no id, number,
path, quote or other "<property> to"; a name's words each start with a capital. The server
is real (loopback) and records every request it receives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from issues_api import UPDATE, serving_issues

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import ParameterValidationError

from helpers import WRITES, hashing_router, ok, openapi_document, path_id
from servers.loopback import LoopbackServer

ALLOW: dict[str, Any] = {"allow_effects": WRITES, "approve": lambda *_: True}


@pytest.fixture(scope="module")
def github() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with serving_issues() as served:
        yield served


def _sent(router: SchemaRouter, server: LoopbackServer, query: str) -> list[Any]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids == (UPDATE,)
    server.requests.clear()
    if plan.missing_arguments:
        assert any(UPDATE in w and "changes nothing" in w for w in plan.warnings), plan.warnings
        with pytest.raises(ParameterValidationError):
            router.execute(plan, **ALLOW)
    else:
        router.execute(plan, **ALLOW)
    return [(r.method, r.path, json.loads(r.body)) for r in server.requests]


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("update issue 5 in octocat/hello-world, set title to Fix crash", {"title": "Fix crash"}),
        ("set the title of issue 5 in octocat/hello-world to Fix crash", {"title": "Fix crash"}),
        ("rename issue 5 in octocat/hello-world to Fix crash", {"title": "Fix crash"}),
        ("rename issue 5 in octocat/hello-world to 'Fix crash'", {"title": "Fix crash"}),
        ("update issue 5 in octocat/hello-world, change its state to closed", {"state": "closed"}),
        (
            "update issue 5 in octocat/hello-world and set its title to Fix crash, thanks",
            {"title": "Fix crash"},
        ),
        (
            "update issue 5 in octocat/hello-world, set title to Fix crash and body to See logs",
            {"title": "Fix crash", "body": "See logs"},
        ),
        (
            "update issue 5 in octocat/hello-world: set the title to Fix crash on login then "
            "close it",
            {"title": "Fix crash on login", "state": "closed"},
        ),
    ],
)
def test_a_value_of_several_words_is_sent(
    github: tuple[SchemaRouter, LoopbackServer], query: str, body: dict[str, str]
) -> None:
    router, server = github
    assert _sent(router, server, query) == [("PATCH", "/repos/octocat/hello-world/issues/5", body)]


@pytest.mark.parametrize(
    "query",
    [
        # a lower-case first word may open a phrase ("to her new number"): no value
        "update issue 5 in octocat/hello-world, set title to fix crash",
        # the run holds something else the request means (the repository)
        "set the title of issue 5 to Fix crash in octocat/hello-world",
        # two values named
        "update issue 5 in octocat/hello-world, set the title to Fix crash, not Crash",
        "don't set the title of issue 5 in octocat/hello-world to Fix crash",
    ],
)
def test_no_value_is_guessed_and_the_empty_update_is_held(
    github: tuple[SchemaRouter, LoopbackServer], query: str
) -> None:
    router, server = github
    assert _sent(router, server, query) == []


_TEXT = {"type": "string"}
_NAMED = {"name": _TEXT, "notes": _TEXT}
STAFF = openapi_document(
    "Staff",
    {
        "/employees/{employee_id}": {
            "parameters": path_id("employee_id"),
            "patch": {
                "operationId": "update_employee",
                "summary": "Update an employee's details",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"properties": _NAMED}}},
                },
                "responses": ok({"type": "object"}),
            },
        }
    },
)


@pytest.mark.parametrize(
    ("query", "body"),
    [
        ("set the name of employee E-4 to Ada King", {"name": "Ada King"}),
        ("set the notes of employee E-4 to Works remotely, thanks", {"notes": "Works remotely"}),
        # a name's words each start with a capital: "Ada in the directory" is none
        ("set the name of employee E-4 to Ada in the directory", None),
    ],
)
def test_a_name_runs_while_its_words_are_capitalized(
    query: str, body: dict[str, str] | None
) -> None:
    plan = hashing_router(STAFF, "staff").plan(PlanRequest(query=query, allowed_effects=WRITES))
    (step,) = plan.steps
    assert step.arguments.get("body") == body and step.arguments["employee_id"] == "E-4"
