"""Money moved between two accounts whose parameters are named for their sides with no ``_id``
(``from_account`` / ``to_account``, ``source`` / ``destination``): each side takes its own
id, and a side the request leaves unclear ("from AC-1 or AC-2") takes none, so nothing is
sent (follow-up of user trial 14). Before, "move 200 EUR from AC-1 to AC-9" left both sides
open, and with ``from_account_id`` "transfer 50 EUR to AC-9 from AC-1 or AC-2" debited AC-1.

The functions are real and log each call they receive to a JSON-lines file."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from schemarouter import PlanRequest, SchemaRouter, capability
from schemarouter.contracts import Effect
from schemarouter.errors import ParameterValidationError
from schemarouter.index import HashingEncoder

ALL = frozenset(Effect)
ALLOW: dict[str, Any] = {"allow_effects": ["read", "write"], "approve": lambda *_: True}
_LOG: list[Path] = []


def _log(fn: str, **args: object) -> None:
    plain = {k: str(v) if isinstance(v, Decimal) else v for k, v in args.items()}
    with _LOG[0].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"fn": fn, "args": plain}) + "\n")


@capability(effect="write")
def transfer_funds(from_account: str, to_account: str, amount: Decimal, currency: str) -> str:
    """Move money between two accounts.

    Args:
        from_account: The account debited, like AC-1.
        to_account: The account credited, like AC-2.
        amount: How much to move.
        currency: The currency, like EUR.
    """
    _log("transfer_funds", src=from_account, dst=to_account, amount=amount, currency=currency)
    return "done"


@capability(effect="write")
def move_money(source: str, destination: str, amount: Decimal, currency: str) -> str:
    """Transfer money from one account to another.

    Args:
        source: The account the money leaves.
        destination: The account the money goes to.
        amount: How much.
        currency: The currency, like EUR.
    """
    _log("move_money", src=source, dst=destination, amount=amount, currency=currency)
    return "done"


@capability(effect="write")
def pay_from(from_account_id: str, to_account_id: str, amount: Decimal, currency: str) -> str:
    """Pay money from one account to another.

    Args:
        from_account_id: The account debited.
        to_account_id: The account credited.
        amount: How much.
        currency: The currency, like EUR.
    """
    _log("pay_from", src=from_account_id, dst=to_account_id, amount=amount, currency=currency)
    return "done"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bank") / "calls.jsonl"
    _LOG[:] = [path]
    return path


@pytest.fixture(scope="module", params=[transfer_funds, move_money, pay_from])
def bank(request: pytest.FixtureRequest, log: Path) -> Iterator[SchemaRouter]:
    fn: Callable[..., str] = request.param
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable(fn, provider="bank")
    try:
        yield router
    finally:
        router.close()


def _sent(router: SchemaRouter, log: Path, query: str) -> list[dict[str, Any]]:
    plan = router.plan(PlanRequest(query=query, allowed_effects=ALL))
    log.write_text("", encoding="utf-8")
    try:
        router.execute(plan, **ALLOW)
    except ParameterValidationError:
        assert plan.missing_arguments  # refused: a side (or more) left open
    return [json.loads(line)["args"] for line in log.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(
    "query",
    [
        "move 200 EUR from AC-1 to AC-9",
        "transfer 200 EUR to AC-9 from AC-1",
        "move 200 EUR from account AC-1 to account AC-9",
        "move 200 EUR from AC-1 to AC-9 and notify C-3",
    ],
)
def test_each_side_takes_its_own_id(bank: SchemaRouter, log: Path, query: str) -> None:
    sent = _sent(bank, log, query)
    assert sent == [{"src": "AC-1", "dst": "AC-9", "amount": "200", "currency": "EUR"}]


@pytest.mark.parametrize(
    "query",
    [
        "transfer 50 EUR to AC-9 from AC-1 or AC-2",
        "transfer 50 EUR from account AC-1 or AC-2 to AC-9",
        "transfer 50 EUR from AC-1 to AC-9 or AC-3",
        "transfer 50 EUR from AC-1 to AC-9, AC-3",
        "transfer 50 EUR from AC-1",
        "transfer 50 EUR between AC-1 and AC-9",
    ],
)
def test_nothing_is_sent_where_a_side_is_unclear(bank: SchemaRouter, log: Path, query: str) -> None:
    assert _sent(bank, log, query) == []
