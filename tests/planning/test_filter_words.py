"""A list's filter named by the words that describe its entry (trial W2).

"Close the ticket titled 'printer on fire'" planned ``list_tickets`` with no ``title``: the
list picked no entry out, so the close could take no id from it. "titled", "named",
"called", "assigned to", "owned by" and "number" now fill a read's parameter of that name;
a change's own ``name`` is never the one the request describes the entry by."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments

from helpers import WRITES, hashing_router, ok, page, path_id

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "title": _S, "assignee": _S}}
_PROJECT = {"type": "object", "properties": {"id": _S, "name": _S}}


def _query(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "in": "query", "required": False, "schema": _S} for n in names]


DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Helpdesk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets": {
            "get": {
                "operationId": "list_tickets",
                "summary": "List support tickets, filtered by title or assignee",
                "parameters": _query("title", "assignee"),
                "responses": page(_TICKET),
            }
        },
        "/tickets/{ticket_id}/close": {
            "post": {
                "operationId": "close_ticket",
                "summary": "Close a support ticket",
                "parameters": path_id("ticket_id"),
                "responses": ok(_TICKET),
            }
        },
        "/projects": {
            "get": {
                "operationId": "list_projects",
                "summary": "List projects, filtered by name",
                "parameters": _query("name"),
                "responses": page(_PROJECT),
            }
        },
        "/projects/{project_id}": {
            "patch": {
                "operationId": "update_project",
                "summary": "Update (rename) a project",
                "parameters": path_id("project_id"),
                "requestBody": {
                    "content": {"application/json": {"schema": _PROJECT | {"required": []}}}
                },
                "responses": ok(_PROJECT),
            }
        },
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="hd")


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("Show the tickets titled 'printer on fire'", {"title": "printer on fire"}),
        ("List tickets assigned to Bob", {"assignee": "Bob"}),
        ("List tickets not assigned to Bob", {}),
        ("List the tickets of the team", {}),
    ],
)
def test_a_list_takes_the_value_its_entries_are_described_by(
    router: SchemaRouter, request_text: str, arguments: dict[str, str]
) -> None:
    plan = router.plan(PlanRequest(query=request_text))
    assert plan.route_ids == ("hd/rest/list_tickets",)
    assert plan.steps[0].arguments == arguments


def test_a_change_takes_the_id_of_the_entry_the_list_picks_by_its_title(
    router: SchemaRouter,
) -> None:
    request = PlanRequest(query="Close the ticket titled 'printer on fire'", allowed_effects=WRITES)
    plan = router.plan(request, max_calls=2)
    assert plan.route_ids == ("hd/rest/list_tickets", "hd/rest/close_ticket")
    assert plan.steps[0].arguments == {"title": "printer on fire"}
    assert plan.steps[1].bindings["ticket_id"].step == 0


def test_a_change_never_takes_the_name_the_entry_is_described_by(router: SchemaRouter) -> None:
    request = PlanRequest(query="Rename the project named Apollo", allowed_effects=WRITES)
    plan = router.plan(request, max_calls=2)
    assert plan.route_ids == ("hd/rest/list_projects", "hd/rest/update_project")
    assert plan.steps[0].arguments == {"name": "Apollo"}
    assert "Apollo" not in str(plan.steps[1].arguments)
    assert plan.steps[1].bindings["project_id"].step == 0


_ASSIGN: dict[str, Any] = {
    "post": {
        "operationId": "assign_ticket",
        "summary": "Assign a support ticket to a person",
        "parameters": path_id("ticket_id"),
        "requestBody": {
            "content": {
                "application/json": {"schema": {"type": "object", "properties": {"assignee": _S}}}
            }
        },
        "responses": ok(_TICKET),
    }
}


@pytest.fixture(scope="module")
def assigning() -> SchemaRouter:
    document = {**DOCUMENT, "paths": {**DOCUMENT["paths"], "/tickets/{ticket_id}/assign": _ASSIGN}}
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(document, provider="hd")
    return router


@pytest.mark.parametrize(
    ("request_text", "route_id", "body"),
    [
        ("Assign ticket T-8 to Ann", "hd/rest/assign_ticket", {"assignee": "Ann"}),
        ("Rename project P-2 to Gemini", "hd/rest/update_project", {"name": "Gemini"}),
        (
            "Rename the project named Apollo to 'Gemini II'",
            "hd/rest/update_project",
            {"name": "Gemini II"},
        ),
        ("Assign ticket T-8 to Ann, not to Bob", "hd/rest/assign_ticket", {"assignee": "Ann"}),
        ("Assign ticket T-8", "hd/rest/assign_ticket", None),
    ],
)
def test_a_change_takes_the_value_its_verb_puts_there(
    assigning: SchemaRouter, request_text: str, route_id: str, body: dict[str, str] | None
) -> None:
    plan = assigning.plan(PlanRequest(query=request_text, allowed_effects=WRITES), max_calls=2)
    change = [s for s in plan.steps if s.route_id == route_id]
    assert change, plan.route_ids
    assert change[0].arguments.get("body") == body


@pytest.mark.parametrize(
    ("request_text", "body"),
    [
        ("프로젝트 P-2 이름을 Gemini로 바꿔줘", {"name": "Gemini"}),
        ("프로젝트 P-2 이름을 'Q4 계획'으로 변경해줘", {"name": "Q4 계획"}),
        ("프로젝트 P-2를 'Q4 계획'으로 이름 변경", {"name": "Q4 계획"}),
        ("프로젝트 P-2 이름을 Ann으로 수정해줘", {"name": "Ann"}),
        ("프로젝트 P-2를 제미니로 이름을 바꿔줘", {"name": "제미니"}),
        ("프로젝트 P-2 이름 변경해줘", None),
        ("프로젝트 P-2 소유자를 ann으로 바꿔줘", None),
        # said not to ("바꾸지 말고"): no value is read, the name stays open
        ("프로젝트 P-2 이름을 Gemini로 바꾸지 말고 Zeus로 바꿔줘", None),
        ("프로젝트 P-2 이름을 Gemini로 변경하지 말아줘", None),
    ],
)
def test_a_korean_rename_puts_the_value_before_its_particle_in_the_name(
    assigning: SchemaRouter, request_text: str, body: dict[str, str] | None
) -> None:
    """ "이름을 Gemini로 바꿔줘" (rename to Gemini) left ``name`` open (trial X2); the value
    is the one before 로 / 으로 beside 이름 and the verb, written once."""
    route = assigning.registry.snapshot().route("hd/rest/update_project")
    assert fill_arguments(route, request_text).get("body") == body


@pytest.mark.parametrize(
    ("request_text", "body"),
    [
        ("티켓 T-8을 Ann에게 할당해줘", {"assignee": "Ann"}),
        ("가장 최근 티켓을 Ann에게 배정해줘", {"assignee": "Ann"}),
        ("티켓 T-8을 'Ann Lee'에게 할당해줘", {"assignee": "Ann Lee"}),
        ("티켓 T-8 담당자를 Ann으로 변경해줘", {"assignee": "Ann"}),
        ("티켓 T-8을 Ann에게 할당하지 말고 Bob에게 할당해줘", {"assignee": "Bob"}),
        ("티켓 T-8 할당해줘", None),
    ],
)
def test_a_korean_assignment_puts_the_one_it_names_in_the_assignee(
    assigning: SchemaRouter, request_text: str, body: dict[str, str] | None
) -> None:
    """ "Ann에게 할당해줘" (assign to Ann) left ``assignee`` open (trial X2)."""
    route = assigning.registry.snapshot().route("hd/rest/assign_ticket")
    assert fill_arguments(route, request_text).get("body") == body


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("Bob에게 할당된 티켓 보여줘", {"assignee": "Bob"}),
        ("Bob한테 배정된 티켓 목록", {"assignee": "Bob"}),
        ("담당자가 Bob인 티켓 보여줘", {"assignee": "Bob"}),
        ("'printer on fire'라는 제목의 티켓 보여줘", {"title": "printer on fire"}),
        ("제목이 '프린터 고장'인 티켓", {"title": "프린터 고장"}),
        # no value before the words, or two: nothing taken
        ("할당된 티켓 보여줘", {}),
        ("Bob에게 할당된 티켓과 Ann에게 할당된 티켓 보여줘", {}),
    ],
)
def test_a_korean_list_takes_the_value_written_before_its_describing_words(
    router: SchemaRouter, request_text: str, arguments: dict[str, str]
) -> None:
    """Trial Y2: "Bob에게 할당된 티켓 보여줘" (the tickets assigned to Bob) listed every
    ticket: Korean writes the describing words after the value."""
    route = router.snapshot().routes["hd/rest/list_tickets"]
    assert fill_arguments(route, request_text, ()) == arguments
