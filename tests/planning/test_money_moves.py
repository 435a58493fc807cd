"""Money sent, paid or moved between accounts is a transfer's change, and no change of
another verb stands for the one asked (user trial 14).

"Send $250 from ACC-1001 to ACC-1002" and "Pay 40 GBP from ACC-1002 to ACC-1005" planned a
read in place of ``create_transfer`` (its name says create and transfer, neither send nor
pay); here, where a route that sends something else ranks above the transfer, that one was
planned (``notify_customer``). "Transfer part of the balance of ACC-1001 to ACC-1002"
planned ``unfreeze_account`` in place of ``close_account``, ranked first, a change nobody
asked ("the request asks to move, not to delete"); "Rename account AC-4" froze AC-4 so.

The server is real: tests/mcp_servers/ledger_server.py over stdio, which logs each call it
receives; the two callables log theirs to the same file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serving import logged_calls, serving_mcp

from schemarouter import PlanRequest, SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.planning.mixed_verbs import asked_verb_first

ALL = frozenset(Effect)


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("ledger") / "calls.jsonl"

    def notify_customer(customer_id: str, message: str) -> str:
        """Send a notification message to a customer, e.g. CU-4."""
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"tool": "notify_customer", "arguments": {}}) + "\n")
        return "sent"

    with serving_mcp("ledger_server.py", "ledger", "LEDGER_LOG", log, [notify_customer]) as router:
        yield router, log


def _sent(bank: tuple[SchemaRouter, Path], query: str) -> list[tuple[str, dict[str, Any]]]:
    """What the server and the callables receive once the plan of ``query`` runs, every
    effect allowed and every change approved (nothing where execute refuses the plan)."""
    return logged_calls(*bank, query)


@pytest.mark.parametrize(
    ("query", "arguments"),
    [
        ("Send $250 from AC-1 to AC-2",
         {"from_account_id": "AC-1", "to_account_id": "AC-2", "amount": 250, "currency": "USD"}),
        ("Pay 40 GBP from AC-2 to AC-5",
         {"from_account_id": "AC-2", "to_account_id": "AC-5", "amount": 40, "currency": "GBP"}),
        ("Move €1,200.50 from AC-2 to AC-3",
         {"from_account_id": "AC-2", "to_account_id": "AC-3", "amount": 1200.5,
          "currency": "EUR"}),
        ("Transfer 75.25 GBP from AC-3 to AC-4",
         {"from_account_id": "AC-3", "to_account_id": "AC-4", "amount": 75.25,
          "currency": "GBP"}),
        # the code before the sum, in either case: USD was read as a thing, 20 as its id,
        # and notify_customer was planned
        ("Send USD 20 from AC-1 to AC-2",
         {"from_account_id": "AC-1", "to_account_id": "AC-2", "amount": 20, "currency": "USD"}),
        ("Send usd 20 from AC-1 to AC-2",
         {"from_account_id": "AC-1", "to_account_id": "AC-2", "amount": 20, "currency": "USD"}),
        ("Send 20 usd from AC-1 to AC-2",
         {"from_account_id": "AC-1", "to_account_id": "AC-2", "amount": 20, "currency": "USD"}),
    ],
)  # fmt: skip
def test_money_sent_paid_or_moved_is_transferred(
    bank: tuple[SchemaRouter, Path], query: str, arguments: dict[str, Any]
) -> None:
    assert _sent(bank, query) == [("create_transfer", arguments)]


def test_a_payment_to_no_account_is_planned_with_that_side_missing(
    bank: tuple[SchemaRouter, Path],
) -> None:
    router, _ = bank
    query = "Pay 40 GBP to payee P-3 from AC-1"
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("ledger/mcp/create_transfer",)
    assert plan.steps[0].arguments == {"from_account_id": "AC-1", "amount": 40, "currency": "GBP"}
    assert plan.steps[0].missing_parameters == ("to_account_id",)
    assert _sent(bank, query) == []


def test_a_part_of_a_balance_keeps_the_amount_missing_and_nothing_is_sent(
    bank: tuple[SchemaRouter, Path],
) -> None:
    router, _ = bank
    query = "Transfer part of the balance of AC-1 to AC-2"
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("ledger/mcp/create_transfer",)
    assert "amount" in plan.steps[0].missing_parameters
    assert _sent(bank, query) == []


@pytest.mark.parametrize(
    "query",
    [
        "Send a message to customer CU-4",  # no money: the notification
        "Notify customer CU-4",
        "Send the balance of AC-1 to customer CU-4",  # tells it: no share of it moves
    ],
)
def test_a_send_of_no_money_is_no_transfer(bank: tuple[SchemaRouter, Path], query: str) -> None:
    router, _ = bank
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    assert plan.route_ids == ("team/python/notify_customer",)


@pytest.mark.parametrize(
    "query",
    [
        "Send the balance of AC-1 to customer CU-4",  # what the message says is not written
        "Send customer CU-4 the balance of AC-1",
        "Notify customer CU-4 that usd transfers are paused",  # a code with no sum beside it
    ],
)
def test_a_message_about_money_never_moves_it(bank: tuple[SchemaRouter, Path], query: str) -> None:
    router, _ = bank
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=3)
    assert "ledger/mcp/create_transfer" not in plan.route_ids
    assert all(tool == "notify_customer" for tool, _ in _sent(bank, query))


def test_a_change_of_another_verb_never_stands_for_the_one_asked(
    bank: tuple[SchemaRouter, Path],
) -> None:
    # close_account ranks first, freeze_account near: it was planned ("destroys nothing")
    assert _sent(bank, "Rename account AC-4") == [("get_account", {"account_id": "AC-4"})]


def test_the_trials_order_plans_the_transfer_not_the_unfreeze(
    bank: tuple[SchemaRouter, Path],
) -> None:
    router, _ = bank
    snapshot = router.snapshot()
    ranked = ["close_account", "list_accounts", "unfreeze_account", "get_statement"]
    ranked += ["freeze_account", "create_transfer", "get_account"]
    eligible = [f"ledger/mcp/{name}" for name in ranked]
    query = "Transfer part of the balance of AC-1 to AC-2"
    warnings: list[str] = []
    assert asked_verb_first(query, snapshot, eligible, warnings)[0] == "ledger/mcp/create_transfer"
    # with no transfer near, no change is planned in the delete's place: a read of its thing
    without = [r for r in eligible if r != "ledger/mcp/create_transfer"]
    warnings = []
    assert asked_verb_first(query, snapshot, without, warnings)[0] == "ledger/mcp/get_account", (
        warnings
    )
    assert any("ledger/mcp/close_account, ranked first, deletes" in w for w in warnings)
    # and with no read near either, nothing is
    bare = ["ledger/mcp/close_account", "ledger/mcp/unfreeze_account"]
    assert asked_verb_first(query, snapshot, bare, []) == []
