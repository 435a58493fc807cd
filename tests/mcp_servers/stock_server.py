"""A small real MCP server of a shop's stock (stdio): items keyed by a plain ``sku: str``.

Run: ``python stock_server.py CALL_LOG``. The tools take the SKU as the MCP SDK writes a
plain ``str`` (no description, no pattern) and return the item with its ``sku``, as a shop's
own server would (trial 22); every call is appended to CALL_LOG as a JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

LOG = Path(sys.argv[1])
STOCK = {"PED-0107": 5, "AMP-0009": 1}


class Item(BaseModel):
    sku: str
    bin: str
    quantity: int


def _log(tool: str, **arguments: object) -> None:
    with LOG.open("a") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


server = MCPServer("stock")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get_item(sku: str) -> Item:
    """One inventory item by its SKU: bin and quantity on hand."""
    _log("get_item", sku=sku)
    return Item(sku=sku, bin="A-3", quantity=STOCK.get(sku, 0))


@server.tool(annotations=ToolAnnotations(read_only_hint=False))
def adjust_stock(sku: str, delta: int) -> Item:
    """Change the quantity on hand of an item by a signed delta: positive adds units,
    negative removes them."""
    _log("adjust_stock", sku=sku, delta=delta)
    STOCK[sku] = STOCK.get(sku, 0) + delta
    return Item(sku=sku, bin="A-3", quantity=STOCK[sku])


@server.tool(annotations=ToolAnnotations(read_only_hint=False))
def move_item(sku: str, bin: str) -> Item:
    """Move an item to another storage bin."""
    _log("move_item", sku=sku, bin=bin)
    return Item(sku=sku, bin=bin, quantity=STOCK.get(sku, 0))


@server.tool(annotations=ToolAnnotations(read_only_hint=False))
def reserve_item(sku: str, quantity: int = 1) -> Item:
    """Reserve units of an item for a buyer so they are not sold twice."""
    _log("reserve_item", sku=sku, quantity=quantity)
    return Item(sku=sku, bin="A-3", quantity=STOCK.get(sku, 0))


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def write_off_item(sku: str, reason: str) -> str:
    """Write an item off the books (lost, stolen, damaged). Cannot be undone."""
    _log("write_off_item", sku=sku, reason=reason)
    STOCK.pop(sku, None)
    return f"written off {sku}"


if __name__ == "__main__":
    server.run()
