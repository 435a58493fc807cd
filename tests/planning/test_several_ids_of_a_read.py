"""A read whose parameter takes one id, asked for several, is planned once for each as
max_calls allows and says which ones it leaves out (trial Y1: "the tickets of customers C-1,
C-2" planned one call for C-1 and said nothing of C-2, so the agent answered for one
customer as if for both)."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from schemarouter import Effect, PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder

from servers.loopback import LoopbackServer, Request, Response, json_response


def _id(name: str, pattern: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": pattern},
    }


def _document(base_url: str) -> dict[str, Any]:
    ok = {"200": {"description": "ok"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Helpdesk", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/customers/{customer_id}/tickets": {
                "get": {
                    "operationId": "listCustomerTickets",
                    "summary": "List the support tickets of a customer",
                    "parameters": [_id("customer_id", "^C-[0-9]+$")],
                    "responses": ok,
                }
            },
            "/tickets/{ticket_id}": {
                "get": {
                    "operationId": "getTicket",
                    "summary": "Get a ticket",
                    "parameters": [_id("ticket_id", "^T-[0-9]+$")],
                    "responses": ok,
                },
                "delete": {
                    "operationId": "deleteTicket",
                    "summary": "Delete a ticket",
                    "parameters": [_id("ticket_id", "^T-[0-9]+$")],
                    "responses": {"204": {"description": "deleted"}},
                },
            },
        },
    }


def _app(request: Request) -> Response:
    return json_response({"path": request.path})


@pytest.fixture(scope="module")
def served() -> Any:
    with LoopbackServer(_app) as server:
        router = SchemaRouter(
            encoder=HashingEncoder(), embedding_cache=None, abstention=None, reranker=None
        )
        router.add_openapi(_document(server.base_url))
        yield router, server


def _several(plan: Any) -> list[str]:
    return [w for w in plan.warnings if "and a step takes one" in w]


@pytest.mark.parametrize(
    ("request_text", "held", "left", "again"),
    [
        ("Show the tickets of customers C-1 and C-2", "C-1", "C-2", "{'customer_id': 'C-2'}"),
        ("tickets of customers C-1, C-2 and C-3", "C-1", "C-2', 'C-3", "{'customer_id': 'C-2'}"),
        ("Get tickets T-7 and T-8", "T-7", "T-8", "{'ticket_id': 'T-8'}"),
    ],
)
def test_a_read_of_one_of_several_ids_names_the_others(
    served: Any, request_text: str, held: str, left: str, again: str
) -> None:
    router, server = served
    plan = router.plan(request_text)
    (step,) = plan.steps
    assert held in step.arguments.values()
    (warning,) = _several(plan)
    assert f"the plan is for {held!r} only, not '{left}'" in warning
    assert f"plan.with_arguments(0, {again})" in warning
    # the way out it names plans the next one
    name, value = next(iter(ast.literal_eval(again).items()))
    assert plan.with_arguments(0, {name: value}).steps[0].arguments[name] == value
    before = len(server.requests)
    router.execute(plan)
    assert [held in r.path for r in server.requests[before:]] == [True]  # that one, once


@pytest.mark.parametrize(
    "request_text",
    [
        "Show the tickets of customer C-1",
        "Get ticket T-5, not T-6",
        "Get ticket T-5 and its history",
    ],
)
def test_one_id_is_no_list(served: Any, request_text: str) -> None:
    router, _ = served
    assert _several(router.plan(request_text)) == []


def test_a_change_of_several_ids_takes_none_and_says_nothing_of_one(served: Any) -> None:
    router, _ = served
    request = PlanRequest(query="Delete tickets T-1 and T-2", allowed_effects=set(Effect))
    plan = router.plan(request)
    assert [s.route_id for s in plan.steps] == ["helpdesk/rest/delete_ticket"]
    assert plan.steps[0].arguments == {}  # neither id: the change waits to be told
    assert _several(plan) == []


@pytest.mark.parametrize(
    ("request_text", "max_calls", "paths", "left"),
    [
        ("Get tickets T-7 and T-8", 2, ["/tickets/T-7", "/tickets/T-8"], None),
        ("Get tickets T-7 and T-8", 5, ["/tickets/T-7", "/tickets/T-8"], None),
        (
            "tickets of customers C-1, C-2 and C-3",
            2,
            ["/customers/C-1/tickets", "/customers/C-2/tickets"],
            "not 'C-3'; plan with max_calls=3",
        ),
        (
            "tickets of customers C-1, C-2 and C-3",
            3,
            [f"/customers/C-{i}/tickets" for i in (1, 2, 3)],
            None,
        ),
        ("Get ticket T-7 and customer C-1's tickets", 3, None, None),
    ],
)
def test_with_room_a_read_is_planned_once_for_each_id(
    served: Any, request_text: str, max_calls: int, paths: list[str] | None, left: str | None
) -> None:
    router, server = served
    plan = router.plan(request_text, max_calls=max_calls)
    if paths is None:  # one id of each of two things: nothing to plan again
        assert not any("planned once for each" in w for w in plan.warnings)
        return
    assert len(plan.steps) == len(paths)
    assert [w for w in plan.warnings if "planned once for each" in w]
    left_out = _several(plan)
    if left:
        assert any(left in w for w in left_out), left_out
    else:
        assert left_out == []
    before = len(server.requests)
    result = router.execute(plan)
    assert [r.path for r in server.requests[before:]] == paths
    assert len(result.steps) == len(paths)


def test_a_change_of_several_ids_is_never_planned_once_for_each(served: Any) -> None:
    router, _ = served
    request = PlanRequest(query="Delete tickets T-1 and T-2", allowed_effects=set(Effect))
    plan = router.plan(request, max_calls=3)
    assert not any("planned once for each" in w for w in plan.warnings)
    assert all(s.arguments.get("ticket_id") not in ("T-1", "T-2") for s in plan.steps)


@pytest.mark.parametrize(
    ("request_text", "paths"),
    [
        ("Get tickets T-7 and T-8, not T-8", ["/tickets/T-7"]),
        ("Get tickets T-7 and T-8 except T-8", ["/tickets/T-7"]),
        ("Get tickets T-7, T-8 and T-9 but not T-9", ["/tickets/T-7", "/tickets/T-8"]),
        ("Get tickets T-7 and T-8; never read T-8", ["/tickets/T-7"]),
        ("Get tickets T-7 and T-8?x=1", ["/tickets/T-7"]),
        ("Get tickets T-7 and T-8／..／admin", ["/tickets/T-7"]),
    ],
)
def test_an_id_the_request_refuses_is_not_read_again(
    served: Any, request_text: str, paths: list[str]
) -> None:
    """An id the request lists and then refuses, or writes on past its end, is neither read
    by a copy of the step nor named as left out (trial W1: "Get tickets T-7 and T-8, not
    T-8" read T-8 too)."""
    router, server = served
    plan = router.plan(request_text, max_calls=4)
    assert len(plan.steps) == len(paths)
    refused = [i for i in ("T-8", "T-9") if f"/tickets/{i}" not in paths]
    assert not [w for w in _several(plan) for i in refused if f"'{i}'" in w]
    before = len(server.requests)
    router.execute(plan)
    assert [r.path for r in server.requests[before:]] == paths
