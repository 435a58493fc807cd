"""A small real MCP server (stdio) of a bank's ledger, for the planning tests of money moves,
changes of another verb and reads registered with no annotation (user trial 14).

Accounts (get, list, freeze, unfreeze, close), transfers (create, get, list), cards (get,
block) and statements. ``list_transfers`` and ``get_statement`` carry no annotation: a
trusted registration reads them as writes. Every call is appended to ``$LEDGER_LOG`` as one
JSON line ``{"tool": ..., "arguments": {...}}``; nothing is stored.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("ledger")
READ = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True)

Account = Annotated[str, Field(description="Account id, e.g. AC-7", pattern=r"^AC-\d+$")]
Card = Annotated[str, Field(description="Card id, e.g. CD-3", pattern=r"^CD-\d+$")]


def _log(tool: str, **arguments: object) -> dict[str, object]:
    with open(os.environ["LEDGER_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")
    return {"ok": True, "tool": tool}


@server.tool(title="Get an account", annotations=READ)
def get_account(account_id: Account) -> dict[str, object]:
    """One account by its id: status and balance."""
    return _log("get_account", account_id=account_id)


@server.tool(title="List accounts", annotations=READ)
def list_accounts(
    status: Annotated[Literal["active", "frozen"] | None, Field(description="Only in it")] = None,
) -> dict[str, object]:
    """List the bank's accounts, optionally in one status."""
    return _log("list_accounts", status=status)


@server.tool(title="Freeze an account", annotations=WRITE)
def freeze_account(account_id: Account) -> dict[str, object]:
    """Freeze an account: no money leaves it."""
    return _log("freeze_account", account_id=account_id)


@server.tool(title="Unfreeze an account", annotations=WRITE)
def unfreeze_account(account_id: Account) -> dict[str, object]:
    """Unfreeze a frozen account."""
    return _log("unfreeze_account", account_id=account_id)


@server.tool(title="Close an account", annotations=DESTROY)
def close_account(account_id: Account) -> dict[str, object]:
    """Close an account for good."""
    return _log("close_account", account_id=account_id)


@server.tool(title="Create a transfer", annotations=WRITE)
def create_transfer(
    from_account_id: Annotated[str, Field(description="Account the money leaves")],
    to_account_id: Annotated[str, Field(description="Account the money goes to")],
    amount: Annotated[float, Field(description="How much, in the currency given", gt=0)],
    currency: Annotated[Literal["USD", "EUR", "GBP"], Field(description="ISO currency code")],
) -> dict[str, object]:
    """Move money from one account to another."""
    return _log(
        "create_transfer",
        from_account_id=from_account_id,
        to_account_id=to_account_id,
        amount=amount,
        currency=currency,
    )


@server.tool(title="Get a transfer", annotations=READ)
def get_transfer(
    transfer_id: Annotated[str, Field(description="Transfer id, e.g. TF-2")],
) -> dict[str, object]:
    """One transfer by its id."""
    return _log("get_transfer", transfer_id=transfer_id)


@server.tool(title="List transfers")
def list_transfers(
    account_id: Annotated[str | None, Field(description="Only of this account")] = None,
) -> dict[str, object]:
    """List money transfers, optionally of one account."""
    return _log("list_transfers", account_id=account_id)


@server.tool(title="Get a card", annotations=READ)
def get_card(card_id: Card) -> dict[str, object]:
    """One payment card by its id."""
    return _log("get_card", card_id=card_id)


@server.tool(title="Block a card", annotations=WRITE)
def block_card(card_id: Card) -> dict[str, object]:
    """Block a card: no payment goes through."""
    return _log("block_card", card_id=card_id)


@server.tool(title="Get a statement")
def get_statement(
    account_id: Account,
    month: Annotated[str | None, Field(description="Month as YYYY-MM")] = None,
) -> dict[str, object]:
    """The monthly statement of an account."""
    return _log("get_statement", account_id=account_id, month=month)


if __name__ == "__main__":
    server.run()
