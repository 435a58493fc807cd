"""A Korean thing word before an id binds the id to that thing's parameter (trial Z3).

"티켓 T-9 삭제해줘" (delete ticket T-9) and "예약 B-3 delete 해줘" (delete booking B-3) left
``ticket_id`` and ``booking_id`` open: the glossary knew no 티켓, and 예약 was read as its first
English word alone ("book"), which names no parameter here. "ticket T-9 삭제해줘" bound it."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter

from helpers import hashing_router


def _ok() -> dict[str, Any]:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _delete(thing: str) -> dict[str, Any]:
    name = f"{thing}_id"
    return {
        "delete": {
            "operationId": f"delete_{thing}",
            "summary": f"Delete a {thing}",
            "parameters": [
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": _ok(),
        }
    }


DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Desk", "version": "1.0"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/tickets/{ticket_id}": _delete("ticket"),
        "/bookings/{booking_id}": _delete("booking"),
    },
}


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    return hashing_router(DOCUMENT, provider="desk")


@pytest.mark.parametrize(
    ("request_text", "route", "arguments"),
    [
        ("티켓 T-9 삭제해줘", "desk/rest/delete_ticket", {"ticket_id": "T-9"}),
        ("티켓 T-9를 삭제해 주세요", "desk/rest/delete_ticket", {"ticket_id": "T-9"}),
        ("ticket T-9 삭제해줘", "desk/rest/delete_ticket", {"ticket_id": "T-9"}),
        ("예약 B-3 delete 해줘", "desk/rest/delete_booking", {"booking_id": "B-3"}),
        ("예약 B-3을 취소해줘", "desk/rest/delete_booking", {"booking_id": "B-3"}),
    ],
)
def test_a_korean_thing_word_names_the_parameter_of_its_id(
    router: SchemaRouter, request_text: str, route: str, arguments: dict[str, str]
) -> None:
    # the binding, whichever of the two routes the hashing encoder ranks first
    found = {c.route_id: dict(c.bound_parameters) for c in router.retrieve(request_text, k=2)}
    assert found[route] == arguments


def test_the_plan_of_a_korean_delete_carries_the_id(router: SchemaRouter) -> None:
    plan = router.plan(
        PlanRequest(query="티켓 T-9 삭제해줘", allowed_effects={"read", "destructive"})
    )
    assert [(s.route_id, dict(s.arguments)) for s in plan.steps] == [
        ("desk/rest/delete_ticket", {"ticket_id": "T-9"})
    ]
    assert not plan.steps[0].missing_parameters


def test_the_gloss_a_parameter_takes_is_read_of_several() -> None:
    """예약 glosses as book, reservation and booking: the id goes to whichever a route's
    parameter takes, and a word no parameter takes still names no thing."""
    from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, find_values

    for things, thing in ((("booking",), "booking"), (("reservation",), "reservation")):
        (value,) = find_values("예약 B-3을 취소해줘", things=things)
        assert (value.kind, value.value, value.of) == (NAMED_IDENTIFIER, "B-3", thing)
    assert find_values("스퀘어 S-00017의 상태", things=("booking",)) == []
