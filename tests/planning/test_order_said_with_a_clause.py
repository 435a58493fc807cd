"""A part the request says must come first, written as a clause of its own ("after you
refund order O-1", "Before you delete customer C-1, ...", "고객 C-1을 삭제하기 전에"), is
planned and runs first (the ninth security review): each planned the
deletion of C-1 alone, ready to send, and named the refund the user said must come first only
as an id no step takes. The -ing forms were read since the eighth review."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.retrieval.intents import split_intents

from helpers import desk_paths, ok, openapi_document


def _op(op: str, summary: str) -> dict[str, Any]:
    return {"operationId": op, "summary": summary, "responses": ok({"type": "object"})}


DESK = openapi_document("Desk", desk_paths(_op))


@pytest.fixture(scope="module")
def desk() -> SchemaRouter:
    router = SchemaRouter(abstention=None, reranker=None, embedding_cache=None)
    router.add_openapi(DESK, provider="desk")
    return router


@pytest.mark.parametrize(
    "query",
    [
        "Delete customer C-1 after you refund order O-1",
        "Before you delete customer C-1, refund order O-1",
        "Delete customer C-1 after we refund order O-1",
        "고객 C-1을 삭제하기 전에 주문 O-1을 환불해줘",
    ],
)
def test_the_part_said_to_come_first_runs_first(desk: SchemaRouter, query: str) -> None:
    plan = desk.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)), max_calls=3)
    planned = [(s.route_id.rsplit("/", 1)[-1], dict(s.arguments)) for s in plan.steps]
    names = [name for name, _ in planned]
    assert names == ["refund_order", "delete_customer"], (planned, plan.warnings)
    assert planned[0][1]["order_id"] == "O-1"
    assert planned[1][1]["customer_id"] == "C-1"


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        # a time or a word that is no clause stays whole
        ("sales after you know", ["sales after you know"]),
        ("orders before 2024-01-01", ["orders before 2024-01-01"]),
        ("회의 전에 보고서를 보여줘", ["회의 전에 보고서를 보여줘"]),
    ],
)
def test_after_and_before_open_no_part_without_a_clause(text: str, parts: list[str]) -> None:
    assert split_intents(text) == parts
