"""A request that texts ("Text +15551234567: running late", "ping ...", "message ...") sends
what follows the colon to the number; a question about texts sends nothing (follow-up of
earlier trials). Before, "Text +15551234567: running late" planned ``send_sms`` with
``message`` open (nothing sent); "ping +15551234567: running late" read "running" as a start
and planned a read; "+1 555 123 4567" was read as "555 123 4567", its country code dropped;
and "send a text to +15551234567 saying hi, then delete message M-1" sent the text "M-1".

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter, capability
from schemarouter.contracts import Effect
from schemarouter.index import HashingEncoder

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


def _log(fn: str, **args: object) -> None:
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": args}) + "\n")


@capability(effect="write")
def send_sms(to: str, message: str) -> str:
    """Send a text message (SMS) to a phone number.

    Args:
        to: The phone number, in E.164 form like +15551234567.
        message: The text to send.
    """
    _log("send_sms", to=to, message=message)
    return "sent"


def list_messages(phone: str | None = None, limit: int = 10) -> list[str]:
    """List the text messages sent and received.

    Args:
        phone: Only messages with this phone number.
        limit: How many to return.
    """
    _log("list_messages", phone=phone, limit=limit)
    return []


@capability(effect="write")
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email.

    Args:
        to: The address.
        subject: The subject line.
        body: The text of the email.
    """
    _log("send_email", to=to, subject=subject, body=body)
    return "sent"


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SchemaRouter, Path]]:
    log = tmp_path_factory.mktemp("phone") / "calls.jsonl"
    _LOG[:] = [log]
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([send_sms, list_messages, send_email], provider="phone")
    try:
        yield router, log
    finally:
        router.close()


def _sent(router: SchemaRouter, log: Path, query: str) -> list[dict[str, Any]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL), max_calls=3)
    log.write_text("", encoding="utf-8")
    router.execute(plan, **ALLOW)
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    ("query", "to"),
    [
        ("Text +15551234567: running late", "+15551234567"),
        ("text +15551234567: running late", "+15551234567"),
        ("ping +15551234567: running late", "+15551234567"),
        ("message +15551234567: running late", "+15551234567"),
        ("Text +1 555 123 4567: running late", "+1 555 123 4567"),
        ("send a text to +1 555 123 4567 saying running late", "+1 555 123 4567"),
    ],
)
def test_the_text_after_the_colon_is_sent(
    phone: tuple[SchemaRouter, Path], query: str, to: str
) -> None:
    calls = _sent(*phone, query)
    assert calls == [{"fn": "send_sms", "args": {"to": to, "message": "running late"}}]


def test_a_message_id_is_never_the_text(phone: tuple[SchemaRouter, Path]) -> None:
    calls = _sent(*phone, "send a text to +15551234567 saying hi, then delete message M-1")
    assert {"fn": "send_sms", "args": {"to": "+15551234567", "message": "hi"}} in calls
    assert all(c["args"].get("message") != "M-1" for c in calls)


@pytest.mark.parametrize(
    "query",
    [
        "what was the last text to +15551234567?",
        "did I text +15551234567: running late?",
        "show the messages with +15551234567",
    ],
)
def test_a_question_sends_nothing(phone: tuple[SchemaRouter, Path], query: str) -> None:
    calls = _sent(*phone, query)
    assert all(c["fn"] == "list_messages" for c in calls)


@capability(effect="write")
def transfer(from_account: str, to_account: str, amount: float, currency: str) -> str:
    """Move money between two accounts.

    Args:
        from_account: The account to debit, like AC-1.
        to_account: The account to credit, like AC-2.
        amount: How much.
        currency: The currency, like EUR.
    """
    _log("transfer", from_account=from_account, to_account=to_account, amount=amount)
    return "ok"


def test_a_text_about_a_change_sends_the_text_not_the_change(
    phone: tuple[SchemaRouter, Path],
) -> None:
    """The twentieth review: "Text +15551234567: transfer 50 EUR from AC-1 to AC-2" moved
    the money and sent no text: the message's account ids were read as ids the request
    names, and the transfer, which takes them, was planned first."""
    _, log = phone
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([send_sms, list_messages, send_email], provider="phone")
    router.add_callable([transfer], provider="bank")
    query = "Text +15551234567: transfer 50 EUR from AC-1 to AC-2"
    try:
        calls = _sent(router, log, query)
    finally:
        router.close()
    message = "transfer 50 EUR from AC-1 to AC-2"
    assert calls == [{"fn": "send_sms", "args": {"to": "+15551234567", "message": message}}]
