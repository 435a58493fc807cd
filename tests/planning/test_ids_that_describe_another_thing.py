"""An id written in words that describe another thing never fills a change's parameter.

"Transfer 20 USD to account AC-2 that was opened from account AC-9 last year, from AC-1" was
SENT as ``create_transfer(from_account_id="AC-9", ...)``: the "from account AC-9" of the
clause that says which account AC-2 is was read as the transfer's source (a trial of the
helper `wrongdebit`). Ids in relative clauses ("that", "which", "who", "whose" ...), in
parentheses or after "like", "same ... as" describe; where the request gives no other side,
the plan keeps it missing, says why, and nothing is sent.

The server is real: tests/mcp_servers/ledger_server.py over stdio, which logs each call; the
notification callable logs its calls to the same file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serving import logged_calls, serving_mcp

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.planning.described_ids import describes, undescribed

TRANSFER = "create_transfer"


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("ledger") / "calls.jsonl"

    def notify_customer(customer_id: str, message: str) -> str:
        """Send a notification message (e-mail and app push) to a customer, e.g. CU-4."""
        arguments = {"customer_id": customer_id, "message": message}
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "notify_customer", "arguments": arguments}) + "\n")
        return "sent"

    with serving_mcp("ledger_server.py", "ledger", "LEDGER_LOG", log, [notify_customer]) as router:
        yield router, log


def _moved(source: str, target: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            TRANSFER,
            {"from_account_id": source, "to_account_id": target, "amount": 20, "currency": "USD"},
        )
    ]


@pytest.mark.parametrize(
    "query",
    [
        # AC-9 was debited: the clause's "from account AC-9" was read as the source
        "Transfer 20 USD to account AC-2 that was opened from account AC-9 last year, from AC-1",
        "Transfer 20 USD from AC-1 to account AC-2 (funded from account AC-9)",
        # nothing was sent: the clause's verb ("opened") asked a change of its own and a read
        # was planned; or the id in parentheses made the source written twice
        "Transfer 20 USD to account AC-2, which was opened by customer C-9, from AC-1",
        "Transfer 20 USD from account AC-1, which was opened from AC-9, to AC-2",
        "Transfer 20 USD to account AC-2 (opened from AC-9), from AC-1",
        # guards: sent before too
        "Transfer 20 USD from AC-1 to account AC-2 who AC-9 referred",
        "Transfer 20 USD to account AC-2 whose owner is customer C-9, from AC-1",
        "I'd like to transfer 20 USD from AC-1 to AC-2",
    ],
)
def test_the_ids_of_a_describing_clause_are_not_the_transfers(
    bank: tuple[SchemaRouter, Path], query: str
) -> None:
    assert logged_calls(*bank, query) == _moved("AC-1", "AC-2")


@pytest.mark.parametrize(
    ("query", "missing"),
    [
        # AC-9 was debited: the one "from" of the request is in the clause
        ("Transfer 20 USD to account AC-2 that was opened from account AC-9", "from_account_id"),
        ("Send 20 USD to account AC-2 who was referred from account AC-9", "from_account_id"),
        # guards: nothing was sent before either
        ("Transfer 20 USD from an account like AC-9 to AC-2", "from_account_id"),
        ("Transfer 20 USD to an account like AC-9 from AC-1", "to_account_id"),
        ("Transfer 20 USD to AC-2 from the same account as AC-9", "from_account_id"),
        ("Send 5 EUR from AC-1 to the account that AC-9 closed, AC-2", "to_account_id"),
    ],
)
def test_a_side_only_a_describing_clause_names_stays_missing(
    bank: tuple[SchemaRouter, Path], query: str, missing: str
) -> None:
    router, _ = bank
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert plan.route_ids == ("ledger/mcp/create_transfer",)
    assert missing in plan.steps[0].missing_parameters
    assert "AC-9" not in plan.steps[0].arguments.values()
    assert logged_calls(*bank, query) == []


def test_the_plan_says_which_id_describes_another_thing(bank: tuple[SchemaRouter, Path]) -> None:
    router, _ = bank
    query = "Transfer 20 USD to account AC-2 that was opened from account AC-9"
    plan = router.plan(PlanRequest(query=query, allowed_effects=frozenset(Effect)))
    assert any(
        "'AC-9' in words that describe another thing ('that was opened from account AC-9')" in w
        for w in plan.warnings
    ), plan.warnings


@pytest.mark.parametrize(
    "query",
    [
        # the clause may end on either side's words: which account "from AC-1" is of cannot
        # be told (sent AC-1 -> AC-2 before), so nothing is guessed
        "Transfer 20 USD to account AC-2 which AC-9 funded from AC-1",
    ],
)
def test_a_clause_with_no_end_reads_on(bank: tuple[SchemaRouter, Path], query: str) -> None:
    assert logged_calls(*bank, query) == []


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        # a change after "and" ends the clause: its id is asked
        (
            "Transfer 20 USD from AC-1 to account AC-2 which AC-9 funded and freeze account AC-9",
            [*_moved("AC-1", "AC-2"), ("freeze_account", {"account_id": "AC-9"})],
        ),
        # a clause that gives its head's own id describes nothing else
        ("Freeze the account whose id is AC-5", [("freeze_account", {"account_id": "AC-5"})]),
        ("Freeze account AC-1 which AC-9 opened", [("freeze_account", {"account_id": "AC-1"})]),
    ],
)
def test_ids_outside_the_clause_are_still_given(
    bank: tuple[SchemaRouter, Path], query: str, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    assert logged_calls(*bank, query, max_calls=3) == sent


def test_a_change_ranked_for_what_a_message_says_is_not_planned(
    bank: tuple[SchemaRouter, Path],
) -> None:
    """``block_card`` ranks first for the message's "card CD-1 was blocked": it was SENT
    (``block_card(card_id="CD-1")``, a change no one asked; review 17 left it), and with the
    message's card an id that describes, planned with its card missing, which refused the
    whole plan. The request's first part's best is planned in its place."""
    query = "notify customer CU-3 that card CD-1 was blocked, and freeze account AC-1"
    assert logged_calls(*bank, query) == [
        ("notify_customer", {"customer_id": "CU-3", "message": "card CD-1 was blocked"}),
        ("freeze_account", {"account_id": "AC-1"}),
    ]


@pytest.mark.parametrize(
    ("query", "id_", "inside"),
    [
        ("Make sure that account AC-1 is frozen", "AC-1", False),  # "that" of a verb
        ("Notify customer CU-3 that card CD-1 is blocked", "CD-1", True),
        ("Block card CD-2 (CD-2)", "CD-2", False),  # parentheses holding the id alone
        ("band gap of gallium nitride (GaN)", "GaN", False),  # or one token: the formula
        ("Block card CD-1 (the one linked to AC-1)", "AC-1", True),
        ("We like account AC-1, freeze it", "AC-1", False),  # "like" as a verb
        ("Close an account similar to AC-7", "AC-7", True),
    ],
)
def test_what_describes(query: str, id_: str, inside: bool) -> None:
    start = query.rindex(id_)
    assert describes(query, start, start + len(id_)) is inside


def test_long_requests_are_read_in_linear_time() -> None:
    import time

    for query in (
        "Transfer 20 USD to account AC-2 " + "that which " * 20_000,
        "move AC-1 like " * 10_000,
        "(" * 50_000 + "AC-1",
        "the account " * 20_000 + "that AC-9 opened",
    ):
        began = time.perf_counter()
        undescribed(query)
        assert time.perf_counter() - began < 10  # a hang, not a speed: seconds, not hours
