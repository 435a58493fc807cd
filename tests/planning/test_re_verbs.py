"""A re- verb asks its change where no route is named by it: an update of the entry that can
make it is planned, never a read in its place.

"Reopen issue 5 in octocat/hello-world" planned ``issues/get`` (the update's ``state`` is an
enum of ``open`` and ``closed``, and "reopen" was read to leave an issue "reopened" only),
and "Retitle issue 5 in octocat/hello-world to 'Crash on start'" planned
``issues/list-for-repo`` (no table knows "retitle"); "Reassign appointment A-1 to Dr Kim"
planned ``get_appointment`` on the hashing encoder, though the update takes an ``assignee``.
Each server here is real (loopback) and records what it is sent."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from issues_api import serving_issues

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.errors import SchemaRouterError
from schemarouter.index import HashingEncoder

from helpers import WRITES, ok, path_id
from servers.loopback import LoopbackServer, json_response

_S = {"type": "string"}


def _sent(router: SchemaRouter, server: LoopbackServer, text: str) -> list[tuple[str, Any]]:
    """What executing the plan of ``text`` sends (method and JSON body; nothing where
    execute refuses the plan)."""
    server.requests.clear()
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    with contextlib.suppress(SchemaRouterError):
        router.execute(plan, allow_effects=WRITES, approve=lambda *_: True)
    return [(r.method, json.loads(r.body) if r.body else None) for r in server.requests]


@pytest.fixture(scope="module")
def issues() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with serving_issues() as serving:
        yield serving


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("Reopen issue 5 in octocat/hello-world", {"state": "open"}),
        ("Retitle issue 5 in octocat/hello-world to 'Crash on start'", {"title": "Crash on start"}),
        ("Please retitle issue 5 in octocat/hello-world to 'Crash on start'",
         {"title": "Crash on start"}),
    ],
)  # fmt: skip
def test_a_re_verb_is_sent_as_the_update_it_asks(
    issues: tuple[SchemaRouter, LoopbackServer], text: str, body: dict[str, str]
) -> None:
    assert _sent(*issues, text) == [("PATCH", body)]


def test_a_re_verb_of_a_field_the_update_does_not_take_sends_nothing(
    issues: tuple[SchemaRouter, LoopbackServer],
) -> None:
    # labels are no title: the update is planned with what it changes missing
    assert _sent(*issues, "Relabel issue 5 in octocat/hello-world as 'Crash on start'") == []


def test_a_retitled_thing_read_is_no_change(issues: tuple[SchemaRouter, LoopbackServer]) -> None:
    router, _ = issues
    text = "Show the retitled issues of octocat/hello-world"
    plan = router.plan(PlanRequest(query=text, allowed_effects=WRITES))
    assert plan.route_ids and "gh/rest/issues_update" not in plan.route_ids


def _clinic(base_url: str) -> dict[str, Any]:
    """Appointments (list, get, update: a date, an assignee, a status) at ``base_url``."""
    changes = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date"},
            "assignee": _S,
            "status": {"type": "string", "enum": ["scheduled", "cancelled", "done"]},
        },
    }
    update = {
        "operationId": "update_appointment",
        "summary": "Update an appointment",
        "requestBody": {"required": True, "content": {"application/json": {"schema": changes}}},
        "responses": ok({"type": "object"}),
    }
    get = {"operationId": "get_appointment", "summary": "Get an appointment", "responses": ok({})}
    listed = {"operationId": "list_appointments", "summary": "List appointments"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Clinic", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/appointments": {"get": {**listed, "responses": ok({"type": "array"})}},
            "/appointments/{appointment_id}": {
                "parameters": path_id("appointment_id"),
                "get": get,
                "patch": update,
            },
        },
    }


@pytest.fixture(scope="module")
def clinic() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(lambda request: json_response({"id": "A-1"})) as server:
        router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
        router.add_openapi(_clinic(server.base_url), provider="clinic")
        yield router, server


def test_a_reassignment_sets_the_field_its_base_names(
    clinic: tuple[SchemaRouter, LoopbackServer],
) -> None:
    assert _sent(*clinic, "Reassign appointment A-1 to Dr Kim") == [
        ("PATCH", {"assignee": "Dr Kim"})
    ]


def test_a_re_verb_no_field_or_state_of_the_update_names_sends_nothing(
    clinic: tuple[SchemaRouter, LoopbackServer],
) -> None:
    # no "open" state and no field named "open": the update's body stays missing
    assert _sent(*clinic, "Reopen appointment A-1") == []
