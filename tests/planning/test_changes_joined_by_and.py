"""Two changes joined by a plain "and", each with its own verb and its own thing, are two parts.

"Block card CD-1 and notify customer CU-3 that their card is blocked" planned the block only
(and warned that no step took customer CU-3): "Block card CD-1" was too short a side for a
plain "and" to split at, where ", then" split the same request. What a notification says
after "that", quoted text, "search and replace", names ("Tom and Jerry") and one change of
several ids stay whole. The server is real (tests/mcp_servers/ledger_server.py over stdio)
and so is the callable; both log what they receive to one file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_serving import logged_calls, serving_mcp

from schemarouter import SchemaRouter
from schemarouter.contracts import Effect
from schemarouter.retrieval.intents import split_intents

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

    with serving_mcp("ledger_server.py", "ledger", "LEDGER_LOG", log, [notify_customer]) as router:
        yield router, log


def _sent(bank: tuple[SchemaRouter, Path], query: str) -> list[tuple[str, dict[str, Any]]]:
    """What the server and the callables receive once the plan of ``query`` runs, every
    effect allowed and every change approved (nothing where execute refuses the plan)."""
    return logged_calls(*bank, query)


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        ("Block card CD-1 and notify customer CU-3 that their card is blocked",
         [("block_card", {"card_id": "CD-1"}),
          ("notify_customer", {"customer_id": "CU-3", "message": "their card is blocked"})]),
        ("Freeze account AC-1 and block card CD-2",
         [("freeze_account", {"account_id": "AC-1"}), ("block_card", {"card_id": "CD-2"})]),
    ],
)  # fmt: skip
def test_two_changes_joined_by_and_are_both_sent(
    bank: tuple[SchemaRouter, Path], query: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    assert _sent(bank, query) == calls


def test_an_and_in_what_a_notification_says_is_its_message(
    bank: tuple[SchemaRouter, Path],
) -> None:
    query = "Notify customer CU-3 that card CD-1 is blocked and frozen"
    assert _sent(bank, query) == [
        ("notify_customer", {"customer_id": "CU-3", "message": "card CD-1 is blocked and frozen"})
    ]


@pytest.mark.parametrize(
    "query",
    [
        "Search and replace foo in file F-1",  # no verb with an id of its own on the left
        "Read and summarise document D-1",  # a read
        "Notify Tom and Jerry that order O-1 shipped",  # no verb after "and"
        "Block card CD-1 and CD-2",  # one change of several ids
        "Block card CD-1 and block card CD-2",  # the same change twice
        "Send customer CU-3 the text: 'block card CD-1 and close account AC-1'",  # quoted
        "Notify customer CU-3 that we block card CD-1 and close account AC-1",  # the message
    ],
)
def test_an_and_that_joins_no_two_changes_splits_nothing(query: str) -> None:
    assert split_intents(query) == [query]


@pytest.mark.parametrize(
    "query",
    [
        "Notify customer CU-3 that card CD-1 is blocked and account AC-1 will be closed soon",
        "notify customer CU-3 saying we blocked card CD-1 and we will close account AC-1 today",
        "Send customer CU-3 the text 'card CD-1 is blocked and account AC-1 gets closed today'",
        "Notify customer CU-3 with the message card CD-1 is blocked and account AC-1 is closed now",
    ],
)
def test_an_and_in_what_a_message_says_sends_no_change_of_its_own(
    bank: tuple[SchemaRouter, Path], query: str
) -> None:
    """Review 17: a plain "and" between two sides of five words each split what the
    notification says, and its second side closed account AC-1 (a destructive change no one
    asked); the notification alone is sent now, with all it says."""
    sent = _sent(bank, query)
    assert [tool for tool, _ in sent] == ["notify_customer"], sent
    assert "AC-1" in sent[0][1]["message"]


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        # a quote closed before the "and", or a "that" of a clause that sends nothing
        ("Create a ticket titled 'Login broken' and assign ticket T-1 to Bob Smith today",
         ["Create a ticket titled 'Login broken'", "assign ticket T-1 to Bob Smith today"]),
        ("Freeze account AC-1 right now and block card CD-2 right after it",
         ["Freeze account AC-1 right now", "block card CD-2 right after it"]),
        # the words before a verb that ask nothing are retrieval's one table (actions.POLITE):
        # "Can you", "I want to", "let's" were read as the verb, and nothing split
        ("Can you freeze account AC-1 and block card CD-2",
         ["Can you freeze account AC-1", "block card CD-2"]),
        ("I want to freeze account AC-1 and block card CD-2",
         ["I want to freeze account AC-1", "block card CD-2"]),
    ],
)  # fmt: skip
def test_an_and_outside_a_message_still_splits(query: str, parts: list[str]) -> None:
    assert split_intents(query) == parts


def test_a_message_ends_before_a_change_joined_by_a_comma_and(
    bank: tuple[SchemaRouter, Path],
) -> None:
    """Review 17: "..., and freeze account AC-1" was sent to the customer as the end of
    what the notification says; the freeze is sent, the message ends before it."""
    sent = dict(
        _sent(bank, "notify customer CU-3 that card CD-1 was blocked, and freeze account AC-1")
    )
    assert sent["notify_customer"] == {"customer_id": "CU-3", "message": "card CD-1 was blocked"}
    assert sent["freeze_account"] == {"account_id": "AC-1"}
    # a verb with no id of its own after ", and" is still what the message says
    said = dict(_sent(bank, "notify customer CU-3 that card CD-1 was blocked, and replaced"))
    assert said["notify_customer"]["message"] == "card CD-1 was blocked, and replaced"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("Send customer CU-3 a message: card CD-1 is blocked and close account AC-1 is pending",
         "card CD-1 is blocked and close account AC-1 is pending"),
        ("Notify customer CU-3, message: your card is blocked", "your card is blocked"),
        ("Notify customer CU-3, message: blocked", "blocked"),
    ],
)  # fmt: skip
def test_what_a_message_colon_says_is_sent_whole(
    bank: tuple[SchemaRouter, Path], query: str, message: str
) -> None:
    """Review 17: "message: card CD-1 is blocked ..." sent the message "card" (a named value
    took one bare word), and before the "and" fix closed account AC-1 too."""
    assert _sent(bank, query) == [("notify_customer", {"customer_id": "CU-3", "message": message})]
