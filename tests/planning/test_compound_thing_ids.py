"""An identifier written after a thing named by several words is that thing's (trial 10:
"Approve leave request LR-501" read "request LR-501", no parameter took it, and the approval
planned with ``leave_request_id`` missing)."""

from __future__ import annotations

import pytest

from schemarouter.retrieval.analysis import find_values, named_identifiers

from helpers import hashing_router, ok, openapi_document, path_id, planned_change

_ITEM = ok({"type": "object", "properties": {"id": {"type": "string"}}})
HR = openapi_document(
    "HR",
    {
        "/leave-requests/{leave_request_id}": {
            "parameters": path_id("leave_request_id"),
            "get": {
                "operationId": "get_leave_request",
                "summary": "Get a leave request",
                "responses": _ITEM,
            },
        },
        "/leave-requests/{leave_request_id}/approve": {
            "parameters": path_id("leave_request_id"),
            "post": {
                "operationId": "approve_leave_request",
                "summary": "Approve a leave request",
                "responses": _ITEM,
            },
        },
        "/purchase-orders/{id}": {
            "parameters": path_id("id"),
            "delete": {
                "operationId": "delete_purchase_order",
                "summary": "Delete a purchase order",
                "responses": _ITEM,
            },
        },
        "/requests/{request_id}": {
            "parameters": path_id("request_id"),
            "get": {"operationId": "get_request", "summary": "Get a request", "responses": _ITEM},
        },
    },
)


@pytest.mark.parametrize(
    ("query", "route", "arguments"),
    [
        ("Approve leave request LR-501", "approve_leave_request", {"leave_request_id": "LR-501"}),
        (
            "approve the leave request with id LR-7",
            "approve_leave_request",
            {"leave_request_id": "LR-7"},
        ),
        # a plain {id} after a collection of two words
        ("Delete purchase order PO-77", "delete_purchase_order", {"id": "PO-77"}),
        # a one-word thing still names its own
        ("Show request R-9", "get_request", {"request_id": "R-9"}),
    ],
)
def test_an_id_after_a_thing_of_several_words_is_that_things(
    query: str, route: str, arguments: dict[str, str]
) -> None:
    router = hashing_router(HR, "hr")
    _, step = planned_change(router, query, f"hr/rest/{route}", max_calls=1)
    assert dict(step.arguments) == arguments


def test_the_words_before_join_only_into_a_thing_a_parameter_takes() -> None:
    things = {"leaverequest", "leave-request", "request", "purchase-order"}
    read = named_identifiers(find_values("approve leave request LR-1", things=things))
    assert read == {"leaverequest": "LR-1"}
    # "pending" makes no thing with "request": the one word is read
    read = named_identifiers(find_values("approve pending request R-2", things=things))
    assert read == {"request": "R-2"}
    read = named_identifiers(find_values("close purchase order PO-3", things=things))
    assert read == {"purchase-order": "PO-3"}
