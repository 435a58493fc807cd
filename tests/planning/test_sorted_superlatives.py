"""A superlative takes the first entry of a list sorted so (trial V2).

"Close the oldest ticket" left the id open where ``list_tickets`` takes ``sort`` (enum
``created_at``), ``order`` (``asc`` / ``desc``) and ``limit``: the list is now planned sorted
by creation, in the superlative's direction, one entry a page, and the change takes that one.
A list with no direction, an ordinal before the superlative, a plural or a superlative of
another field leaves the id open: a wrong guess would close the wrong ticket."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.arguments import fill_arguments
from schemarouter.planning.chained_needs import pick

from helpers import ok

_S = {"type": "string"}
_TICKET = {"type": "object", "properties": {"id": _S, "created_at": _S, "priority": _S}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _document(direction: bool) -> dict[str, Any]:
    sort = {"type": "string", "enum": ["created_at", "updated_at", "priority"]}
    parameters = [_query("sort", sort), _query("limit", {"type": "integer", "minimum": 1})]
    if direction:
        parameters.append(_query("order", {"type": "string", "enum": ["asc", "desc"]}))
    page = {"type": "object", "properties": {"items": {"type": "array", "items": _TICKET}}}
    close = [{"name": "ticket_id", "in": "path", "required": True, "schema": _S}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Helpdesk", "version": "1.0"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/tickets": {
                "get": {
                    "operationId": "list_tickets",
                    "summary": "List support tickets, sorted by a field",
                    "parameters": parameters,
                    "responses": ok(page),
                }
            },
            "/tickets/{ticket_id}/close": {
                "post": {
                    "operationId": "close_ticket",
                    "summary": "Close a support ticket",
                    "parameters": close,
                    "responses": ok(_TICKET),
                }
            },
        },
    }


def _close(text: str, *, direction: bool = True) -> tuple[Any, Any]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(direction), provider="hd")
    request = PlanRequest(query=text, allowed_effects=("read", "write", "destructive"))
    plan = router.plan(request, max_calls=2)
    close = next(s for s in plan.steps if s.route_id == "hd/rest/close_ticket")
    return plan, close


@pytest.mark.parametrize(
    ("request_text", "way"),
    [
        ("Close the oldest ticket", "asc"),
        ("Close the earliest ticket", "asc"),
        ("Close the newest ticket", "desc"),
        ("Close the latest ticket", "desc"),
        ("Close the most recent ticket", "desc"),
        # "this" and "its" end in -s and name no several (review: read as a plural, the
        # list was not cut to one and the ticket's id stayed open)
        ("Close the oldest ticket of this queue", "asc"),
        ("Close the newest ticket as its owner asked", "desc"),
    ],
)
def test_a_superlative_takes_the_first_of_a_list_sorted_so(request_text: str, way: str) -> None:
    plan, close = _close(request_text)
    lookup = plan.steps[close.bindings["ticket_id"].step]
    assert lookup.route_id == "hd/rest/list_tickets"
    assert lookup.arguments == {"sort": "created_at", "order": way, "limit": 1}
    assert any("sorted so that its first entry is the one" in w for w in plan.warnings)


@pytest.mark.parametrize(
    ("request_text", "direction"),
    [
        ("Close the oldest ticket", False),
        ("Close the second oldest ticket", True),
        ("Close the 2nd newest ticket", True),
        ("Close the oldest tickets", True),
        ("Close the ticket with the highest priority", True),
        ("Close the oldest ticket and the newest ticket", True),
        ("Close all of the oldest ticket", True),
    ],
)
def test_a_superlative_the_list_cannot_be_sorted_for_leaves_the_id_open(
    request_text: str, direction: bool
) -> None:
    plan, close = _close(request_text, direction=direction)
    assert not close.bindings
    assert close.missing_parameters == ("ticket_id",)
    assert "hd/rest/list_tickets" not in plan.route_ids


@pytest.mark.parametrize(
    ("request_text", "arguments"),
    [
        ("Show the latest tickets", {"sort": "created_at", "order": "desc"}),
        ("Show the oldest ticket", {"sort": "created_at", "order": "asc", "limit": 1}),
        ("Show the latest 5 tickets", {"sort": "created_at", "order": "desc", "limit": 5}),
    ],
)
def test_a_read_of_several_is_sorted_not_cut_to_one(
    request_text: str, arguments: dict[str, Any]
) -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(True), provider="hd")
    plan = router.plan(PlanRequest(query=request_text), max_calls=1)
    assert plan.route_ids == ("hd/rest/list_tickets",)
    assert plan.steps[0].arguments == arguments


# Korean (trial X2): "가장 오래된 티켓을 닫아줘" (close the oldest ticket) and "제일 최근 티켓을
# 닫아줘" (the most recent) left the id open where the English planned the sorted list; they now
# do, read as strictly: an ordinal ("두 번째로 오래된"), a plural ("티켓들"), another field
# ("우선순위가 가장 높은"), two superlatives, a superlative of another thing ("가장 오래된
# 프로젝트의 티켓") or a list with no direction leave the id open. The reading is tested on the
# routes themselves (the list's arguments, the change's pick): HashingEncoder ranks the list
# alone first for some Korean verbs, and ranking is not what this tests.


class _Listed(NamedTuple):
    arguments: dict[str, Any]


def _korean(text: str, *, direction: bool = True) -> tuple[dict[str, Any], str | None]:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(direction), provider="hd")
    snapshot = router.registry.snapshot()
    listed = fill_arguments(snapshot.route("hd/rest/list_tickets"), text)
    return listed, pick(snapshot.route("hd/rest/close_ticket"), "ticket", _Listed(listed), text)


@pytest.mark.parametrize(
    ("request_text", "way"),
    [
        ("가장 오래된 티켓을 닫아줘", "asc"),
        ("제일 오래된 티켓 닫아줘", "asc"),
        ("제일 최근 티켓을 닫아줘", "desc"),
        ("가장 최근의 티켓을 닫아 주세요", "desc"),
        ("가장 최신 티켓을 닫아줘", "desc"),
        ("가장 최근에 만들어진 티켓을 닫아줘", "desc"),
        ("ann의 가장 오래된 티켓을 닫아줘", "asc"),
    ],
)
def test_a_korean_superlative_takes_the_first_of_a_list_sorted_so(
    request_text: str, way: str
) -> None:
    listed, picked = _korean(request_text)
    assert listed == {"sort": "created_at", "order": way, "limit": 1}
    assert picked == "sorted"


@pytest.mark.parametrize(
    ("request_text", "direction"),
    [
        ("가장 오래된 티켓을 닫아줘", False),
        ("두 번째로 오래된 티켓을 닫아줘", True),
        ("2번째로 오래된 티켓을 닫아줘", True),
        ("가장 오래된 티켓들을 닫아줘", True),
        ("우선순위가 가장 높은 티켓을 닫아줘", True),
        ("가장 오래된 티켓과 가장 최근 티켓을 닫아줘", True),
        ("가장 오래된 프로젝트의 티켓을 닫아줘", True),
        ("가장 오래된 프로젝트 티켓 목록에서 하나 닫아줘", True),
    ],
)
def test_a_korean_superlative_the_list_cannot_be_sorted_for_picks_nothing(
    request_text: str, direction: bool
) -> None:
    listed, picked = _korean(request_text, direction=direction)
    assert picked is None
    assert not {"sort", "order"} & set(listed)


def test_a_korean_superlative_plans_the_sorted_list_and_binds_the_change() -> None:
    plan, close = _close("제일 최근 티켓을 닫아줘")
    lookup = plan.steps[close.bindings["ticket_id"].step]
    assert lookup.arguments == {"sort": "created_at", "order": "desc", "limit": 1}
    assert any("sorted so that its first entry is the one" in w for w in plan.warnings)


def test_a_korean_read_of_the_oldest_is_sorted_and_cut_to_one() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_openapi(_document(True), provider="hd")
    plan = router.plan(PlanRequest(query="가장 오래된 티켓 보여줘"), max_calls=1)
    assert plan.route_ids == ("hd/rest/list_tickets",)
    assert plan.steps[0].arguments == {"sort": "created_at", "order": "asc", "limit": 1}
