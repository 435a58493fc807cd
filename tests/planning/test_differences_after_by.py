"""A number after "by" beside a verb that raises or lowers is how much a value changes, not
its new value (the twentieth security review). Before, "drop table T-1 by 3 replicas" (read
as lowering since trial 21) sent ``update_table(table_id="T-1", replicas=3)``, as did
"reduce ..." and "increase ... by 3 replicas", and "raise the ttl of table T-1 by 3 days"
sent ``ttl_days=3``. The functions are real and record what they are called with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from schemarouter import SchemaRouter, capability
from schemarouter.index import HashingEncoder

from helpers import ran_plan

Calls = list[tuple[Any, ...]]


def _functions(calls: Calls) -> list[Callable[..., Any]]:
    @capability(effect="destructive")
    def delete_table(table_id: str) -> str:
        """Delete (drop) a database table for good.

        Args:
            table_id: The table, like T-1.
        """
        calls.append(("delete_table", table_id))
        return "ok"

    @capability(effect="write")
    def update_table(
        table_id: str, replicas: int | None = None, ttl_days: int | None = None
    ) -> str:
        """Change a table's settings: its replica count or its time to live in days.

        Args:
            table_id: The table, like T-1.
            replicas: How many replicas it keeps.
            ttl_days: How many days rows live.
        """
        calls.append(("update_table", table_id, replicas, ttl_days))
        return "ok"

    return [delete_table, update_table]


def _sent(query: str) -> Calls:
    calls: Calls = []
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(_functions(calls), provider="db")
    try:
        ran_plan(router, query)
    finally:
        router.close()
    return calls


@pytest.mark.parametrize(
    "query",
    [
        "drop table T-1 by 3 replicas",
        "reduce table T-1 by 3 replicas",
        "increase table T-1 by 3 replicas",
        "raise the ttl of table T-1 by 3 days",
    ],
)
def test_a_difference_is_not_sent_as_the_new_value(query: str) -> None:
    assert _sent(query) == []


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ("drop table T-1 to 2 replicas", [("update_table", "T-1", 2, None)]),
        ("set table T-1 to 3 replicas by 5pm", [("update_table", "T-1", 3, None)]),
        ("drop table T-1", [("delete_table", "T-1")]),
    ],
)
def test_a_new_value_is_sent(query: str, sent: Calls) -> None:
    assert _sent(query) == sent
