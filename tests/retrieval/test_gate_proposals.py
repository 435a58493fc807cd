"""A model's proposals gated by ``validate_selection`` against one OpenAPI document served on
loopback (user trial V2): what the gate accepts is what execution sends, and a proposal never
makes the gate raise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemarouter import SchemaRouter
from schemarouter.errors import ParameterValidationError
from schemarouter.retrieval.gate import validate_selection
from tests.servers.loopback import LoopbackServer, Request, Response, json_response

DOC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop API", "version": "1.0"},
    "paths": {
        "/users/{user_id}": {
            "get": {
                "operationId": "getUser",
                "parameters": [
                    {
                        "name": "user_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {"name": "X-Tenant", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        },
                    }
                },
            }
        },
        "/orders": {
            "get": {
                "operationId": "listOrders",
                "summary": "List orders by status since a time",
                "parameters": [
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["open", "shipped"]},
                    },
                    {
                        "name": "since",
                        "in": "query",
                        "schema": {"type": "string", "format": "date-time"},
                    },
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/users": {
            "post": {
                "operationId": "createUser",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "email": {"type": "string", "format": "email"},
                                    "since": {"type": "string", "format": "date-time"},
                                    "profile": {"type": "object"},
                                },
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "made"}},
            }
        },
    },
}


def _app(request: Request) -> Response:
    return json_response({"id": "u-1"}, 201 if request.method == "POST" else 200)


@pytest.fixture
def served() -> Iterator[tuple[SchemaRouter, LoopbackServer]]:
    with LoopbackServer(_app) as running:
        router = SchemaRouter()
        router.add_openapi(DOC, provider="shop", base_url=running.base_url)
        yield router, running


def _nested(depth: int) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


@pytest.mark.parametrize("place", ["route_id", "fingerprint", "fields", "argument", "proposal"])
def test_a_proposal_nested_past_repr_is_rejected_not_raised(
    served: tuple[SchemaRouter, LoopbackServer], place: str
) -> None:
    """A value nested 100,000 deep anywhere in a proposal made the gate's report of it
    (``repr``) raise RecursionError, where ``validate_selection`` never raises."""
    router, running = served
    deep = _nested(100_000)
    proposal: dict[str, Any] = {"route_id": "shop/rest/get_user", "arguments": {"user_id": "u-1"}}
    if place == "argument":
        proposal["arguments"] = {"user_id": "u-1", "X-Tenant": deep}
    elif place != "proposal":
        proposal[place] = [deep] if place == "fields" else deep
    report = validate_selection(router.snapshot(), deep if place == "proposal" else [proposal])
    assert report.rejected
    assert all(len(r.value) <= 80 for r in report.rejected)
    for selection in report.accepted:  # what was kept runs as a call
        router.call(selection.route_id, selection.arguments)
    assert all(r.path in ("/users/u-1",) for r in running.requests)


REFUSED_BY_EXECUTION = [
    ("shop/rest/get_user", {"user_id": "u-1", "X-Tenant": "acme\r\nX-Admin: 1"}, "X-Tenant"),
    ("shop/rest/get_user", {"user_id": "u-1", "X-Tenant": "acme\n"}, "X-Tenant"),
    ("shop/rest/get_user", {"user_id": "u-1", "X-Tenant": "açme"}, "X-Tenant"),
    ("shop/rest/get_user", {"user_id": ".."}, "user_id"),
    ("shop/rest/get_user", {"user_id": "%2e%2e"}, "user_id"),
    ("shop/rest/get_user", {"user_id": ""}, "user_id"),
    ("shop/rest/create_user", {"body": {"name": "x", "since": "yesterday"}}, "body"),
    ("shop/rest/create_user", {"body": {"name": "x", "email": "not-an-email"}}, "body"),
]


@pytest.mark.parametrize(("route_id", "arguments", "name"), REFUSED_BY_EXECUTION)
def test_the_gate_rejects_what_execution_would_refuse_to_send(
    served: tuple[SchemaRouter, LoopbackServer],
    route_id: str,
    arguments: dict[str, Any],
    name: str,
) -> None:
    """A header value with CR LF or non-ASCII text, a path value that is a dot segment or
    empty, and a value that is not its ``format`` passed ``validate_selection`` as clean,
    though ``router.call`` refuses each before sending: a host that sends what the gate
    accepted with its own client would have split a header or left the route's path."""
    router, running = served
    report = validate_selection(router.snapshot(), {"route_id": route_id, "arguments": arguments})
    assert [(r.part, r.value.startswith(f"{{{name!r}")) for r in report.rejected] == [
        ("value", True)
    ]
    assert name not in report.accepted[0].arguments
    with pytest.raises(ParameterValidationError):
        router.call(route_id, arguments, allow_effects=["read", "write"], approve=lambda r, a: True)
    assert running.requests == []


def test_what_the_gate_accepts_is_sent(served: tuple[SchemaRouter, LoopbackServer]) -> None:
    router, running = served
    proposals = [
        {"route_id": "shop/rest/get_user", "arguments": {"user_id": "u 1/2", "X-Tenant": "acme"}},
        {
            "route_id": "shop/rest/create_user",
            "arguments": {
                "body": {"name": "Ann", "email": "ann@example.com", "since": "2026-12-04T10:00:00Z"}
            },
        },
    ]
    report = validate_selection(router.snapshot(), proposals)
    assert report.clean and len(report.accepted) == 2
    for selection in report.accepted:
        router.call(
            selection.route_id,
            selection.arguments,
            allow_effects=["read", "write"],
            approve=lambda r, a: True,
        )
    assert [r.raw_path for r in running.requests] == ["/users/u%201%2F2", "/users"]
    assert running.requests[0].headers["X-Tenant"] == "acme"


def test_a_plan_leaves_out_a_value_its_call_would_refuse_and_says_so(
    served: tuple[SchemaRouter, LoopbackServer],
) -> None:
    """The planner bound the request's date 2024-01-05 to a ``date-time`` parameter (the
    schema's type takes it, its format not): the plan looked complete and ``execute``
    refused it ("'2024-01-05' is not a 'date-time'"). A plan's own gate now holds it to
    what a call sends: the value is left out and the plan's warnings say why."""
    router, running = served
    plan = router.plan("list open orders since 2024-01-05")
    assert plan.route_ids == ("shop/rest/list_orders",)
    assert "since" not in plan.steps[0].arguments
    assert any("'2024-01-05' is not sent as 'since'" in w for w in plan.warnings)
    router.execute(plan)
    assert [r.path for r in running.requests] == ["/orders"]
    assert "since" not in running.requests[0].query


def test_a_proposal_with_arguments_and_parameters_says_which_was_read(
    served: tuple[SchemaRouter, LoopbackServer],
) -> None:
    """Trial V2 (low): a proposal giving both ``arguments`` and ``parameters`` had the
    second ignored with no word: what the model meant by it was silently lost."""
    router, _ = served
    proposal = {
        "route_id": "shop/rest/get_user",
        "arguments": {"user_id": "u1"},
        "parameters": {"user_id": "u2"},
    }
    report = validate_selection(router.snapshot(), proposal)
    assert report.accepted[0].arguments == {"user_id": "u1"}
    (rejection,) = report.rejected
    assert rejection.part == "parameter" and "not both: read arguments" in rejection.reason
