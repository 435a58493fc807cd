"""A small real MCP server for the adapter tests (stdio by default).

Run: ``python materials_server.py`` (stdio) or ``python materials_server.py http PORT``
(streamable HTTP on 127.0.0.1). Its tools cover the cases the MCP adapter must handle: a
structured output (-> output fields), a read-only claim, a destructive claim, no
annotations at all, and a nested pydantic input (-> a local ``$ref`` to resolve).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field


class Composition(BaseModel):
    """A chemical composition."""

    formula: str = Field(description="Reduced formula, e.g. 'Fe2O3'")
    charge: int = 0


class BandGap(BaseModel):
    material_id: str
    band_gap_ev: float = Field(description="Band gap in eV")
    functional: str = "PBE"


server = MCPServer("materials")


@server.tool(
    title="Band gap lookup",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
def band_gap(material_id: str, functional: str = "PBE") -> BandGap:
    """Band gap of a material by its id."""
    return BandGap(material_id=material_id, band_gap_ev=1.1, functional=functional)


@server.tool(annotations=ToolAnnotations(destructive_hint=True, read_only_hint=False))
def delete_structure(structure_id: str) -> str:
    """Delete a stored structure."""
    return f"deleted {structure_id}"


@server.tool()
def add_composition(composition: Composition, note: str | None = None) -> str:
    """Store a composition."""
    return composition.formula


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
