"""A Korean request picks a list's entry by a filter it names, or by "유일한" (trial V2).

Korean has no articles and seldom a plural, so "ann@example.com의 티켓을 close 해줘" could
not pick the ticket a list filtered by that e-mail returns, nor "내 유일한 워크스페이스" the
one workspace: both now bind it, run only where the list returns one entry (execution's
guard); a plural (티켓들), "모든", "각" or "하나를" (one of several) still leave the id open."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import SchemaRouter

from helpers import hashing_router, openapi_document, path_id, planned_change

_S = {"type": "string"}
_ITEM = {"type": "object", "properties": {"id": _S, "name": _S, "customer_email": _S}}
_PAGE = {"type": "object", "properties": {"items": {"type": "array", "items": _ITEM}}}
_EMAIL = {"type": "string", "format": "email"}


def _op(op: str, summary: str, **more: Any) -> dict[str, Any]:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": _ITEM}}}}
    return {"operationId": op, "summary": summary, "responses": ok, **more}


def _list(op: str, summary: str, *parameters: dict[str, Any]) -> dict[str, Any]:
    page = {"200": {"description": "ok", "content": {"application/json": {"schema": _PAGE}}}}
    return {**_op(op, summary), "parameters": list(parameters), "responses": page}


_BY_EMAIL = {"name": "customer_email", "in": "query", "required": False, "schema": _EMAIL}
DOCUMENT = openapi_document(
    "Helpdesk",
    {
        "/tickets": {
            "get": _list("list_tickets", "List support tickets, by customer email", _BY_EMAIL)
        },
        "/tickets/{ticket_id}/close": {
            "post": _op("close_ticket", "Close a support ticket", parameters=path_id("ticket_id"))
        },
        "/workspaces": {"get": _list("list_workspaces", "List my workspaces")},
        "/workspaces/{workspace_id}": {
            "patch": _op(
                "update_workspace",
                "Update (rename) a workspace",
                parameters=path_id("workspace_id"),
            )
        },
    },
)


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="hd")


@pytest.mark.parametrize(
    ("request_text", "route_id", "producer", "filters", "how"),
    [
        (
            "ann@example.com의 티켓을 close 해줘",
            "hd/rest/close_ticket",
            "hd/rest/list_tickets",
            {"customer_email": "ann@example.com"},
            "filtered by what the request names; it runs only where the list returns one",
        ),
        (
            "내 유일한 워크스페이스를 rename 해줘",
            "hd/rest/update_workspace",
            "hd/rest/list_workspaces",
            {},
            "as the request says there is one; it runs only where the list returns one",
        ),
    ],
)
def test_a_korean_request_picks_by_a_filter_or_by_only(
    router: SchemaRouter,
    request_text: str,
    route_id: str,
    producer: str,
    filters: dict[str, str],
    how: str,
) -> None:
    plan, change = planned_change(router, request_text, route_id)
    binding = next(iter(change.bindings.values()))
    assert plan.steps[binding.step].route_id == producer
    assert plan.steps[binding.step].arguments == filters
    assert any(how in w for w in plan.warnings)


@pytest.mark.parametrize(
    "request_text",
    [
        "티켓을 close 해줘",
        "ann@example.com의 티켓들을 close 해줘",
        "ann@example.com의 모든 티켓을 close 해줘",
        "ann@example.com의 각 티켓을 close 해줘",
        "ann@example.com의 티켓 하나를 close 해줘",
        "ann@example.com의 티켓 두 번째를 close 해줘",
    ],
)
def test_a_korean_request_of_several_or_of_any_one_picks_nothing(
    router: SchemaRouter, request_text: str
) -> None:
    plan, close = planned_change(router, request_text, "hd/rest/close_ticket")
    assert not close.bindings
    assert close.missing_parameters == ("ticket_id",)
    assert "hd/rest/list_tickets" not in plan.route_ids
