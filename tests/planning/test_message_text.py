"""What a notification says, written unquoted after "that" or "saying" (user trial 14).

"Notify customer CUS-300 that their card was blocked" planned ``notify_customer`` with its
``message`` missing, and "Block card CARD-9, then notify customer CUS-300 that the card is
blocked" had execute refuse the whole plan, so the card was not blocked either. The server is
real (tests/mcp_servers/ledger_server.py over stdio) and so is the callable; both log what
they receive to one file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serving import logged_calls, serving_mcp

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError

ALL = frozenset(Effect)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("ledger") / "calls.jsonl"

    def notify_customer(customer_id: str, message: str) -> str:
        """Send a notification message (e-mail and app push) to a customer, e.g. CU-4."""
        arguments = {"customer_id": customer_id, "message": message}
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "notify_customer", "arguments": arguments}) + "\n")
        return "sent"

    def add_note(account_id: str, text: str) -> str:
        """Add a note to an account's file."""
        return "added"

    with serving_mcp(
        "ledger_server.py", "ledger", "LEDGER_LOG", log, [notify_customer, add_note]
    ) as router:
        yield router, log


def _sent(bank: tuple[SchemaRouter, Path], query: str) -> list[tuple[str, dict[str, Any]]]:
    """What the server and the callables receive once the plan of ``query`` runs, every
    effect allowed and every change approved (nothing where execute refuses the plan)."""
    return logged_calls(*bank, query)


def _notified(message: str) -> tuple[str, dict[str, Any]]:
    return ("notify_customer", {"customer_id": "CU-4", "message": message})


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("Notify customer CU-4 that their card was blocked", "their card was blocked"),
        ("Send customer CU-4 a message saying your transfer is on its way.",
         "your transfer is on its way"),
        ("Notify customer CU-4 with the message your card is blocked",
         "your card is blocked"),
    ],
)  # fmt: skip
def test_what_the_notification_says_is_its_message(
    bank: tuple[SchemaRouter, Path], query: str, message: str
) -> None:
    assert _sent(bank, query) == [_notified(message)]


def test_a_block_then_a_notification_sends_both(bank: tuple[SchemaRouter, Path]) -> None:
    query = "Block card CD-9, then notify customer CU-4 that the card is blocked"
    assert _sent(bank, query) == [
        ("block_card", {"card_id": "CD-9"}),
        _notified("the card is blocked"),
    ]


def test_a_relative_clause_is_no_message(bank: tuple[SchemaRouter, Path]) -> None:
    router, _ = bank
    plan = router.plan(
        PlanRequest(query="Notify the customer that owns account AC-1", allowed_effects=ALL)
    )
    assert plan.route_ids == ("team/python/notify_customer",)
    assert "message" in plan.steps[0].missing_parameters


def test_a_route_that_adds_a_note_takes_its_that_clause(bank: tuple[SchemaRouter, Path]) -> None:
    """Trial 14 read a route that sends nothing as taking no "that" clause; trial 20's sales
    team wrote its notes so ("add a note to C-2 that they went with a competitor", nothing
    noted), and a route whose name says it adds a note now reads what is said as a sending
    one does (planning/message_text)."""
    router, _ = bank
    query = "Add a note to account AC-1 that the customer called"
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("team/python/add_note",)
    assert plan.steps[0].arguments["text"] == "the customer called"


def test_a_later_step_missing_its_message_blocks_the_plan_and_says_which(
    bank: tuple[SchemaRouter, Path],
) -> None:
    router, log = bank
    log.write_text("", encoding="utf-8")
    query = "Block card CD-9, then notify customer CU-4"
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=3)
    assert plan.route_ids == ("ledger/mcp/block_card", "team/python/notify_customer")
    with pytest.raises(ParameterValidationError) as refused:
        router.execute(plan, allow_effects=list(Effect), approve=lambda route, args: True)
    said = str(refused.value)
    assert "plan step 1 (team/python/notify_customer)" in said
    assert "'message'" in said
    assert log.read_text(encoding="utf-8") == ""  # the block was not sent either


@pytest.mark.parametrize(
    "query",
    [
        "Notify customer CU-4 " + "a" * 100_000 + " that their card was blocked",
        # each "that" asked every introduction whether it lay inside it: "saying that " * 8,000
        # took 14.7 s (found merging two fixes of the first, stop 52)
        "Notify customer CU-4 " + "saying that " * 20_000 + "their card was blocked",
    ],
    ids=["a word of 100,000 letters", "20,000 introductions"],
)
def test_a_long_word_before_a_message_costs_no_time(
    bank: tuple[SchemaRouter, Path], query: str
) -> None:
    """The message's start was one pattern that scanned the rest of a word from each of its
    letters: a notification with a word of 20,000 letters planned in about 2.6 s, 100,000 in
    minutes (found when every change that would send nothing came to read it). The bound
    only catches that blow-up."""
    import time

    router, _ = bank
    started = time.process_time()  # CPU: other jobs' load is not ours
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert time.process_time() - started < 20.0
    assert plan.route_ids == ("team/python/notify_customer",)
