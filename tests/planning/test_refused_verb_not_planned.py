"""A change the request says not to do is not the change planned where it asks another
(trial 10: "Don't delete department D-30, rename it to Treasury instead" planned
``delete_department``: "delete" and "rename" were both read as asked, so neither was put
first, and the deletion ranked best)."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest
from schemarouter.planning.refused_verbs import refused_verbs

from helpers import WRITES, hashing_router, ok, openapi_document, path_id

_ITEM = ok({"type": "object", "properties": {"id": {"type": "string"}}})
_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }
    },
}


def _op(op: str, summary: str, **more: Any) -> dict[str, Any]:
    return {"operationId": op, "summary": summary, "responses": _ITEM, **more}


HR = openapi_document(
    "HR",
    {
        "/departments/{department_id}": {
            "parameters": path_id("department_id"),
            "get": _op("get_department", "Get a department"),
            "patch": _op("update_department", "Update a department", requestBody=_BODY),
            "delete": _op("delete_department", "Delete a department"),
        },
        "/expense-claims/{claim_id}/approve": {
            "parameters": path_id("claim_id"),
            "post": _op("approve_expense_claim", "Approve an expense claim"),
        },
        "/expense-claims/{claim_id}/reject": {
            "parameters": path_id("claim_id"),
            "post": _op("reject_expense_claim", "Reject an expense claim"),
        },
    },
)


@pytest.mark.parametrize(
    ("query", "planned"),
    [
        ("Don't delete department D-30, rename it to Treasury instead", "update_department"),
        ("Do not delete department D-30; update it", "update_department"),
        ("Don't approve expense claim EX-1, reject it", "reject_expense_claim"),
        ("부서 D-30 삭제하지 말고 이름을 Treasury로 바꿔줘", "update_department"),
    ],
)
def test_the_change_asked_is_planned_not_the_one_refused(query: str, planned: str) -> None:
    plan = hashing_router(HR, "hr").plan(PlanRequest(query=query, allowed_effects=WRITES))
    assert plan.route_ids[0] == f"hr/rest/{planned}"
    assert all("delete" not in r and "approve" not in r for r in plan.route_ids)


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("Don't delete department D-30, rename it", {"delete"}),
        ("never approve claim EX-1", {"approve"}),
        ("부서 D-30 삭제하지 말고", {"delete"}),
        ("delete department D-30", set()),
    ],
)
def test_refused_verbs(query: str, refused: set[str]) -> None:
    assert refused_verbs(query) == refused
